/**
 * What a turn keeps of a message as a letter: the dead letter of one it ended (DEAD_LETTERED,
 * its cause the error that ended it), as a record item can hold it, and the proof that a redrive
 * applied a message of a sender's ended life.
 */
import { markedAwaitingRedrive } from '../adapter/awaitsRedrive.ts';
import { jsonSize } from '../adapter/conflicts.ts';
import type { ActorRecord, DeadLetter, IdempotencyRecord } from '../adapter/storedRecords.ts';
import type { HandlingTrace } from '../adapter/traceContext.ts';
import { type BatonError, withheld } from '../errors.ts';
import type { Admission, Turn } from './admission.ts';
import { advance } from './advanceRecord.ts';
import { attemptsMade } from './attempts.ts';
import type { MessageEffects } from './commitParts.ts';
import type { TurnEngine } from './createEngine.ts';
import type { Inbound } from './Inbound.ts';
import { errorGist, failedOutcome } from './outcomes.ts';
import { askReply, outgoing } from './outgoing.ts';
import { withRecord } from './recordRoom.ts';
import { wasAnswered } from './redriveNeedsForce.ts';
import { heldFire } from './timers.ts';
import { deadLettered } from './turnErrors.ts';

/**
 * What the engine logs (at error) when it ends a message as DEAD_LETTERED that failed each of its
 * `maxAttempts` attempts (a retryable failure, or an error a handler threw), with its actor,
 * message, `attempts` and last error: BatonApp's `engineDeadLetters` alarm counts these lines and
 * {@link DEAD_LETTER_AT_ONCE_LOG}'s (its `keptDeadLetters` alarm watches the count the sweeper
 * logs, which stays while a letter is kept).
 */
export const DEAD_LETTER_LOG = 'message dead-lettered: it failed every attempt';

/**
 * What the engine logs (at error) when it ends a message as DEAD_LETTERED at once, without
 * retries, with the `reason`: its code's fault (a commit too large, state or a reply it cannot
 * commit, state past the record limit), which a retry would meet again, or a copy too old to
 * tell whether it was applied. Its `code` is the cause's: BatonApp's StateTooLargeAlarm counts
 * the lines whose code is STATE_TOO_LARGE.
 */
export const DEAD_LETTER_AT_ONCE_LOG = 'message dead-lettered at once: a retry would not apply it';

/**
 * The one line an earlier Baton logged for both: counted too, so that the alarm misses none of
 * the old workers' dead letters while a deploy rolls.
 */
const DEAD_LETTER_LOG_BEFORE = 'message dead-lettered after repeated failures';

/** The lines the engine logs when it dead-letters a message, for the alarm that counts them. */
export const DEAD_LETTER_LOGS: readonly string[] = [
  DEAD_LETTER_LOG,
  DEAD_LETTER_AT_ONCE_LOG,
  DEAD_LETTER_LOG_BEFORE,
];

/**
 * Ends a message that kept failing (DEAD_LETTERED) in the actor's own turn: the state stays, the
 * actor goes on with its next message, an asker is told, and the message is kept to redrive.
 */
export async function deadLetter(
  turn: Turn,
  current: ActorRecord,
  inbound: Inbound,
  admission: Admission,
  last: BatonError,
  trace: HandlingTrace | undefined,
  /**
   * The engine's own error, for a message ended without retries: DEAD_LETTERED for a copy too
   * old to tell, or for one its code's fault kept (see `keptAsDeadLetter`), whose cause is
   * MESSAGE_TOO_LARGE for one whose commit no transaction can hold, INVALID_STATE for one whose
   * handler left state or a reply the code cannot commit, STATE_TOO_LARGE for one whose state
   * would pass the record limit.
   */
  ended?: BatonError,
): Promise<MessageEffects> {
  const { engine } = turn;
  const { envelope } = inbound;
  const attempts = attemptsMade(engine, current, inbound);
  const error = ended ?? deadLettered(envelope, attempts, last);
  // What the sender and clients are told: no unexpected error's text (the letter keeps it).
  const told = ended ?? deadLettered(envelope, attempts, withheld(last));
  // One log line for all, the engine's own endings as well (their reason, when not the error's).
  engine.logger.error(ended ? DEAD_LETTER_AT_ONCE_LOG : DEAD_LETTER_LOG, {
    ...(ended && ended.message !== last.message ? { reason: ended.message } : {}),
    actor: current.id,
    messageId: envelope.id,
    attempts,
    code: last.code,
    error: last.message,
  });
  // A redrive's `redriveForced` may stay: each redrive sets it anew (redriveDeadLetter).
  const { redrive: _, timer: __, ...original } = envelope;
  // Kept as too old to tell (or such a letter's redrive kept again): it may have been applied,
  // so its asker is not told it failed. Its ask's timeout, or the reply of the message applied,
  // ends the ask.
  const unmarked = admission.unmarked || admission.redrives?.unmarked;
  const out = await outgoing(
    turn,
    advance(engine, current, inbound, admission),
    unmarked ? [] : askReply(engine, envelope, { ok: false, error: told.toJSON() }),
    trace,
  );
  const held = heldFire(admission.fires);
  const kept: DeadLetter = {
    actorId: current.id,
    messageId: envelope.id,
    envelope: original,
    redrivable: true,
    error: error.toJSON(),
    attempts,
    at: engine.clock.now(),
    ...(held && { timer: held.timer }),
    // Kept as too old to tell, or such a letter's redrive kept again.
    ...(unmarked && { unmarked }),
    // The life it names: its letter's, for a redrive kept again (a message of a life that ended
    // stays one); else the record's.
    ...(admission.redrives
      ? { life: admission.redrives.life, epoch: admission.redrives.epoch }
      : current.life && { life: current.life, epoch: current.timerEpoch ?? 0 }),
  };
  const letter = keptWithin(kept, engine.store.limits.maxItemBytes);
  return {
    ...withRecord(engine, out.record),
    envelopes: out.envelopes,
    idempotency: outcomeOfKept(letter, failedOutcome(engine, envelope, told)),
    failure: error,
    deadLetter: letter,
    ...(admission.redrives && { replacesOutcome: true }),
    // The timer stays, marked, until the fire is redriven: a cancel meanwhile still holds.
    ...(held && { timers: held.timers }),
  };
}

/**
 * The outcome of an ingress message kept as `letter`: marked as one that waits still
 * (`awaitsRedrive`) when a redrive needs no force to apply it — a client's plain send, whose
 * client waited for no answer — so that an ask under its key is not told DEAD_LETTERED of a
 * message a plain redrive may apply still.
 */
function outcomeOfKept(
  letter: DeadLetter,
  outcome: IdempotencyRecord | undefined,
): IdempotencyRecord | undefined {
  if (outcome?.outcome.ok !== false) return outcome;
  if (!letter.redrivable || wasAnswered(letter)) return outcome;
  return {
    ...outcome,
    outcome: { ok: false, error: markedAwaitingRedrive(outcome.outcome.error) },
  };
}

/**
 * A dead letter as an item can hold it: whole; else with the gist of its error, the message
 * whole still, so it can be redriven; else, as a last resort, without its payload, which
 * cannot be.
 */
function keptWithin(kept: DeadLetter, maxItemBytes: number): DeadLetter {
  if (jsonSize(kept) <= maxItemBytes) return kept;
  const gist = { ...kept, error: errorGist(kept.error, maxItemBytes) };
  if (jsonSize(gist) <= maxItemBytes) return gist;
  return { ...gist, envelope: { ...kept.envelope, payload: null }, redrivable: false };
}

/**
 * The letter of a message no mark tells a copy of (an ended life's, or one kept as too old to
 * tell), kept once its redrive applied it: the letter tells a copy, for the mark retention
 * ({@link DeadLetter.applied}).
 * Its `at` is new, so that no copy of the redrive, which names the letter's `at`, matches it
 * (nor on an earlier Baton, which knows no `applied`); and it is no parked message. Like any
 * letter, it fits an item (its error's gist, if need be): it is a bit more than the letter it
 * replaces, which may have just fitted.
 */
export function appliedProof(engine: TurnEngine, letter: DeadLetter): DeadLetter {
  const at = engine.clock.now();
  const { parked: _, ...kept } = letter;
  const proof = {
    ...kept,
    envelope: { ...letter.envelope, payload: null },
    redrivable: false,
    at,
    applied: { at, expiresAt: at + engine.markRetentionMs },
  };
  return keptWithin(proof, engine.store.limits.maxItemBytes);
}
