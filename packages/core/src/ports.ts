/**
 * Ports: everything the turn engine needs from a backend. The embedded backend implements them
 * in-process; the AWS backend with DynamoDB and SQS. Adapters map vendor errors into
 * {@link BatonError}s — most importantly a failed commit into a {@link CommitConflict}.
 */
import type { Envelope } from './envelope.ts';
import type { SerializedError } from './errors.ts';

/** What the engine knows about a sender: its highest processed `seq`, and when it last moved. */
export interface SenderMark {
  readonly seq: number;
  readonly at: number;
}

/** One actor's durable record. Everything a turn changes, changed in one commit. */
export interface ActorRecord {
  /** `type/key` */
  readonly id: string;
  /** Commit counter: 0 for an actor never committed, then 1, 2, … */
  readonly ver: number;
  /** The application state, a JSON value. */
  readonly state: unknown;
  /** The queue sequence number of the last inbox message processed ("0" before any). */
  readonly inboxOffset: string;
  /** Highest `seq` processed per actor sender, to skip re-sent outbox messages. */
  readonly marks: Readonly<Record<string, SenderMark>>;
  /** The last `seq` this actor gave to a message it sent. */
  readonly sentSeq: number;
}

/** Committed sends of one turn, waiting to be drained into their targets' inboxes. */
export interface OutboxItem {
  readonly actorId: string;
  /** The `seq` of the first envelope: the drain order. */
  readonly seq: number;
  readonly envelopes: readonly Envelope[];
  readonly createdAt: number;
}

/** The result of a handler as an asker sees it. */
export type Outcome =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: SerializedError };

/** Proof that an ingress message was processed, kept for the retention window (I7). */
export interface IdempotencyRecord {
  /** The envelope id: the client's idempotency key. */
  readonly key: string;
  readonly actorId: string;
  readonly outcome: Outcome;
  readonly expiresAt: number;
}

/** One atomic write: the new record on a version condition, its outbox, its idempotency records. */
export interface Commit {
  /** The version the turn read; the commit fails if the stored record moved past it. */
  readonly expectedVer: number;
  /** The new record, `ver = expectedVer + 1`. */
  readonly record: ActorRecord;
  readonly outbox: readonly OutboxItem[];
  /** Put only if absent; the commit fails as a duplicate otherwise. */
  readonly idempotency: readonly IdempotencyRecord[];
}

/** A backend's transaction limits (DynamoDB: 100 items, 4 MB, 400 KB per item). */
export interface StoreLimits {
  readonly maxTransactionItems: number;
  readonly maxTransactionBytes: number;
  readonly maxItemBytes: number;
}

export interface Store {
  readonly limits: StoreLimits;
  /** A strongly consistent read of an actor record; `undefined` if it was never committed. */
  load(actorId: string): Promise<ActorRecord | undefined>;
  /**
   * Applies the whole commit or nothing. Throws {@link CommitConflict} (a BatonError with code
   * VERSION_CONFLICT, DUPLICATE or TRANSACTION_TOO_LARGE) when a condition or limit fails.
   */
  commit(commit: Commit): Promise<void>;
  /** The actor's outbox items, oldest first. */
  readOutbox(actorId: string): Promise<OutboxItem[]>;
  /** Deletes drained outbox items; deleting a missing item is not an error. */
  deleteOutbox(actorId: string, seqs: readonly number[]): Promise<void>;
  /** Actors that have outbox items older than `olderThan` (epoch ms): the sweeper's work list. */
  listOutboxActors(olderThan: number): Promise<string[]>;
  readIdempotency(key: string): Promise<IdempotencyRecord | undefined>;
  /** Optional push of committed idempotency records, so askers need not poll. */
  watchOutcomes?(listener: (record: IdempotencyRecord) => void): () => void;
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
 * A FIFO queue with message groups: one group is handed to one receiver at a time, in order;
 * an unacknowledged message comes back after its visibility timeout; duplicates by `dedupeId`
 * within the dedupe window are dropped.
 */
export interface Queue {
  /** Enqueues in order. */
  send(messages: readonly QueueMessage[]): Promise<void>;
  receive(options: ReceiveOptions): Promise<ReceivedMessage[]>;
  /** Deletes processed messages. */
  ack(receipts: readonly string[]): Promise<void>;
  /** Makes messages visible again after `delayMs` (0: at once). */
  release(receipts: readonly string[], delayMs: number): Promise<void>;
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
