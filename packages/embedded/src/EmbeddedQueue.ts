import {
  BatonError,
  ErrorCode,
  MAX_MESSAGE_BYTES,
  MAX_RECEIVE_MESSAGES,
  MAX_VISIBILITY_TIMEOUT_MS,
} from '@baton/core';
import type {
  Clock,
  Queue,
  QueueMessage,
  ReceivedMessage,
  ReceiveOptions,
  RedrivePolicy,
} from '@baton/core/adapter';
import { invalidArgument, systemClock } from '@baton/core/adapter';
import {
  checkDuration,
  checkInteger,
  checkReceiveMax,
  checkRetention,
  checkVisibility,
  MAX_RETENTION_MS,
} from './checkOptions.ts';
import type { EmbeddedQueueOptions } from './EmbeddedQueueOptions.ts';
import type { Journal, JournalEntry } from './Journal.ts';
import {
  type DeadLetter,
  ownsQueueEntry,
  type QueueEntry,
  QueueState,
  toLetter,
} from './QueueState.ts';
import { checkMessage, checkMessageSize } from './queueMessageChecks.ts';
import type { StoredMessage } from './StoredMessage.ts';

export type { EmbeddedQueueOptions } from './EmbeddedQueueOptions.ts';

/** Counts for tests and tools; none counts a message or dead letter past the retention. */
export interface QueueCounts {
  /** Messages in the queue: `visible + inFlight`. Dead letters are not counted here. */
  readonly total: number;
  /** Messages visible now (some may wait behind a message in flight in their group). */
  readonly visible: number;
  /** Visible messages whose group has nothing in flight: what a receive can return now. */
  readonly receivable: number;
  /** Messages not visible now: received and not yet timed out, or released with a delay. */
  readonly inFlight: number;
  /** Messages in the dead-letter queue. */
  readonly deadLetters: number;
}

let instances = 0;

/**
 * The in-process {@link Queue} with SQS FIFO semantics: message groups handed out in order,
 * one receiver per group at a time (a received, unacknowledged message blocks its group until
 * it is acked or its visibility timeout passes); redelivery with a new receipt and
 * `receiveCount + 1`; a dedupe window on `dedupeId`; increasing sequence numbers; a
 * dead-letter queue after `maxReceives` receives; a message, and a dead letter, dropped at the
 * retention (`retentionMs`, 14 days). With a journal, messages, dead letters,
 * dedupe ids and the sequence counter survive a restart; delivery state does not — after a
 * restart every unacknowledged message is visible again and its `receiveCount` starts over.
 *
 * @example
 * const queue = new EmbeddedQueue();
 * await queue.send([{ group: 'counter/a', dedupeId: 'm1', body: 'hello' }]);
 * const [message] = await queue.receive({ max: 10, visibilityTimeoutMs: 30_000 });
 * await queue.ack([message!.receipt]);
 */
export class EmbeddedQueue implements Queue {
  readonly name: string;
  /** Present when the options give an identity. */
  readonly identity?: () => Promise<string>;
  readonly visibilityTimeoutMs: number;
  readonly maxReceives: number;
  readonly dedupeWindowMs: number;
  readonly retentionMs: number;
  readonly maxMessageBytes: number;
  readonly #clock: Clock;
  readonly #journal: Journal | undefined;
  readonly #state = new QueueState();
  readonly #listeners = new Set<() => void>();
  /** Starts every receipt: tells this queue's receipts from those of other instances. */
  readonly #receiptPrefix = `${++instances}.`;
  #deliveries = 0;
  #closed = false;

  constructor(options: EmbeddedQueueOptions = {}) {
    checkVisibility('queue.visibilityTimeoutMs', options.visibilityTimeoutMs);
    checkInteger('queue.maxReceives', options.maxReceives, 1);
    checkDuration('queue.dedupeWindowMs', options.dedupeWindowMs);
    checkRetention('queue.retentionMs', options.retentionMs);
    checkInteger('queue.maxMessageBytes', options.maxMessageBytes, 1);
    if (options.name !== undefined && (typeof options.name !== 'string' || options.name === '')) {
      throw invalidArgument('queue name must be a non-empty string');
    }
    this.name = options.name ?? 'inbox';
    const { identity } = options;
    if (identity !== undefined) this.identity = async () => identity;
    this.visibilityTimeoutMs = options.visibilityTimeoutMs ?? 30_000;
    this.maxReceives = options.maxReceives ?? 5;
    this.dedupeWindowMs = options.dedupeWindowMs ?? 5 * 60_000;
    this.retentionMs = options.retentionMs ?? MAX_RETENTION_MS;
    this.maxMessageBytes = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
    this.#clock = options.clock ?? systemClock;
    this.#journal = options.journal;
    for (const entry of this.#journal?.replay() ?? []) {
      if (ownsQueueEntry(entry, this.name)) this.#state.apply(entry as unknown as QueueEntry);
    }
  }

  /**
   * Its own dead-lettering: after `maxReceives` receives (a worker checks it against its
   * `maxAttempts`).
   *
   * @example
   * await new EmbeddedQueue({ maxReceives: 5 }).redrivePolicy(); // { maxReceives: 5 }
   */
  async redrivePolicy(): Promise<RedrivePolicy> {
    return { maxReceives: this.maxReceives };
  }

  /**
   * Enqueues in order; each accepted message gets the next sequence number. A message whose
   * `dedupeId` was accepted within the dedupe window (or earlier in this batch) is dropped.
   * A message over `maxMessageBytes` as SQS counts it (`queueMessageBytes`) fails the whole send with a terminal MESSAGE_TOO_LARGE
   * before anything is enqueued, as on SQS.
   */
  async send(messages: readonly QueueMessage[]): Promise<void> {
    this.#checkOpen();
    for (const m of messages) checkMessage(m);
    for (const m of messages) checkMessageSize(m, this.maxMessageBytes);
    const now = this.#clock.now();
    const cutoff = now - this.dedupeWindowMs;
    this.#state.forgetDedupe(cutoff);
    // Ids accepted earlier in this batch; a batch of one (the usual send) needs none.
    const seen = messages.length > 1 ? new Set<string>() : undefined;
    const msgs = [];
    for (const { group, dedupeId, body } of messages) {
      const at = this.#state.dedupe.get(dedupeId);
      if ((at !== undefined && at > cutoff) || seen?.has(dedupeId)) continue;
      seen?.add(dedupeId);
      msgs.push({ n: this.#state.lastSeq + msgs.length + 1, group, dedupeId, body });
    }
    if (msgs.length === 0) return;
    this.#write({ t: 'queue.send', q: this.name, at: now, msgs });
    this.#notify();
  }

  /**
   * Up to `max` (default and most: `MAX_RECEIVE_MESSAGES`, SQS's 10) messages. Groups are served oldest head first and round-robin, and
   * a group with a message in flight is skipped; within a group, messages come in order.
   * A message due for its `maxReceives + 1`-th receive moves to the dead-letter queue instead;
   * one sent `retentionMs` ago or longer is dropped, as SQS drops it (see {@link counts}).
   * A `max` over `MAX_RECEIVE_MESSAGES`, or a `visibilityTimeoutMs` over
   * `MAX_VISIBILITY_TIMEOUT_MS` (12 hours), is refused with INVALID_ARGUMENT, as SQS refuses it.
   */
  async receive(options: Partial<ReceiveOptions> = {}): Promise<ReceivedMessage[]> {
    this.#checkOpen();
    const max = options.max ?? MAX_RECEIVE_MESSAGES;
    const visibilityTimeoutMs = options.visibilityTimeoutMs ?? this.visibilityTimeoutMs;
    checkReceiveMax('receive max', max);
    checkVisibility('receive visibilityTimeoutMs', visibilityTimeoutMs);
    const now = this.#clock.now();
    this.#expire(now);
    const limits = { maxReceives: this.maxReceives, sentBy: now - this.retentionMs };
    const { picks, dead, expired, taken } = this.#state.plan(now, max, limits);
    try {
      if (expired.length > 0) {
        this.#write({ t: 'queue.expire', q: this.name, seqs: expired.map((m) => m.n) });
      }
      if (dead.length > 0) {
        const letters = dead.map((m) => toLetter(m, now));
        this.#write({ t: 'queue.dead', q: this.name, letters });
      }
      const received = picks.map((m) => {
        // `instance.seq.delivery`: unique, and leads back to the message (see #delivered).
        m.receipt = `${this.#receiptPrefix}${m.n}.${++this.#deliveries}`;
        m.receiveCount++;
        m.receivedAt = now;
        const { group, dedupeId, body, receipt, receiveCount } = m;
        return { group, dedupeId, body, receipt, receiveCount, seq: String(m.n) };
      });
      this.#state.markVisibleAt(picks, now + visibilityTimeoutMs);
      return received;
    } finally {
      // Files the picks' groups too; also when the journal refused the dead letters.
      this.#state.refile(taken);
    }
  }

  /** Deletes messages by their latest receipt; unknown or stale receipts are ignored. */
  async ack(receipts: readonly string[]): Promise<void> {
    this.#checkOpen();
    const seqs = new Set<number>();
    for (const receipt of receipts) {
      const message = this.#delivered(receipt);
      if (message) seqs.add(message.n);
    }
    if (seqs.size === 0) return;
    this.#write({ t: 'queue.ack', q: this.name, seqs: [...seqs] });
    this.#notify();
  }

  /**
   * Makes messages visible again at now + `delayMs`, at most `MAX_VISIBILITY_TIMEOUT_MS` (12
   * hours) from now, as the SQS adapter asks; stale receipts are ignored. A release past 12
   * hours from the receive that handed out a receipt is refused whole with INVALID_ARGUMENT, as
   * SQS refuses it (a Worker releases for no longer: `releaseReach`).
   */
  async release(receipts: readonly string[], delayMs: number): Promise<void> {
    this.#checkOpen();
    checkDuration('release delayMs', delayMs);
    const now = this.#clock.now();
    const visibleAt = now + Math.min(delayMs, MAX_VISIBILITY_TIMEOUT_MS);
    const released: StoredMessage[] = [];
    for (const receipt of receipts) {
      const message = this.#delivered(receipt);
      if (message) released.push(message);
    }
    const late = released.find((m) => visibleAt > m.receivedAt + MAX_VISIBILITY_TIMEOUT_MS);
    if (late) {
      const left = late.receivedAt + MAX_VISIBILITY_TIMEOUT_MS - now;
      throw invalidArgument(
        `a release may hide a message at most ${MAX_VISIBILITY_TIMEOUT_MS} ms (SQS's 12 hours) from the receive that handed it out, as SQS counts it; message ${late.dedupeId} has ${left} ms of them left, got delayMs ${delayMs}: release it for at most that; nothing was released`,
        { option: 'delayMs', value: delayMs },
      );
    }
    this.#state.setVisibleAt(released, visibleAt);
    this.#notify();
  }

  /**
   * Calls `listener` after every send, ack, release, redrive and drop of messages past the
   * retention: a host loop can then call `receive` or re-read {@link nextVisibleAt} instead of
   * polling. Returns unsubscribe.
   */
  onAvailable(listener: () => void): () => void {
    const entry = () => listener();
    this.#listeners.add(entry);
    return () => {
      this.#listeners.delete(entry);
    };
  }

  /** `now` if a message is receivable, else when the next one will be; undefined if empty. */
  nextVisibleAt(): number | undefined {
    const now = this.#clock.now();
    this.#expire(now);
    return this.#state.nextVisibleAt(now);
  }

  /**
   * What the queue holds now, as SQS's approximate counts would show it: a message or dead
   * letter past the retention is dropped first (as a receive drops it), in the time it takes to
   * drop those, so it is never counted — whether or not a receive reached its group.
   */
  counts(): QueueCounts {
    const now = this.#clock.now();
    this.#expire(now);
    const { inFlight, blocked } = this.#state.inFlight(now);
    const total = this.#state.bySeq.size;
    return {
      total,
      visible: total - inFlight,
      receivable: total - blocked,
      inFlight,
      deadLetters: this.#state.dead.size,
    };
  }

  /**
   * The messages in the queue, in sequence order (copies, without receipts); those past the
   * retention are dropped first.
   */
  messages(): Omit<ReceivedMessage, 'receipt'>[] {
    this.#expire(this.#clock.now());
    return [...this.#state.bySeq.values()]
      .sort((a, b) => a.n - b.n)
      .map(({ n, group, dedupeId, body, receiveCount }) => {
        return { seq: String(n), group, dedupeId, body, receiveCount };
      });
  }

  /**
   * The dead-letter queue, oldest first. A dead letter is kept `retentionMs` from its move there
   * (`deadAt`), as an SQS FIFO dead-letter queue with the queue's retention keeps it, then
   * dropped: neither listed, counted nor redriven.
   */
  deadLetters(): DeadLetter[] {
    this.#expire(this.#clock.now());
    return [...this.#state.dead.values()].map(({ n, ...letter }) => ({
      seq: String(n),
      ...letter,
    }));
  }

  /**
   * Moves dead letters (the given `seqs`, or all) back into the queue as new messages: new
   * sequence numbers, at the end of their groups, `receiveCount` 0, not subject to dedupe.
   * Returns how many moved.
   */
  redrive(seqs?: readonly string[]): number {
    this.#checkOpen();
    this.#expire(this.#clock.now());
    const chosen = seqs
      ? seqs.map(Number).filter((n) => this.#state.dead.has(n))
      : [...this.#state.dead.keys()];
    const unique = [...new Set(chosen)];
    if (unique.length === 0) return 0;
    const moves = unique.map((from, i): [number, number] => [from, this.#state.lastSeq + i + 1]);
    this.#write({ t: 'queue.redrive', q: this.name, at: this.#clock.now(), moves });
    this.#notify();
    return moves.length;
  }

  /** The durable state as journal entries, to compact a journal (what is past the retention left out). */
  snapshot(): JournalEntry[] {
    const now = this.#clock.now();
    this.#expire(now);
    return this.#state.snapshot(this.name, now - this.dedupeWindowMs);
  }

  /** Rejects every later call with UNAVAILABLE. Does not close the journal. */
  close(): void {
    this.#closed = true;
    this.#listeners.clear();
  }

  /**
   * The message in the queue whose latest delivery handed out `receipt`, found by the sequence
   * number the receipt holds; undefined for a stale, acknowledged, dead or foreign receipt.
   */
  #delivered(receipt: string): StoredMessage | undefined {
    const message = this.#state.bySeq.get(seqInReceipt(receipt));
    return message?.receipt === receipt ? message : undefined;
  }

  /**
   * Drops the messages sent (or redriven), and the dead letters moved, `retentionMs` or longer
   * before `now`, as SQS deletes them: one journaled entry, in O(their number). Reads call it too,
   * so that nothing past the retention is counted or listed. A closed queue drops nothing (its
   * journal may be closed).
   */
  #expire(now: number): void {
    if (this.#closed) return;
    const expired = this.#state.expired(now - this.retentionMs);
    if (!expired) return;
    const { messages, letters } = expired;
    const seqs = [...messages.map((m) => m.n), ...letters.map((letter) => letter.n)];
    this.#write({ t: 'queue.expire', q: this.name, seqs });
    // A dropped message held in flight no longer holds its group.
    if (messages.length > 0) this.#notify();
  }

  #write(entry: QueueEntry): void {
    this.#journal?.append([entry]);
    this.#state.apply(entry);
  }

  #notify(): void {
    if (this.#listeners.size === 0) return; // no copy to make for nobody
    for (const listener of [...this.#listeners]) {
      try {
        listener();
      } catch (error) {
        console.error('@baton/embedded: an onAvailable listener threw', error);
      }
    }
  }

  #checkOpen(): void {
    if (this.#closed) throw new BatonError(ErrorCode.UNAVAILABLE, 'the embedded queue is closed');
  }
}

/**
 * The sequence number in a receipt `instance.seq.delivery` (NaN for anything else). Only a hint:
 * the message it names must still hold the very same receipt.
 */
function seqInReceipt(receipt: string): number {
  if (typeof receipt !== 'string') return Number.NaN;
  const start = receipt.indexOf('.') + 1;
  const end = receipt.indexOf('.', start);
  return start > 0 && end > start ? Number(receipt.slice(start, end)) : Number.NaN;
}
