import { randomUUID } from 'node:crypto';
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  type ReceiveMessageCommandOutput,
  SendMessageBatchCommand,
  type SendMessageBatchRequestEntry,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { BatonError, ErrorCode, MAX_MESSAGE_BYTES } from '@baton/core';
import type {
  Clock,
  Queue,
  QueueMessage,
  ReceivedMessage,
  ReceiveOptions,
  RedrivePolicy,
} from '@baton/core/adapter';
import { invalidArgument, systemClock } from '@baton/core/adapter';
import { awsErrorName, unavailable } from '../internal/unavailable.ts';
import { queueIdentity } from './queueIdentity.ts';
import { BATCH_MAX, prepareEntry, sendBatches } from './sendEntries.ts';
import { DEDUPE_ATTRIBUTE, GROUP_ATTRIBUTE } from './sqsIds.ts';
import { toReceivedMessage } from './toReceivedMessage.ts';

/** Options of an {@link SqsQueue}. */
export interface SqsQueueOptions {
  /** An SQS client, e.g. `createAwsClients().sqs`. */
  readonly client: SQSClient;
  /** The URL of a FIFO queue (its name ends in `.fifo`), e.g. from {@link createFifoQueue}. */
  readonly queueUrl: string;
  /**
   * Long polling: how long `receive` waits for a message when none is there (0–20 s). Use 20
   * in a poller, 0 in tests. @default 0
   */
  readonly waitTimeSeconds?: number;
  /**
   * The largest message, and the largest `SendMessageBatch`, in bytes (body and attributes).
   * @default MAX_MESSAGE_BYTES (SQS's 1 MiB)
   */
  readonly maxMessageBytes?: number;
  /** Times the cache of the queue's attributes ({@link SqsQueue.identity}). @default the system clock */
  readonly clock?: Clock;
}

/** What {@link SqsQueue} reads of the queue's attributes. */
interface QueueAttributes {
  readonly identity: string;
  readonly redrivePolicy?: RedrivePolicy;
}

/** SQS's longest visibility timeout: 12 hours. */
const MAX_VISIBILITY_SECONDS = 12 * 60 * 60;
/**
 * How long the queue's attributes (its identity, its redrive policy) are trusted once read. SQS
 * makes one wait 60 s after deleting a queue before creating one of the same name, so an
 * identity read before a deletion is always asked again before a message of the new queue can
 * be received: a warm worker never takes the new queue's messages for the old queue's.
 */
const ATTRIBUTES_TTL_MS = 30_000;
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
 * The {@link Queue} on an SQS FIFO queue. `group` becomes the MessageGroupId, `dedupeId` the
 * MessageDeduplicationId (either one hashed when it breaks SQS's id rule, the original kept in
 * a message attribute); `receive` maps SQS's SequenceNumber and ApproximateReceiveCount to `seq`
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
export class SqsQueue implements Queue {
  readonly queueUrl: string;
  readonly waitTimeSeconds: number;
  readonly maxMessageBytes: number;
  readonly #client: SQSClient;
  readonly #clock: Clock;
  #attributes: { readonly at: number; readonly read: Promise<QueueAttributes> } | undefined;

  constructor(options: SqsQueueOptions) {
    const wait = options.waitTimeSeconds ?? 0;
    const max = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
    const problems: string[] = [];
    if (!options.client) problems.push('client is required');
    if (typeof options.queueUrl !== 'string' || !options.queueUrl.endsWith('.fifo')) {
      problems.push(
        `queueUrl must be the URL of a FIFO queue (ending in .fifo), got ${String(options.queueUrl)}`,
      );
    }
    if (!Number.isInteger(wait) || wait < 0 || wait > 20) {
      problems.push(`waitTimeSeconds must be an integer from 0 to 20, got ${wait}`);
    }
    if (!Number.isInteger(max) || max < 1) {
      problems.push(`maxMessageBytes must be an integer ≥ 1, got ${max}`);
    }
    if (problems.length > 0) {
      throw invalidArgument(`invalid SqsQueue options: ${problems.join('; ')}`);
    }
    this.#client = options.client;
    this.#clock = options.clock ?? systemClock;
    this.queueUrl = options.queueUrl;
    this.waitTimeSeconds = wait;
    this.maxMessageBytes = max;
  }

  /**
   * Enqueues in order, in `SendMessageBatch` calls of up to 10 messages (and at most
   * `maxMessageBytes` together); a single message in one `SendMessage`. Every message is
   * checked before the first call; after a call with a failed entry no later call is made, so a
   * retry of the whole send keeps the order (SQS drops the copies of the messages that did go
   * out by their dedupe ids).
   */
  async send(messages: readonly QueueMessage[]): Promise<void> {
    const prepared = messages.map((message, i) => prepareEntry(message, i, this.maxMessageBytes));
    // One message (a turn's usual send): `SendMessage`, cheaper for the SDK than a batch of one.
    if (prepared.length === 1) return this.#sendOne(prepared[0]!.entry);
    for (const chunk of sendBatches(prepared, this.maxMessageBytes)) {
      let failed: { Id?: string; Code?: string; Message?: string; SenderFault?: boolean }[];
      try {
        const result = await this.#client.send(
          new SendMessageBatchCommand({
            QueueUrl: this.queueUrl,
            Entries: chunk.map((p) => p.entry),
          }),
        );
        failed = result.Failed ?? [];
      } catch (error) {
        throw unavailable('SQS', 'SendMessageBatch', error);
      }
      if (failed.length > 0) {
        const first = failed[0]!;
        throw new BatonError(
          ErrorCode.UNAVAILABLE,
          `SQS SendMessageBatch failed for ${failed.length} of ${chunk.length} messages (first: ${first.Code}: ${first.Message}); later messages were not sent`,
          {
            details: {
              service: 'SQS',
              operation: 'SendMessageBatch',
              failed: failed.map((f) => ({
                dedupeId: messages[Number(f.Id)]?.dedupeId,
                code: f.Code,
                message: f.Message,
                senderFault: f.SenderFault,
              })),
            },
            internal: true,
          },
        );
      }
    }
  }

  async #sendOne(entry: SendMessageBatchRequestEntry): Promise<void> {
    // The batch entry's fields, in the same order, but its `Id`.
    const { Id: _, ...message } = entry;
    try {
      await this.#client.send(new SendMessageCommand({ QueueUrl: this.queueUrl, ...message }));
    } catch (error) {
      throw unavailable('SQS', 'SendMessage', error);
    }
  }

  async receive(options: ReceiveOptions): Promise<ReceivedMessage[]> {
    const max = Math.min(BATCH_MAX, Math.max(1, Math.floor(options.max)));
    let result: ReceiveMessageCommandOutput;
    try {
      result = await this.#client.send(
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
      this.#client.send(new DeleteMessageBatchCommand({ QueueUrl, Entries })),
    );
  }

  async #ackOne(ReceiptHandle: string): Promise<void> {
    try {
      await this.#client.send(new DeleteMessageCommand({ QueueUrl: this.queueUrl, ReceiptHandle }));
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
      this.#client.send(
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
      const result = await this.#client.send(
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

  /**
   * The queue's URL, creation time and throughput mode, digested ({@link queueIdentity}): a queue
   * deleted and created again under the same name (same URL) has another, and so has one
   * switched to or from high-throughput mode. Asked of SQS at most every 30 s, less than the 60 s SQS
   * makes one wait before creating a deleted queue's name again.
   *
   * @example
   * await queue.identity(); // 'q1w2e3r4t5y6u7i8'
   */
  async identity(): Promise<string> {
    return (await this.#readAttributes()).identity;
  }

  /**
   * The queue's own dead-lettering, from its `RedrivePolicy` (`maxReceiveCount`); `undefined`
   * without one. A worker checks it against its `maxAttempts`.
   *
   * @example
   * await queue.redrivePolicy(); // { maxReceives: 5 }
   */
  async redrivePolicy(): Promise<RedrivePolicy | undefined> {
    return (await this.#readAttributes()).redrivePolicy;
  }

  #readAttributes(): Promise<QueueAttributes> {
    const now = this.#clock.now();
    if (this.#attributes && now - this.#attributes.at < ATTRIBUTES_TTL_MS) {
      return this.#attributes.read;
    }
    const read = this.#askAttributes();
    const cached = { at: now, read };
    this.#attributes = cached;
    read.catch(() => {
      if (this.#attributes === cached) this.#attributes = undefined; // asked again next time
    });
    return read;
  }

  async #askAttributes(): Promise<QueueAttributes> {
    let attributes: Record<string, string> | undefined;
    try {
      const result = await this.#client.send(
        new GetQueueAttributesCommand({
          QueueUrl: this.queueUrl,
          AttributeNames: ['CreatedTimestamp', 'RedrivePolicy', 'FifoThroughputLimit'],
        }),
      );
      attributes = result.Attributes;
    } catch (error) {
      throw unavailable('SQS', 'GetQueueAttributes', error);
    }
    const identity = queueIdentity(this.queueUrl, attributes);
    const policy = attributes?.RedrivePolicy;
    if (!policy) return { identity };
    const maxReceives = Number(
      (JSON.parse(policy) as { maxReceiveCount?: unknown }).maxReceiveCount,
    );
    return Number.isFinite(maxReceives)
      ? { identity, redrivePolicy: { maxReceives } }
      : { identity };
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
