import { randomUUID } from 'node:crypto';
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  type ReceiveMessageCommandOutput,
} from '@aws-sdk/client-sqs';
import { BatonError, ErrorCode } from '@baton/core';
import type { Queue, ReceivedMessage, ReceiveOptions } from '@baton/core/adapter';
import { invalidArgument } from '@baton/core/adapter';
import { awsErrorName, unavailable } from '../internal/unavailable.ts';
import { SqsTurnQueue } from './SqsTurnQueue.ts';
import { BATCH_MAX } from './sendEntries.ts';
import { DEDUPE_ATTRIBUTE, GROUP_ATTRIBUTE } from './sqsIds.ts';
import { toReceivedMessage } from './toReceivedMessage.ts';

/** SQS's longest visibility timeout: 12 hours. */
const MAX_VISIBILITY_SECONDS = 12 * 60 * 60;

/** Per-entry failures that mean the receipt is stale: the message was redelivered or deleted. */
const STALE_RECEIPT = new Set(['ReceiptHandleIsInvalid', 'MessageNotInflight']);

/** Whether SQS refused a receipt as stale (a batch entry's failure, or a single call's error). */
function isStale(code: string | undefined, message: string | undefined): boolean {
  return (
    STALE_RECEIPT.has(code ?? '') ||
    (code === 'InvalidParameterValue' && /receipt handle/i.test(message ?? ''))
  );
}

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
  async receive(options: ReceiveOptions): Promise<ReceivedMessage[]> {
    const max = Math.min(BATCH_MAX, Math.max(1, Math.floor(options.max)));
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
    await this.#perReceipt('DeleteMessageBatch', unique, (QueueUrl, Entries) =>
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

  /** Makes messages visible again after `delayMs` (rounded up to seconds, at most 12 h). */
  async release(receipts: readonly string[], delayMs: number): Promise<void> {
    const VisibilityTimeout = Math.min(MAX_VISIBILITY_SECONDS, toSeconds(delayMs));
    const unique = [...new Set(receipts)];
    await this.#perReceipt('ChangeMessageVisibilityBatch', unique, (QueueUrl, entries) =>
      this.client.send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl,
          Entries: entries.map((entry) => ({ ...entry, VisibilityTimeout })),
        }),
      ),
    );
  }

  /**
   * Calls `operation` on `receipts`, {@link BATCH_MAX} a call; a stale receipt (the message came
   * back or is gone) is no failure.
   */
  async #perReceipt(
    operation: string,
    receipts: readonly string[],
    call: (
      queueUrl: string,
      entries: { Id: string; ReceiptHandle: string }[],
    ) => Promise<{ Failed?: { Code?: string; Message?: string }[] }>,
  ): Promise<void> {
    for (let i = 0; i < receipts.length; i += BATCH_MAX) {
      const chunk = receipts.slice(i, i + BATCH_MAX);
      let failed: { Code?: string; Message?: string }[];
      try {
        const entries = chunk.map((ReceiptHandle, n) => ({ Id: String(n), ReceiptHandle }));
        failed = (await call(this.queueUrl, entries)).Failed ?? [];
      } catch (error) {
        throw unavailable('SQS', operation, error);
      }
      throwUnlessStale(operation, failed);
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

/** Milliseconds as whole seconds, rounded up. */
function toSeconds(ms: number): number {
  if (!Number.isFinite(ms) || ms < 0) {
    throw invalidArgument(`a duration must be a finite number of milliseconds ≥ 0, got ${ms}`);
  }
  return Math.ceil(ms / 1000);
}

function throwUnlessStale(
  operation: string,
  failed: readonly { Code?: string; Message?: string }[],
) {
  const real = failed.filter((f) => !isStale(f.Code, f.Message));
  if (real.length > 0) {
    const first = real[0]!;
    throw new BatonError(
      ErrorCode.UNAVAILABLE,
      `SQS ${operation} failed for ${real.length} receipts (first: ${first.Code}: ${first.Message})`,
      { details: { service: 'SQS', operation, failed: real }, internal: true },
    );
  }
}
