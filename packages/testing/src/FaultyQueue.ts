import { BatonError, ErrorCode } from '@baton/core';
import type { Queue, QueueMessage } from '@baton/core/adapter';

/**
 * What a {@link FaultyQueue} did: to a send (`partialSend`, `reorder`), or to a receive
 * (`unorderedSeq`: a message came with a lower sequence number than one of another group before).
 */
export type QueueFault = 'partialSend' | 'reorder' | 'unorderedSeq';

/** Options of a {@link FaultyQueue}. */
export interface FaultyQueueOptions {
  /** Chance per send of two or more entries that one entry fails and the others go in. */
  readonly partialSend: number;
  /** Chance per send with entries for two or more groups that they go in another order. */
  readonly reorder: number;
  /**
   * Number received messages per message group, as all SQS promises: `SequenceNumber` increases
   * within a group, and says nothing of order across groups (high-throughput mode numbers each
   * partition apart). Off: the wrapped queue's numbers, one counter for the queue.
   */
  readonly seqPerGroup?: boolean;
  /** The dice: a number in [0, 1) per call. Seeded in a simulation, so a run replays. */
  readonly random: () => number;
  /** Told of every fault that changed a send or a receive. */
  readonly onFault?: (fault: QueueFault) => void;
}

/**
 * A {@link Queue} that treats each `send` as one SQS `SendMessageBatch` call and misbehaves the
 * way SQS may: it reports per entry, so an earlier entry can fail while a later one is accepted
 * (the call then throws UNAVAILABLE naming the failed entry, as the SQS adapter does); and it
 * orders entries of different message groups as it likes, keeping each group's own order.
 * With `seqPerGroup`, receives number each group's messages apart; acks and releases pass
 * through.
 *
 * @example
 * const queue = new FaultyQueue(backend.queue, { partialSend: 1, reorder: 0, random: Math.random });
 * await queue.send([a, b]).catch(() => {}); // one of a and b is in the queue, the other not
 */
export class FaultyQueue implements Queue {
  readonly #queue: Queue;
  readonly #options: FaultyQueueOptions;
  /** The highest sequence number received so far, and its group (`seqPerGroup`). */
  #top: { seq: bigint; group: string } | undefined;

  constructor(queue: Queue, options: FaultyQueueOptions) {
    this.#queue = queue;
    this.#options = options;
  }

  async send(messages: readonly QueueMessage[]): Promise<void> {
    const { random, onFault } = this.#options;
    let entries = messages;
    if (new Set(messages.map((m) => m.group)).size > 1 && random() < this.#options.reorder) {
      entries = interleave(messages, random);
      if (entries.some((m, i) => m !== messages[i])) onFault?.('reorder');
    }
    if (entries.length < 2 || !(random() < this.#options.partialSend)) {
      return this.#queue.send(entries);
    }
    // One entry fails; at least one later entry is accepted.
    const failed = entries[Math.floor(random() * (entries.length - 1))]!;
    await this.#queue.send(entries.filter((m) => m !== failed));
    onFault?.('partialSend');
    throw new BatonError(
      ErrorCode.UNAVAILABLE,
      `simulated SendMessageBatch: 1 of ${entries.length} messages failed (${failed.dedupeId}); the others were accepted`,
      { details: { service: 'SQS', operation: 'SendMessageBatch', failed: [failed.dedupeId] } },
    );
  }

  async receive(...args: Parameters<Queue['receive']>): ReturnType<Queue['receive']> {
    const received = await this.#queue.receive(...args);
    if (!this.#options.seqPerGroup) return received;
    return received.map((message) => {
      const seq = BigInt(message.seq) + groupOffset(message.group);
      if (this.#top && seq < this.#top.seq && message.group !== this.#top.group) {
        this.#options.onFault?.('unorderedSeq');
      }
      if (!this.#top || seq > this.#top.seq) this.#top = { seq, group: message.group };
      return { ...message, seq: String(seq) };
    });
  }

  /** The wrapped queue's own number of a message of `group` this queue handed out as `seq`. */
  queueSeq(group: string, seq: string): string {
    return this.#options.seqPerGroup ? String(BigInt(seq) - groupOffset(group)) : seq;
  }

  ack(receipts: readonly string[]): Promise<void> {
    return this.#queue.ack(receipts);
  }

  release(receipts: readonly string[], delayMs: number): Promise<void> {
    return this.#queue.release(receipts, delayMs);
  }

  /** The wrapped queue's identity (none if it has none). */
  get identity(): Queue['identity'] {
    const queue = this.#queue;
    return queue.identity && (() => queue.identity!());
  }
}

/**
 * A group's own band of sequence numbers: the queue's number plus a fixed offset by group (an
 * FNV-1a hash), so each group's numbers still increase, while a later message of one group may
 * carry a lower number than an earlier one of another.
 */
function groupOffset(group: string): bigint {
  let hash = 0x811c9dc5;
  for (let i = 0; i < group.length; i++) {
    hash ^= group.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return BigInt((hash >>> 0) % 100_000);
}

/** A random interleaving of `messages` that keeps the order within each group. */
function interleave(messages: readonly QueueMessage[], random: () => number): QueueMessage[] {
  const groups = new Map<string, QueueMessage[]>();
  for (const m of messages) groups.set(m.group, [...(groups.get(m.group) ?? []), m]);
  const queues = [...groups.values()];
  const out: QueueMessage[] = [];
  while (queues.length > 0) {
    const index = Math.floor(random() * queues.length);
    const next = queues[index]!;
    out.push(next.shift()!);
    if (next.length === 0) queues.splice(index, 1);
  }
  return out;
}
