/**
 * Ports: everything the turn engine needs from a backend. The embedded backend implements them
 * in-process; the AWS backend with DynamoDB and SQS. Adapters map vendor errors into
 * {@link BatonError}s — most importantly a failed commit into a {@link CommitConflict}.
 */

import type { OverflowKey, OverflowMark } from './marks.ts';
import type {
  ActorRecord,
  DeadLetter,
  IdempotencyRecord,
  KeyClaim,
  OutboxItem,
  OutcomePageWrite,
  PagedOutcome,
  Timer,
  TimerRef,
} from './storedRecords.ts';

/**
 * One atomic write: the new record on a version condition, its outbox (held in the record, or
 * items apart), its idempotency records.
 */
export interface Commit {
  /**
   * The version the turn read; the commit fails if the stored record moved past it, or is of
   * another life than `record.life` (expectedVer 0: if any record is stored).
   */
  readonly expectedVer: number;
  /** The new record, `ver = expectedVer + 1`, of the life the turn read. */
  readonly record: ActorRecord;
  readonly outbox: readonly OutboxItem[];
  /** Put only if absent; the commit fails as a duplicate otherwise. */
  readonly idempotency: readonly IdempotencyRecord[];
  /** Put whatever is stored: the new outcome of a redriven message. */
  readonly replaceIdempotency?: readonly IdempotencyRecord[];
  /**
   * Outcomes appended to a page of the actor's outcomes (one item, however many), on a store
   * with {@link Store.readPagedOutcomes}: put only if absent there, like `idempotency`. The
   * engine keeps a page item within `limits.maxItemBytes` as `pageItemBytes` measures it (each
   * outcome's JSON, its key again and a fixed overhead, and the page's own part): a store's page
   * item must take no more (see outcomePageBytes.ts).
   */
  readonly outcomes?: OutcomePageWrite;
  /** Dead letters to keep (put) and redriven ones to forget (message ids of this actor). */
  readonly deadLetters?: {
    readonly put: readonly DeadLetter[];
    readonly remove: readonly string[];
  };
  /** Marks moved out of the record by this commit (put whatever is stored). */
  readonly overflow?: readonly OverflowMark[];
  /** Timers scheduled (put, replacing one of the same id) and fired or cancelled (ids removed). */
  readonly timers?: {
    readonly put: readonly Timer[];
    readonly remove: readonly string[];
  };
  /** Sizes the engine measured as it built the commit, for `checkCommit` to take as they are. */
  readonly measured?: CommitMeasures;
}

/**
 * Sizes of a commit's parts, in `jsonSize` bytes (its outcomes as page entries), as the engine
 * measured them deciding where they go. `checkCommit` takes them instead of walking the values again (a record's walk is a
 * few percent of a turn); a part without one is measured. They are never stored.
 */
export interface CommitMeasures {
  /** `jsonSize(record)`. */
  record?: number;
  /** The summed `pageEntryBytes` of `outcomes.records` (see outcomePageBytes.ts). */
  outcomes?: number;
}

/** A backend's transaction limits (DynamoDB: 100 items, 4 MB, 400 KB per item). */
export interface StoreLimits {
  readonly maxTransactionItems: number;
  readonly maxTransactionBytes: number;
  readonly maxItemBytes: number;
  /**
   * Bytes of ingress outcomes after which a page of them is closed (see `outcomePages.ts`).
   * Every commit writes its page again until it closes: a store that bills a write by the size
   * of the item keeps its pages small. @default 8 KB
   */
  readonly outcomePageBytes?: number;
  /**
   * Bytes of a state that only grows (a workflow's history) an actor's record keeps before its
   * oldest part moves out into pages of up to seven eighths of that. Every commit writes the
   * record whole: a store that bills a write by the size of the item keeps it small.
   * @default 8 KiB
   */
  readonly historyBytes?: number;
}

/**
 * What the turns of a worker that is handed its messages (`PushWorker`, a Lambda) need of
 * a store: its records, their commits, and what a turn reads back. A store for such a worker
 * alone may offer only this, and its bundle holds no code of the other roles.
 */
export interface TurnStore {
  readonly limits: StoreLimits;
  /** A strongly consistent read of an actor record; `undefined` if it was never committed. */
  load(actorId: string): Promise<ActorRecord | undefined>;
  /**
   * Applies the whole commit or nothing. Throws {@link CommitConflict} (a BatonError with code
   * VERSION_CONFLICT, DUPLICATE or TRANSACTION_TOO_LARGE) when a condition or limit fails.
   */
  commit(commit: Commit): Promise<void>;
  /**
   * The actor's outbox items stored apart from its record, oldest first (the record holds the
   * rest: {@link ActorRecord.outbox}), each with the {@link OutboxItem.life} it was committed
   * with. Items of two lives with the same `seq` are both kept and both listed.
   */
  readOutbox(actorId: string): Promise<OutboxItem[]>;
  /**
   * Deletes drained outbox items stored apart: those with these seqs that `life` committed
   * (`undefined`: the items without a life). It never deletes another life's item of the same
   * `seq`. Deleting a missing item is not an error.
   */
  deleteOutbox(actorId: string, seqs: readonly number[], life: string | undefined): Promise<void>;
  /**
   * Told that the sends the record at `ver` of life `life` holds are in the queue. Optional: a
   * store whose writes are cheap (the embedded one) drops them from the record, keeping its
   * version, so no drain or sweep sends them again. DynamoDB's store leaves it out: it would
   * cost the write that holding the sends saves; the sweeper retires them instead.
   */
  heldDrained?(actorId: string, ver: number, life: string | undefined): Promise<void>;
  /**
   * The live outcome of ingress message `key`: its own idempotency record (which a redrive's
   * replaces), else the one in its actor's outcome pages. `sentAt`, when the caller knows when
   * the message was first sent, spares a store the pages of messages sent before.
   * `options.maxPages` bounds the pages one read may go through (a client's read: one request
   * must not make the store read an actor's every page); a read that needs more throws
   * LIMIT_EXCEEDED. A store that keeps no pages ignores it.
   */
  readIdempotency(
    key: string,
    sentAt?: number,
    options?: OutcomeReadOptions,
  ): Promise<IdempotencyRecord | undefined>;
  /**
   * The live outcomes in the pages of `actorId` that may hold a message sent at `sentAt`: every
   * page whose {@link OutcomePageWrite.sentAt} is at least `sentAt` (and, with `fromPage`, whose
   * number is at least `fromPage`). Optional: a store with it takes a commit's outcomes as one
   * page write ({@link Commit.outcomes}); without it, each outcome is an item of its own
   * ({@link Commit.idempotency}).
   */
  readPagedOutcomes?(actorId: string, sentAt: number, fromPage?: number): Promise<PagedOutcome[]>;
  /**
   * Which of `keys` name effect runs that are done, as {@link markEffectsDone} recorded them (a
   * consistent read). Optional, with `markEffectsDone`: with both, the effect runner skips a
   * copy of an effect request that arrives after the queue's dedupe window (a sweep that came
   * late, a redelivery after the run); without them, such a copy runs the effect again.
   */
  readEffectsDone?(keys: readonly string[]): Promise<ReadonlySet<string>>;
  /** Records the effect runs of `keys` (their idempotency keys) as done until `expiresAt`. */
  markEffectsDone?(keys: readonly string[], expiresAt: number): Promise<void>;
  /** One dead letter of an actor, by message id. */
  readDeadLetter(actorId: string, messageId: string): Promise<DeadLetter | undefined>;
  /** The dead letters of one actor, oldest first (the whole {@link Store} lists every actor's). */
  listDeadLetters(actorId: string): Promise<DeadLetter[]>;
  /** A consistent read of an actor's overflow marks for `keys`; the ones never stored are left out. */
  readOverflow(actorId: string, keys: readonly OverflowKey[]): Promise<OverflowMark[]>;
  /** One timer of an actor, by id. */
  readTimer(actorId: string, id: string): Promise<Timer | undefined>;
  /** The timers of one actor, soonest first. */
  listTimers(actorId: string): Promise<Timer[]>;
}

/**
 * The whole store: the turns' part, and what the sweeper (the outbox and timers due), the
 * client (key claims, outcomes) and the tools read and write besides.
 */
export interface Store extends TurnStore {
  /** The dead letters of one actor, or of every actor (oldest first), for tools and redrive. */
  listDeadLetters(actorId?: string): Promise<DeadLetter[]>;
  /**
   * Actors with outbox items older than `olderThan` (epoch ms), held in their record or apart,
   * by their oldest item, oldest first: the sweeper's work list, of which a sweep short of time
   * drains the oldest. A store may list one a few seconds early, and order them by times in
   * such steps (the DynamoDB store files send times in 5-second steps), never list one late.
   */
  listOutboxActors(olderThan: number): Promise<string[]>;
  /**
   * Writes the actor's record again without its held sends, at version `ver + 1`, if it is
   * still at `ver` of life `life` (`undefined`: a record without a life); does nothing otherwise
   * (a later commit replaced them). For the sweeper, after it drained them. `expiresAt` is that
   * record's (a halted actor's; `undefined` for a live one): a store deletes a halted record
   * only once it holds no sends, which would go with it, and may need the expiry now (DynamoDB
   * gives the record its TTL in the same write).
   */
  retireHeldOutbox(
    actorId: string,
    ver: number,
    life: string | undefined,
    expiresAt: number | undefined,
  ): Promise<void>;
  /**
   * Binds `claim.key` to the message with `claim.fingerprint` unless an unexpired claim holds
   * the key already (one conditional write). Resolves `undefined` when this call claimed it,
   * else with the claim that holds it: of this very message when the fingerprints are equal (a
   * retried send), of another message otherwise.
   */
  claimKey(claim: KeyClaim): Promise<KeyClaim | undefined>;
  /**
   * The unexpired claim on `key`, if any (a consistent read). Optional: with it, an outcome's
   * lookup reads the pages from the claiming send's `sentAt` on, whatever a caller passes, and a
   * keyed message with no claim is known to have no outcome. Without it, a caller's read of a
   * keyed message's outcome (`Client.outcome`, `GET /outcome`) answers unknown: only trusted
   * code reads one.
   */
  readClaim?(key: string): Promise<KeyClaim | undefined>;
  /**
   * How many dead letters every actor keeps, parked messages included (not the proofs redrives
   * leave): the standing count the sweeper logs each sweep, which an alarm watches until the
   * last one is redriven. Optional: without it the sweeper logs no count (listing them would read
   * each letter every sweep).
   */
  countDeadLetters?(): Promise<number>;
  /**
   * Timers of every actor due at or before `before` (epoch ms) — and after `after`, when given —
   * soonest first, at most `limit`.
   */
  listDueTimers(before: number, limit: number, after?: number): Promise<Timer[]>;
  /** Optional push of committed idempotency records, so askers need not poll. */
  watchOutcomes?(listener: (record: IdempotencyRecord) => void): () => void;
}

/** How far one {@link Store.readIdempotency} may read. */
export interface OutcomeReadOptions {
  /** The most outcome pages the read may go through. @default no bound */
  readonly maxPages?: number;
}

/** A message to enqueue: SQS FIFO's group and deduplication id. */
export interface QueueMessage {
  readonly group: string;
  readonly dedupeId: string;
  readonly body: string;
}

export interface ReceivedMessage extends QueueMessage {
  /** Handle for ack/release; a stale one (after redelivery) is ignored. */
  readonly receipt: string;
  /** Increasing within a group (SQS FIFO's SequenceNumber), a decimal string. */
  readonly seq: string;
  /** 1 on the first delivery. */
  readonly receiveCount: number;
}

export interface ReceiveOptions {
  readonly max: number;
  readonly visibilityTimeoutMs: number;
}

/**
 * What the turns of a worker that is handed its messages (`PushWorker`, a Lambda, whose host
 * receives and acks them) need of the queue: sending, and telling the inbox apart.
 */
export interface TurnQueue {
  /** Enqueues in order. */
  send(messages: readonly QueueMessage[]): Promise<void>;
  /**
   * What tells this queue from one created later under the same name (SQS: its creation time),
   * or from itself numbering its messages another way (SQS: its throughput mode), so an actor
   * notices that its inbox was replaced: sequence numbers start over in a new queue, and an old
   * inbox offset would skip every message as processed. Absent: not checked.
   */
  identity?(): Promise<string>;
  /**
   * When the queue itself moves a message to its dead-letter queue (SQS: the `RedrivePolicy`'s
   * `maxReceiveCount`); `undefined` when it never does. A worker checks it against its
   * `maxAttempts` before each batch (cache it). Absent: not checked.
   */
  redrivePolicy?(): Promise<RedrivePolicy | undefined>;
  /**
   * Makes messages visible again after `delayMs` (0: at once): a pushed worker's host releases
   * the messages its turns failed, by the receipts its host handed it. Absent: they come back
   * after the queue's visibility timeout.
   */
  release?(receipts: readonly string[], delayMs: number): Promise<void>;
}

/**
 * A FIFO queue with message groups: one group is handed to one receiver at a time, in order;
 * an unacknowledged message comes back after its visibility timeout; duplicates by `dedupeId`
 * within the dedupe window are dropped.
 */
export interface Queue extends TurnQueue {
  receive(options: ReceiveOptions): Promise<ReceivedMessage[]>;
  /** Deletes processed messages. */
  ack(receipts: readonly string[]): Promise<void>;
  /** Makes messages visible again after `delayMs` (0: at once). */
  release(receipts: readonly string[], delayMs: number): Promise<void>;
}

/** A queue's own dead-lettering: see {@link Queue.redrivePolicy}. */
export interface RedrivePolicy {
  /** Receives of a message after which the queue moves it to its dead-letter queue. */
  readonly maxReceives: number;
}

/**
 * Arms committed timers so each fires into the inbox when due (AWS: a delay queue and a relay).
 * Optional: without one, timers fire when the sweeper finds them due (`fireDueTimers`).
 * Arming twice, or arming a timer since cancelled, is harmless: a fire is applied only while
 * its timer is stored.
 */
export interface TimerQueue {
  arm(timers: readonly TimerRef[]): Promise<void>;
  /**
   * How long before it is due a timer can be armed, if the queue holds a timer for a bounded
   * time only (SQS: 15 minutes, its longest delay). A turn then arms only the timers due within
   * that reach, and the sweeper arms each later one as it comes within it: a timer due in days
   * costs nothing until then, and an ask answered before its timeout nears is never armed.
   * Without it, every timer is armed as it is committed.
   */
  readonly reachMs?: number;
}

/** Committed actor records, in commit order per actor. */
export interface ChangeFeed {
  subscribe(listener: (record: ActorRecord) => void): () => void;
}

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** Compares two queue sequence numbers (non-negative decimal strings). */
export function compareSeq(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}
