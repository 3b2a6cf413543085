/**
 * Pausing an actor: while its record is paused, each message a turn admits is parked — kept
 * with the actor as a {@link DeadLetter} marked `parked`, its inbox offset and channel moved on
 * as for any message the actor is done with — so the inbox moves on and nothing is retried or
 * dead-lettered. Once resumed, the actor's next turn applies the parked messages first, in the
 * order they arrived, each exactly once (as a redrive of its parked letter), then its batch.
 */
import { markedAwaitingRedrive } from '../adapter/awaitsRedrive.ts';
import { jsonSize } from '../adapter/conflicts.ts';
import { isActorSender } from '../adapter/envelope.ts';
import type { ActorRecord, DeadLetter } from '../adapter/storedRecords.ts';
import { BatonError, batonError, ErrorCode, type SerializedError } from '../errors.ts';
import type { Admission } from './admission.ts';
import type { MessageEffects } from './commitParts.ts';
import type { TurnEngine } from './createEngine.ts';
import { batonCommand, type FollowUp } from './followUp.ts';
import type { Inbound } from './Inbound.ts';
import { ignore } from './messageEffects.ts';
import { idempotencyFor } from './outcomes.ts';
import { heldFire } from './timers.ts';

/**
 * The format of a record that parked a message (see `RECORD_FORMAT`): an earlier Baton would
 * resume it applying a parked fire whatever was parked before it, leave its timer marked for
 * good, and answer no copy of a client message by the outcome held for it; so it refuses it.
 */
const PARKED_FORMAT = 4;

/**
 * The effects of parking `inbound` at the next place: the record moves past it (offset,
 * channel) and counts it, and the message is kept to apply on resume. `undefined` when the
 * message would not fit a record whole: it then waits in the inbox like a retried one.
 */
export function park(
  engine: TurnEngine,
  current: ActorRecord,
  inbound: Inbound,
  admission: Admission,
): MessageEffects | undefined {
  const { redrive: _, timer: __, ...original } = inbound.envelope;
  const held = heldFire(admission.fires);
  const place = (current.parked ?? 0) + 1;
  const letter: DeadLetter = {
    actorId: current.id,
    messageId: original.id,
    envelope: original,
    redrivable: true,
    error: pausedError(current, true),
    attempts: inbound.receiveCount ?? 1,
    at: engine.clock.now(),
    parked: place,
    // The redrive of a letter too old to tell: its proof is still owed once it is applied.
    ...(admission.redrives?.unmarked && { unmarked: true }),
    ...(held && { timer: held.timer }),
  };
  if (jsonSize(letter) > engine.store.limits.maxItemBytes) return undefined;
  // Moves the offset and the channel on, as for a message ignored. A timer's fire (or an ask's
  // reply) is parked as the handler would see it, and its timer stays, marked as a dead
  // letter's: a cancel, a new scheduling or a halt parked before it still voids it on resume.
  const format = Math.max(current.format ?? 1, PARKED_FORMAT);
  const moved = ignore(engine, { ...current, parked: place, format }, inbound, admission);
  // A client's message is held with an outcome as a dead letter is (ACTOR_PAUSED, waiting for
  // the resume, which replaces it): committed as any outcome is, it tells a copy of a message
  // applied already, before the pause or after the resume, which no channel mark tells.
  // (Its words are the caller's: not who paused the actor, which the letter keeps.)
  const outcome = !admission.redrives && {
    idempotency: idempotencyFor(engine, original, {
      ok: false,
      error: markedAwaitingRedrive(pausedError(current)),
    }),
  };
  return { ...moved, ...outcome, ...(held && { timers: held.timers }), deadLetter: letter };
}

/**
 * Whether a paused actor's `inbound` is a copy of an ingress message parked already: one with
 * no channel mark to tell it by, so the turn asks for its parked letter.
 */
export async function isParkedCopy(
  engine: TurnEngine,
  record: ActorRecord,
  inbound: Inbound,
): Promise<boolean> {
  const { envelope } = inbound;
  if (isActorSender(envelope) || envelope.redrive !== undefined || envelope.timer) return false;
  const kept = await engine.store.readDeadLetter(record.id, envelope.id);
  return kept?.parked !== undefined;
}

/** Whether `record` is of a resumed actor with parked messages still to apply. */
export function resumedWithParked(record: ActorRecord): boolean {
  return record.parked !== undefined && !record.paused;
}

/**
 * The parked messages of a resumed actor, in the order they arrived, as a turn applies them:
 * redrives of their parked letters, at the record's inbox offset, on the delivery of the
 * batch that carries them (its attempts count for them).
 */
export async function parkedInbounds(
  engine: TurnEngine,
  record: ActorRecord,
  carrier: Inbound | undefined,
): Promise<Array<{ inbound: Inbound; letter: DeadLetter }>> {
  if (!resumedWithParked(record)) return [];
  const letters = (await engine.store.listDeadLetters(record.id))
    .filter((letter) => letter.parked !== undefined)
    .sort((a, b) => (a.parked ?? 0) - (b.parked ?? 0));
  return letters.map((letter) => ({
    letter,
    inbound: {
      envelope: { ...letter.envelope, redrive: letter.at },
      queueSeq: record.inboxOffset,
      ...(carrier?.receiveCount === undefined ? {} : { receiveCount: carrier.receiveCount }),
    },
  }));
}

/**
 * Why a paused actor's message waits in the inbox: it is too large to park whole. Retried
 * after a minute, until the actor is resumed.
 */
export function actorPaused(record: ActorRecord): BatonError {
  return new BatonError(
    ErrorCode.ACTOR_PAUSED,
    `${record.id} is paused: a message too large to park waits in its inbox until the actor is resumed`,
    { details: { actorId: record.id }, retryAfterMs: 60_000 },
  );
}

/**
 * Why a parked message is refused by an action on dead letters (`redrive`, `purge`): it is no
 * dead letter, but held at its paused actor and applied, in order, once the actor is resumed.
 * A purge cannot forget it safely: its parked letter tells a later copy of it (a redelivery, a
 * client's retry) as one held already, and its held outcome waits for the resume to replace it
 * — forgotten, that copy would be parked anew, and the outcome left waiting for good.
 */
export function parkedLetterRefused(
  letter: DeadLetter,
  action: 'redrive' | 'purge',
  followUp: FollowUp = batonCommand,
): BatonError {
  const { actorId, messageId } = letter;
  const instead =
    action === 'redrive'
      ? `resume ${actorId} to apply it (${followUp`actors resume ${actorId}`})`
      : `to keep it from being applied, deploy code whose handler leaves it be, then resume ${actorId}`;
  return batonError(
    ErrorCode.INVALID_STATE,
    `message ${messageId} is parked at ${actorId}, which is paused, not dead-lettered: it is applied, in order, when ${actorId} is resumed, and a parked message cannot be ${action === 'redrive' ? 'redriven' : 'purged'}; ${instead}`,
    { actorId, messageId, parked: letter.parked },
  );
}

/** `record` without its count of parked messages: the last one was applied. */
export function withoutParked(record: ActorRecord): ActorRecord {
  if (record.parked === undefined) return record;
  const { parked: _, ...rest } = record;
  return rest;
}

/**
 * What a message parked at `record`'s paused actor is told; its letter (`kept`) says too since
 * when and by whom, which its caller is not told.
 */
function pausedError(record: ActorRecord, kept?: boolean): SerializedError {
  const { paused } = record;
  const when = kept
    ? ` (since ${new Date(paused?.at ?? 0).toISOString()}, by ${paused?.by ?? 'an operator'})`
    : '';
  return {
    code: ErrorCode.ACTOR_PAUSED,
    message: `${record.id} is paused${when}: this message is held and applied, in order, when the actor is resumed`,
    details: { actorId: record.id },
  };
}
