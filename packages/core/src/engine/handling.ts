/**
 * One admitted message's handling in a turn: the handler run inside its span (or the message
 * dead-lettered, out of attempts or too old to tell from a copy), and what became of it counted.
 */

import type { Envelope } from '../adapter/envelope.ts';
import type { ActorRecord } from '../adapter/storedRecords.ts';
import type { HandlingTrace } from '../adapter/traceContext.ts';
import { BatonError, ErrorCode, isBatonError } from '../errors.ts';
import type { Admission, Turn } from './admission.ts';
import { attemptsMade, outOfAttempts } from './attempts.ts';
import { markProves } from './channels.ts';
import type { MessageEffects } from './commitParts.ts';
import type { TurnEngine } from './createEngine.ts';
import type { Inbound } from './Inbound.ts';
import { deadLetter } from './keptLetters.ts';
import { applyMessage, HANDLE_AGAIN } from './messageEffects.ts';
import { startHandlingSpan } from './spans.ts';
import {
  deployRetryMs,
  outlivedItsProof,
  retriedAfter,
  senderLifeEnded,
  waitsForDeploy,
} from './turnErrors.ts';

/** The turn's messages by what became of them, and the commits it redid. */
export interface TurnCounts {
  applied: number;
  rejected: number;
  /** Of the dead-lettered, those whose state would have grown past the record limit. */
  stateTooLarge: number;
  deadLettered: number;
  parked: number;
  skipped: number;
  versionConflicts: number;
  /**
   * Commits made only to move marks out of the record, or to close an outcome page a message's
   * outcome does not fit beside, so that a message fits its own.
   */
  roomCommits: number;
}

/** Counts of none: where a turn's counts start, and those of a turn that failed as a whole. */
export const NO_COUNTS: Readonly<TurnCounts> = Object.freeze({
  applied: 0,
  rejected: 0,
  stateTooLarge: 0,
  deadLettered: 0,
  parked: 0,
  skipped: 0,
  versionConflicts: 0,
  roomCommits: 0,
});

/** Counts what a message's effects did. */
export function count(counts: TurnCounts, effects: MessageEffects, admission: Admission): void {
  const letter = effects.deadLetter;
  if (letter?.parked !== undefined) counts.parked++;
  else if (letter && !letter.applied) {
    counts.deadLettered++;
    // Kept for its cause (see `keptAsDeadLetter`).
    const cause = (effects.failure as BatonError).cause as BatonError | undefined;
    if (cause?.code === ErrorCode.STATE_TOO_LARGE) counts.stateTooLarge++;
  } else if (effects.failure) counts.rejected++;
  else if (skips(admission)) counts.skipped++;
  else counts.applied++;
}

/** Whether an admitted message is only moved past: see {@link ignore}. */
export function skips(admission: Admission): boolean {
  return (
    admission.lateReply === true || admission.voids !== undefined || admission.forgets !== undefined
  );
}

/**
 * Why a message is kept at once as too old to tell whether it was applied — a copy of a
 * sender's ended life, one older than the proof that it was (the receiver's mark, an ingress
 * message's outcome), or one where that mark forgot its channel's gaps — else `undefined`. A
 * paused actor asks too before it parks a message: a parked message is applied on resume, as a
 * redrive is, which no age refuses. A reply whose ask's timer is stored is never too old: the
 * timer, gone once the continuation runs, tells it.
 */
export function tooOldToTell(
  engine: TurnEngine,
  envelope: Envelope,
  admission: Admission,
  now: number,
): BatonError | undefined {
  if (admission.fires) return undefined;
  return (
    admission.tooOld ??
    senderLifeEnded(envelope, now) ??
    outlivedItsProof(envelope, now, engine, markProves(admission.mark, envelope))
  );
}

/**
 * Runs the handler — or dead-letters a message out of attempts, or one an operator ended —
 * inside its handling's span.
 */
export async function handle(
  turn: Turn,
  record: ActorRecord,
  inbound: Inbound,
  admission: Admission,
): Promise<{
  effects: MessageEffects | BatonError | typeof HANDLE_AGAIN;
  trace: HandlingTrace | undefined;
}> {
  const { engine } = turn;
  const span = startHandlingSpan(engine.openTelemetry, inbound.envelope, {
    actor: record.id,
    inboxPosition: inbound.queueSeq,
  });
  let effects: MessageEffects | BatonError | typeof HANDLE_AGAIN;
  const now = engine.clock.now();
  const tooOld = tooOldToTell(engine, inbound.envelope, admission, now);
  const { failing } = record;
  try {
    if (tooOld) {
      // Kept without moving its sender's mark: the copy may be of an earlier life of the sender,
      // whose new life counts from 1 again, and a mark at its seq would take the new life's
      // messages for copies.
      const unmarked = { ...admission, arrival: undefined, unmarked: true as const };
      effects = await deadLetter(turn, record, inbound, unmarked, tooOld, span.trace, tooOld);
    } else if (failing?.ended && failing.id === inbound.envelope.id) {
      // An operator ended it: kept as a dead letter of its last error (the text a client was
      // told before), its handler not run.
      const { code = ErrorCode.RETRYABLE, message = 'ended by an operator' } = failing.error ?? {};
      const last = new BatonError(code as ErrorCode, message);
      effects = await deadLetter(turn, record, inbound, admission, last, span.trace);
    } else {
      effects = await applyMessage(turn, record, inbound, admission, span.trace, now);
      if (isBatonError(effects)) {
        if (outOfAttempts(engine, record, inbound, turn.maxReceives, effects)) {
          effects = await deadLetter(turn, record, inbound, admission, effects, span.trace);
        } else if (waitsForDeploy(effects) && effects.retryAfterMs === undefined) {
          // A deploy's failure waits for the new code: longer between tries than a fault's.
          effects = retriedAfter(effects, deployRetryMs(attemptsMade(engine, record, inbound)));
        }
      }
    }
  } catch (error) {
    span.end({ code: 'UNEXPECTED', message: String(error) });
    throw error;
  }
  // A handling done again is traced again: this one ends as it would have, without a failure.
  if (effects === HANDLE_AGAIN) span.end(undefined);
  else span.end(isBatonError(effects) ? effects : effects.failure);
  return { effects, trace: span.trace };
}
