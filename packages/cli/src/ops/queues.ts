/**
 * The queues `baton status` reports on: each one's depth, in flight, delayed, and the age of its
 * oldest message. SQS's API gives no age (neither does ElasticMQ): it is CloudWatch's
 * `ApproximateAgeOfOldestMessage`, read here; on the emulators the age is unknown, and said so.
 */
import {
  CloudWatchClient,
  GetMetricDataCommand,
  type MetricDataResult,
} from '@aws-sdk/client-cloudwatch';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { BatonError, ErrorCode, toBatonError } from '@baton/core';
import { OPERATOR_HTTP } from './awsClients.ts';
import type { Target } from './target.ts';

/** One queue's health, as `baton status` prints it. */
export interface QueueHealth {
  /** What it holds: `inbox`, `inbox dead letters`, `timers`, `timer dead letters`, `stream failures`. */
  readonly name: string;
  readonly url: string;
  readonly waiting: number;
  readonly inFlight: number;
  /** Sent with a delay not yet over (timers wait on the timer queue this way). */
  readonly delayed: number;
  /** The age of its oldest message (CloudWatch's latest minute); `null` when unknown. */
  readonly oldestAgeMs: number | null;
}

/** Where the ages came from, or why there are none. */
export type AgeSource = 'cloudwatch' | { readonly unknown: string };

/** CloudWatch's latest datapoint is looked for this far back (SQS publishes every minute). */
const AGE_WINDOW_MS = 15 * 60_000;

/** The queues a target names, in the order status prints them (no inbox with the table alone). */
function namedQueues(target: Target): Array<{ name: string; url: string }> {
  const { names } = target;
  return [
    ...(names.inboxUrl ? [{ name: 'inbox', url: names.inboxUrl }] : []),
    ...(names.deadLetterQueueUrl
      ? [{ name: 'inbox dead letters', url: names.deadLetterQueueUrl }]
      : []),
    ...(names.timerQueueUrl ? [{ name: 'timers', url: names.timerQueueUrl }] : []),
    ...(names.timerDeadLetterQueueUrl
      ? [{ name: 'timer dead letters', url: names.timerDeadLetterQueueUrl }]
      : []),
    ...(names.streamFailureQueueUrl
      ? [{ name: 'stream failures', url: names.streamFailureQueueUrl }]
      : []),
  ];
}

/**
 * Reads every queue the target names: depths from SQS, ages from CloudWatch (not on the
 * emulators; nor when CloudWatch refuses, then the reason is kept and status goes on). A queue
 * other than the inbox that cannot be read (a policy written without it) is left out and said
 * `unread`, with why; an unreadable inbox fails the whole read. With none named (the table
 * alone), it reads nothing.
 */
export async function readQueues(
  target: Target,
  now: number,
): Promise<{
  queues: QueueHealth[];
  ages: AgeSource;
  unread: Array<{ name: string; reason: string }>;
}> {
  const named = namedQueues(target);
  if (named.length === 0) {
    return { queues: [], ages: { unknown: 'no queue is named' }, unread: [] };
  }
  const [counts, aged] = await Promise.all([
    Promise.all(
      named.map(({ name, url }) =>
        queueCounts(target, url).catch((error: unknown) => {
          if (name === 'inbox') throw error;
          return toBatonError(error);
        }),
      ),
    ),
    queueAges(
      target,
      named.map(({ url }) => queueName(url)),
      now,
    ),
  ]);
  const queues: QueueHealth[] = [];
  const unread: Array<{ name: string; reason: string }> = [];
  named.forEach(({ name, url }, i) => {
    const count = counts[i]!;
    if (count instanceof BatonError) unread.push({ name, reason: count.message });
    else queues.push({ name, url, ...count, oldestAgeMs: aged.ages?.get(queueName(url)) ?? null });
  });
  return { queues, ages: aged.source, unread };
}

async function queueCounts(target: Target, url: string) {
  try {
    const { Attributes: a = {} } = await target.sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: url,
        AttributeNames: [
          'ApproximateNumberOfMessages',
          'ApproximateNumberOfMessagesNotVisible',
          'ApproximateNumberOfMessagesDelayed',
        ],
      }),
    );
    return {
      waiting: Number(a.ApproximateNumberOfMessages ?? 0),
      inFlight: Number(a.ApproximateNumberOfMessagesNotVisible ?? 0),
      delayed: Number(a.ApproximateNumberOfMessagesDelayed ?? 0),
    };
  } catch (error) {
    throw new BatonError(
      ErrorCode.UNAVAILABLE,
      `could not read the depth of queue ${url}: ${(error as Error).message}; check the URL and that you may call sqs:GetQueueAttributes`,
      { cause: error },
    );
  }
}

/** The queue's name: the last part of its URL. */
export function queueName(url: string): string {
  return url.slice(url.lastIndexOf('/') + 1);
}

async function queueAges(
  target: Target,
  queues: readonly string[],
  now: number,
): Promise<{ ages?: Map<string, number | null>; source: AgeSource }> {
  if (target.local) {
    return { source: { unknown: 'CloudWatch only: SQS and the emulators report no age' } };
  }
  const client = new CloudWatchClient({
    ...OPERATOR_HTTP,
    ...(target.region ? { region: target.region } : {}),
  });
  try {
    const result = await client.send(
      new GetMetricDataCommand({
        StartTime: new Date(now - AGE_WINDOW_MS),
        EndTime: new Date(now),
        ScanBy: 'TimestampDescending',
        MetricDataQueries: queues.map((queue, i) => ({
          Id: `q${i}`,
          ReturnData: true,
          MetricStat: {
            Metric: {
              Namespace: 'AWS/SQS',
              MetricName: 'ApproximateAgeOfOldestMessage',
              Dimensions: [{ Name: 'QueueName', Value: queue }],
            },
            Period: 60,
            Stat: 'Maximum',
          },
        })),
      }),
    );
    return { ages: latestAges(queues, result.MetricDataResults ?? []), source: 'cloudwatch' };
  } catch (error) {
    return {
      source: {
        unknown: `CloudWatch refused (${(error as Error).name}: ${(error as Error).message}); grant cloudwatch:GetMetricData`,
      },
    };
  } finally {
    client.destroy();
  }
}

/**
 * Each queue's latest `ApproximateAgeOfOldestMessage` (seconds in CloudWatch) in ms; `null` for a
 * queue with no datapoint in the window (SQS publishes none for a queue long idle).
 *
 * @example
 * latestAges(['inbox.fifo'], [{ Id: 'q0', Timestamps: [t2, t1], Values: [42, 40] }]); // inbox.fifo → 42000
 */
export function latestAges(
  queues: readonly string[],
  results: readonly MetricDataResult[],
): Map<string, number | null> {
  const ages = new Map<string, number | null>();
  queues.forEach((queue, i) => {
    const result = results.find((r) => r.Id === `q${i}`);
    const points = (result?.Timestamps ?? []).map((at, n) => ({
      at: at.getTime(),
      value: result?.Values?.[n],
    }));
    const latest = points
      .filter((p): p is { at: number; value: number } => p.value !== undefined)
      .sort((a, b) => b.at - a.at)[0];
    ages.set(queue, latest === undefined ? null : latest.value * 1000);
  });
  return ages;
}
