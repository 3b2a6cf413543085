/**
 * What a turn knows of a message before it handles it: why it is admitted ({@link Admission}),
 * and what its effects are computed with ({@link Turn}).
 */

import type { SenderMark } from '../adapter/marks.ts';
import type { DeadLetter, Timer } from '../adapter/storedRecords.ts';
import type { TurnDeadline } from '../contextSlots.ts';
import type { BatonError } from '../errors.ts';
import type { CommitBuilder } from './CommitBuilder.ts';
import type { Arrival } from './channels.ts';
import type { TurnEngine } from './createEngine.ts';
import type { OverflowLookup } from './overflow.ts';

/**
 * Why a message is applied: where it stands on its channel, the dead letter it redrives, or
 * the stored timer it fires.
 */
export interface Admission {
  readonly arrival?: Arrival;
  /** The receiver's mark for the sender that `arrival` was classified against. */
  readonly mark?: SenderMark;
  /**
   * Judged by no mark: an actor's message kept as too old to tell, whose letter says so
   * ({@link DeadLetter.unmarked}).
   */
  readonly unmarked?: true;
  /**
   * Why the message is kept at once as too old to tell, found on its channel: it lies where the
   * receiver's mark forgot its gaps, a missing message or a copy of one applied, which no mark
   * tells (see `inForgottenGaps`).
   */
  readonly tooOld?: BatonError;
  readonly redrives?: DeadLetter;
  /** The stored timer this message fires: a timer's own, or an ask's (the reply). */
  readonly fires?: Timer;
  /** The reply to an ask whose continuation ran already: only its channel moves on. */
  readonly lateReply?: boolean;
  /** A timer of an earlier life or from before a halt: its fire is skipped, the timer removed. */
  readonly voids?: Timer;
  /**
   * The dead letter of a timer's fire whose timer was cancelled, scheduled anew or voided since:
   * its redrive applies nothing, and the dead letter is forgotten.
   */
  readonly forgets?: DeadLetter;
}

/** What a message's effects are computed with besides the record. */
export interface Turn {
  readonly engine: TurnEngine;
  readonly overflow: OverflowLookup;
  /** The pending commit: what earlier messages of the batch did to timers. */
  readonly builder: CommitBuilder;
  /** The turn began from the worker's warm copy of the record, not a read of the store. */
  readonly warm?: boolean;
  /** The inbox queue's redrive policy, when known (see `outOfAttempts`). */
  readonly maxReceives: number | undefined;
  /** When the host stops the turn's work, if it says, and the steps run against it. */
  readonly deadline: TurnDeadline | undefined;
}
