import type { SQSClient } from '@aws-sdk/client-sqs';
import { invalidArgument } from '@baton/core/adapter';
import { createQueue, queueArn } from './createQueue.ts';

/** The queues {@link createTimerQueue} made. */
export interface TimerQueueUrls {
  readonly queueUrl: string;
  readonly queueArn: string;
  readonly deadLetterQueueUrl: string;
}

/**
 * Creates the standard queue timers are armed on (`<name>-timers`, for `SqsTimerQueue` and the
 * relay) and its dead-letter queue (`<name>-timers-dlq`, after 10 failed relays). For tests,
 * the local emulators and scripts; deployments get it from the CDK construct.
 *
 * @example
 * const { queueUrl } = await createTimerQueue(sqs, 'bank');
 * const timers = new SqsTimerQueue({ client: sqs, queueUrl });
 */
export async function createTimerQueue(client: SQSClient, name: string): Promise<TimerQueueUrls> {
  if (!/^[A-Za-z0-9_-]{1,67}$/.test(name)) {
    throw invalidArgument(
      `invalid timer queue name: use 1–67 letters, digits, - or _ (the queues add "-timers-dlq"), got ${name}`,
    );
  }
  const deadLetterQueueUrl = await createQueue(client, `${name}-timers-dlq`, {});
  const queueUrl = await createQueue(client, `${name}-timers`, {
    RedrivePolicy: JSON.stringify({
      deadLetterTargetArn: await queueArn(client, deadLetterQueueUrl),
      maxReceiveCount: 10,
    }),
  });
  return { queueUrl, queueArn: await queueArn(client, queueUrl), deadLetterQueueUrl };
}
