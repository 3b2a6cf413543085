import { randomUUID } from 'node:crypto';
import {
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  type ReceiveMessageCommandOutput,
} from '@aws-sdk/client-sqs';
import { MAX_RECEIVE_MESSAGES, MAX_VISIBILITY_TIMEOUT_MS } from '@baton/core';
import type { Queue, ReceivedMessage, ReceiveOptions } from '@baton/core/adapter';
import { invalidArgument } from '@baton/core/adapter';
import { awsErrorName, unavailable } from '../internal/unavailable.ts';
import { isStale, perReceipt, toSeconds } from './receipts.ts';
import { type SqsQueueOptions, SqsTurnQueue } from './SqsTurnQueue.ts';
import { DEDUPE_ATTRIBUTE, GROUP_ATTRIBUTE } from './sqsIds.ts';
import { toReceivedMessage } from './toReceivedMessage.ts';

/**
 * The {@link Queue} on an SQS FIFO queue: its turns' part ({@link SqsTurnQueue}: sends, the
 * identity and redrive policy), and receiving, acking and releasing. `group` becomes the
 * MessageGroupId, `dedupeId` the MessageDeduplicationId (either one hashed when it breaks SQS's
 * id rule, the original kept in a message attribute); `receive` maps SQS's SequenceNumber and ApproximateReceiveCount to `seq`
 * (plus one: ElasticMQ counts from 0, the offset an actor starts from) and `receiveCount`.
 * Sends go out in order in batches of 10; acks and releases ignore stale receipts. Failures
 * come back as retryable UNAVAILABLE errors, an oversized message as a terminal
 * MESSAGE_TOO_LARGE.
 *
 * @example
 * const { sqs } = createAwsClients();
 * const queue = new SqsQueue({ client: sqs, queueUrl: process.env.INBOX_URL!, waitTimeSeconds: 20 });
 * const worker = new Worker({ actors: [Account], store, queue });
 * while (running) await worker.poll();
 */
export class SqsQueue extends SqsTurnQueue implements Queue {
  readonly waitTimeSeconds: number;

  constructor(options: SqsQueueOptions) {
    const wait = options.waitTimeSeconds ?? 0;
    const valid = Number.isInteger(wait) && wait >= 0 && wait <= 20;
    super(options, valid ? [] : [`waitTimeSeconds must be an integer from 0 to 20, got ${wait}`]);
    this.waitTimeSeconds = wait;
  }

  /**
   * Up to `max` messages, hidden for `visibilityTimeoutMs`. A `max` that is not an integer from
   * 1 to `MAX_RECEIVE_MESSAGES` (10), or a `visibilityTimeoutMs` over `MAX_VISIBILITY_TIMEOUT_MS`
   * (12 hours), is refused with INVALID_ARGUMENT before SQS is asked: SQS refuses it (ElasticMQ
   * takes the longer timeout), and every receive would fail as if SQS were down.
   */
  async receive(options: ReceiveOptions): Promise<ReceivedMessage[]> {
    const { max } = options;
    if (!Number.isInteger(max) || max < 1 || max > MAX_RECEIVE_MESSAGES) {
      throw invalidArgument(
        `a receive's max must be an integer from 1 to ${MAX_RECEIVE_MESSAGES} (SQS's most messages a receive), got ${max}`,
      );
    }
    if (options.visibilityTimeoutMs > MAX_VISIBILITY_TIMEOUT_MS) {
      throw invalidArgument(
        `a receive's visibilityTimeoutMs must be at most ${MAX_VISIBILITY_TIMEOUT_MS} ms (SQS's longest visibility timeout, 12 hours), got ${options.visibilityTimeoutMs}`,
      );
    }
    let result: ReceiveMessageCommandOutput;
    try {
      result = await this.client.send(
        new ReceiveMessageCommand({
          QueueUrl: this.queueUrl,
          MaxNumberOfMessages: max,
          VisibilityTimeout: toSeconds(options.visibilityTimeoutMs),
          WaitTimeSeconds: this.waitTimeSeconds,
          MessageSystemAttributeNames: [
            'SequenceNumber',
            'ApproximateReceiveCount',
            'MessageGroupId',
            'MessageDeduplicationId',
          ],
          MessageAttributeNames: [GROUP_ATTRIBUTE, DEDUPE_ATTRIBUTE],
          // A retried receive (lost answer) returns the same messages instead of hiding them.
          ReceiveRequestAttemptId: randomUUID(),
        }),
      );
    } catch (error) {
      throw unavailable('SQS', 'ReceiveMessage', error);
    }
    return (result.Messages ?? []).map((m) =>
      toReceivedMessage({
        body: m.Body ?? '',
        receipt: m.ReceiptHandle ?? '',
        sequenceNumber: m.Attributes?.SequenceNumber,
        messageGroupId: m.Attributes?.MessageGroupId,
        messageDeduplicationId: m.Attributes?.MessageDeduplicationId,
        approximateReceiveCount: m.Attributes?.ApproximateReceiveCount,
        attribute: (name) => m.MessageAttributes?.[name]?.StringValue,
      }),
    );
  }

  /**
   * Deletes messages (`DeleteMessageBatch`; one receipt: `DeleteMessage`); a stale receipt (the
   * message came back or is gone) is ignored.
   */
  async ack(receipts: readonly string[]): Promise<void> {
    const unique = [...new Set(receipts)];
    // One receipt (a turn's usual batch): `DeleteMessage`, cheaper for the SDK than a batch of one.
    if (unique.length === 1) return this.#ackOne(unique[0]!);
    await perReceipt(this.queueUrl, 'DeleteMessageBatch', unique, (QueueUrl, Entries) =>
      this.client.send(new DeleteMessageBatchCommand({ QueueUrl, Entries })),
    );
  }

  async #ackOne(ReceiptHandle: string): Promise<void> {
    try {
      await this.client.send(new DeleteMessageCommand({ QueueUrl: this.queueUrl, ReceiptHandle }));
    } catch (error) {
      if (isStale(awsErrorName(error), error instanceof Error ? error.message : undefined)) return;
      throw unavailable('SQS', 'DeleteMessage', error);
    }
  }

  /**
   * SQS's approximate counts (exact on ElasticMQ): messages visible and in flight. For tests
   * and tools.
   *
   * @example
   * expect(await queue.approximateCounts()).toEqual({ visible: 0, inFlight: 0 });
   */
  async approximateCounts(): Promise<{ visible: number; inFlight: number }> {
    try {
      const result = await this.client.send(
        new GetQueueAttributesCommand({
          QueueUrl: this.queueUrl,
          AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
        }),
      );
      return {
        visible: Number(result.Attributes?.ApproximateNumberOfMessages ?? 0),
        inFlight: Number(result.Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0),
      };
    } catch (error) {
      throw unavailable('SQS', 'GetQueueAttributes', error);
    }
  }
}
