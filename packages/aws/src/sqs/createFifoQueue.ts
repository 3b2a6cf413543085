import type { SQSClient } from '@aws-sdk/client-sqs';
import { invalidArgument } from '@baton/core/adapter';
import { createQueue, queueArn } from './createQueue.ts';

/** Options of {@link createFifoQueue}. */
export interface FifoQueueOptions {
  /** Receives before a message moves to the dead-letter queue. @default 5 */
  readonly maxReceives?: number;
  /** The queue's default visibility timeout (rounded up to seconds). @default 30 s */
  readonly visibilityTimeoutMs?: number;
  /** How long messages are kept, in seconds (both queues). @default 1_209_600 (14 days, SQS's most) */
  readonly retentionSeconds?: number;
}

/** The queues {@link createFifoQueue} made. */
export interface FifoQueue {
  readonly queueUrl: string;
  readonly queueArn: string;
  readonly deadLetterQueueUrl: string;
  readonly deadLetterQueueArn: string;
}

/**
 * Creates a FIFO queue `<name>.fifo` and its dead-letter queue `<name>-dlq.fifo`, with a
 * redrive policy that moves a message there after `maxReceives` receives, each taking SQS's
 * largest message. Safe to call again with the same options: queues an earlier version made
 * are taken as they are (given SQS's largest message); queues that exist with other options
 * are refused, never changed. For production queues prefer infrastructure as code (the
 * CDK construct); this serves tests, the local emulators and scripts.
 *
 * @example
 * const { sqs } = createAwsClients({ sqsEndpoint: 'http://127.0.0.1:9324' });
 * const { queueUrl } = await createFifoQueue(sqs, 'inbox', { maxReceives: 5 });
 * const queue = new SqsQueue({ client: sqs, queueUrl });
 */
export async function createFifoQueue(
  client: SQSClient,
  name: string,
  options: FifoQueueOptions = {},
): Promise<FifoQueue> {
  const base = name.endsWith('.fifo') ? name.slice(0, -'.fifo'.length) : name;
  const maxReceives = options.maxReceives ?? 5;
  const visibility = Math.ceil((options.visibilityTimeoutMs ?? 30_000) / 1000);
  const retention = options.retentionSeconds ?? 1_209_600;
  const problems: string[] = [];
  if (!/^[A-Za-z0-9_-]{1,71}$/.test(base)) {
    problems.push(
      `name must be 1–71 letters, digits, - or _ (the dead-letter queue adds "-dlq.fifo"), got ${name}`,
    );
  }
  if (!Number.isInteger(maxReceives) || maxReceives < 1 || maxReceives > 1000) {
    problems.push(`maxReceives must be an integer from 1 to 1000, got ${maxReceives}`);
  }
  if (!Number.isFinite(visibility) || visibility < 0 || visibility > 43_200) {
    problems.push(
      `visibilityTimeoutMs must be from 0 to 12 hours, got ${options.visibilityTimeoutMs}`,
    );
  }
  if (!Number.isInteger(retention) || retention < 60 || retention > 1_209_600) {
    problems.push(`retentionSeconds must be an integer from 60 to 1209600, got ${retention}`);
  }
  if (problems.length > 0)
    throw invalidArgument(`invalid FIFO queue options: ${problems.join('; ')}`);

  const fifo = { FifoQueue: 'true', MessageRetentionPeriod: String(retention) };
  const deadLetterQueueUrl = await createQueue(client, `${base}-dlq.fifo`, fifo);
  const deadLetterQueueArn = await queueArn(client, deadLetterQueueUrl);
  const queueUrl = await createQueue(client, `${base}.fifo`, {
    ...fifo,
    VisibilityTimeout: String(visibility),
    RedrivePolicy: JSON.stringify({
      deadLetterTargetArn: deadLetterQueueArn,
      maxReceiveCount: maxReceives,
    }),
  });
  return {
    queueUrl,
    queueArn: await queueArn(client, queueUrl),
    deadLetterQueueUrl,
    deadLetterQueueArn,
  };
}
