import type { SendMessageBatchRequestEntry, SQSClient } from '@aws-sdk/client-sqs';
import { BatonError, ErrorCode, MAX_MESSAGE_BYTES } from '@baton/core';
import type { Clock, QueueMessage, RedrivePolicy, TurnQueue } from '@baton/core/adapter';
import { checkCount, refuseOptions, systemClock } from '@baton/core/adapter';
import { unavailable } from '../internal/unavailable.ts';
import { GetQueueAttributesCommand, SendMessageBatchCommand, SendMessageCommand } from '../sdk.ts';
import { queueIdentity } from './queueIdentity.ts';
import { releaseReceipts } from './receipts.ts';
import { prepareEntry, sendBatches } from './sendEntries.ts';

/** Options of an {@link SqsTurnQueue}: those of an `SqsQueue` but its receive's. */
export interface SqsTurnQueueOptions {
  /** An SQS client, e.g. `createAwsClients().sqs`. */
  readonly client: SQSClient;
  /** The URL of a FIFO queue (its name ends in `.fifo`), e.g. from {@link createFifoQueue}. */
  readonly queueUrl: string;
  /**
   * The largest message, and the largest `SendMessageBatch`, in bytes (body and attributes).
   * @default MAX_MESSAGE_BYTES (SQS's 1 MiB)
   */
  readonly maxMessageBytes?: number;
  /** Times the cache of the queue's attributes (`SqsQueue.identity`). @default the system clock */
  readonly clock?: Clock;
}

/** Options of an `SqsQueue`. */
export interface SqsQueueOptions extends SqsTurnQueueOptions {
  /**
   * Long polling: how long `receive` waits for a message when none is there (0–20 s). Use 20
   * in a poller, 0 in tests. @default 0
   */
  readonly waitTimeSeconds?: number;
}

/** What {@link SqsTurnQueue} reads of the queue's attributes. */
interface QueueAttributes {
  readonly identity: string;
  readonly redrivePolicy?: RedrivePolicy;
}

/**
 * How long the queue's attributes (its identity, its redrive policy) are trusted once read. SQS
 * makes one wait 60 s after deleting a queue before creating one of the same name, so an
 * identity read before a deletion is always asked again before a message of the new queue can
 * be received: a warm worker never takes the new queue's messages for the old queue's.
 */
const ATTRIBUTES_TTL_MS = 30_000;

/**
 * The part of `SqsQueue` a worker's turns use ({@link TurnQueue}): sends, and the queue's
 * identity and redrive policy. What a worker Lambda constructs (its host receives and acks the
 * messages), so that its bundle holds no code of receiving, acking or releasing. Same options,
 * same behaviour.
 *
 * @example
 * const { sqs } = createAwsClients();
 * const queue = new SqsTurnQueue({ client: sqs, queueUrl: process.env.INBOX_URL! });
 * export const handler = workerHandler({ actors: [Account], store, queue });
 */
export class SqsTurnQueue implements TurnQueue {
  readonly queueUrl: string;
  readonly maxMessageBytes: number;
  /** The SQS client, for the turns' calls and for `SqsQueue`'s others. */
  protected readonly client: SQSClient;
  readonly #clock: Clock;
  #attributes: { readonly at: number; readonly read: Promise<QueueAttributes> } | undefined;

  /** `problems`: those a subclass found in its own options, refused with these. */
  constructor(options: SqsTurnQueueOptions, problems: string[] = []) {
    const max = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
    if (!options.client) problems.push('client is required');
    if (typeof options.queueUrl !== 'string' || !options.queueUrl.endsWith('.fifo')) {
      problems.push(
        `queueUrl must be the URL of a FIFO queue (ending in .fifo), got ${String(options.queueUrl)}`,
      );
    }
    checkCount(problems, 'maxMessageBytes', max);
    refuseOptions('SqsQueue', problems);
    this.client = options.client;
    this.#clock = options.clock ?? systemClock;
    this.queueUrl = options.queueUrl;
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
        const result = await this.client.send(
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
      await this.client.send(new SendMessageCommand({ QueueUrl: this.queueUrl, ...message }));
    } catch (error) {
      throw unavailable('SQS', 'SendMessage', error);
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
  /**
   * Makes messages visible again after `delayMs` (rounded up to seconds, at most 12 h): the
   * worker Lambda releases the records its turns failed, so they come back after their retry
   * delay rather than the visibility timeout. A stale receipt is ignored. A message SQS refuses
   * to hide past 12 hours from its receive is left as it was (back when its visibility timeout
   * runs out, nothing deleted), and the release throws INVALID_ARGUMENT.
   */
  async release(receipts: readonly string[], delayMs: number): Promise<void> {
    await releaseReceipts(this.client, this.queueUrl, receipts, delayMs);
  }

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
      const result = await this.client.send(
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
