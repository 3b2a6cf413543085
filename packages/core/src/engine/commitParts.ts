/**
 * What a commit is made of: the effects one processed message adds to it, and the writes it
 * holds besides the record. The handling of a message makes the first; `CommitBuilder` sums
 * them, and the commit places the second (see commitPlacement.ts).
 */
import type { Envelope } from '../adapter/envelope.ts';
import type { OverflowMark } from '../adapter/marks.ts';
import type { Commit } from '../adapter/ports.ts';
import type {
  ActorRecord,
  DeadLetter,
  IdempotencyRecord,
  Timer,
} from '../adapter/storedRecords.ts';

/** What one processed message adds to a commit. */
export interface MessageEffects {
  /** The record after the message (state, offset, marks, sentSeq); `ver` is set on commit. */
  readonly record: ActorRecord;
  /** `jsonSize(record)` when the caller measured it already. */
  readonly recordBytes?: number;
  /** How much the record may grow at its commit (its outcome page state; see pageStateGrowth). */
  readonly recordGrowth?: number;
  /** The record before its peers were bounded, to bound it again with fewer moves. */
  readonly unbounded?: ActorRecord;
  readonly envelopes: readonly Envelope[];
  readonly idempotency: IdempotencyRecord | undefined;
  /** `jsonSize(idempotency)` when the caller measured it already. */
  readonly idempotencyBytes?: number;
  /** Whether `idempotency` replaces a stored outcome (a redrive) instead of being put once. */
  readonly replacesOutcome?: boolean;
  /** A message ended as DEAD_LETTERED: keep it. */
  readonly deadLetter?: DeadLetter;
  /** A redriven message applied: forget its dead letter. */
  readonly redriven?: string;
  /** Marks the record moved out to stay small (see overflow.ts). */
  readonly overflow?: readonly OverflowMark[];
  /** Timers by id: scheduled (put) or fired and cancelled (`null`: removed). */
  readonly timers?: ReadonlyMap<string, Timer | null>;
  /** Why the message was rejected or dead-lettered, when it was. */
  readonly failure?: { readonly code: string; readonly message: string };
}

/** The parts of a commit besides the record. */
export type PendingWrites = Pick<
  Commit,
  | 'outbox'
  | 'idempotency'
  | 'replaceIdempotency'
  | 'outcomes'
  | 'deadLetters'
  | 'overflow'
  | 'timers'
>;
