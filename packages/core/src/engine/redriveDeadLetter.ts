import { encodeEnvelope, INGRESS } from '../adapter/envelope.ts';
import { type Clock, type Queue, type Store, systemClock } from '../adapter/ports.ts';
import type { DeadLetter } from '../adapter/storedRecords.ts';
import { BatonError, ErrorCode } from '../errors.ts';
import { failingNotDeadLettered } from './failingHead.ts';
import { batonCommand, type FollowUp } from './followUp.ts';
import { parkedLetterRefused } from './parking.ts';
import {
  answeredSender,
  keptTooOldToTell,
  keyClaimLapsed,
  ofEndedLife,
} from './redriveNeedsForce.ts';

/**
 * How a redrive treats a letter whose sender was answered (see {@link answeredSender}), or one
 * kept as too old to tell whether it was applied (see {@link keptTooOldToTell}).
 */
export interface RedriveOptions {
  /**
   * Redrive it even so: for an operator who knows its sender's effect was not undone and the
   * message must still be applied (or that nobody acted on the answer), or who knows a letter
   * kept as too old to tell was never applied. Without it such a letter is refused.
   * @default false
   */
  readonly force?: boolean;
  /** How its refusals name the next command. @default {@link batonCommand} */
  readonly followUp?: FollowUp;
  /**
   * What tells whether a client key's claim has lapsed (`keyClaimLapsed`), on a store that
   * cannot read claims (`Store.readClaim`; one that can tells it by its own clock).
   * @default the system's
   */
  readonly clock?: Clock;
}

/**
 * Sends a dead letter back to its actor's inbox, once its cause is fixed. The actor applies it
 * exactly once, in its own turn, and forgets the dead letter in the same commit; redriving
 * twice, or a redelivered copy, applies nothing more (the letter of a message of a sender's
 * ended life stays, as the proof that it was applied). The message is applied after the
 * messages that reached the actor since it was dead-lettered (channel order does not hold
 * across a redrive). If it fails again it becomes a dead letter again. The message failing at
 * the head of the inbox is no dead letter yet: refused with INVALID_STATE, saying how to end it
 * (`endFailingMessage`).
 *
 * A letter whose sender was answered DEAD_LETTERED when it was kept ({@link answeredSender}:
 * an actor's or a client's ask) is refused with INVALID_STATE, nothing sent: applied now, it
 * would change the actor after its sender was told it failed. Purge it, or pass
 * `{ force: true }` when you know it must be applied still. So is a letter kept as too old to
 * tell whether it was applied ({@link keptTooOldToTell}), or a client's letter whose key's claim
 * has lapsed since ({@link keyClaimLapsed}: a message sent under its key again was taken as a new
 * one): applied now, it may be applied twice. Pass `{ force: true }` only when you know it was
 * never applied; else purge it. So is a letter kept in a life of its actor that has ended
 * ({@link ofEndedLife}): applied now, it would change the actor's new life.
 *
 * @example
 * for (const letter of await store.listDeadLetters('account/alice')) {
 *   if (redriveNeedsForce(letter) || keyClaimLapsed(letter, Date.now())) continue; // apart
 *   await redriveDeadLetter(store, queue, letter.actorId, letter.messageId);
 * }
 */
export async function redriveDeadLetter(
  store: Store,
  queue: Queue,
  actorId: string,
  messageId: string,
  options: RedriveOptions = {},
): Promise<void> {
  const { followUp = batonCommand } = options;
  const letter = await store.readDeadLetter(actorId, messageId);
  if (letter?.parked !== undefined) throw parkedLetterRefused(letter, 'redrive', followUp);
  // No letter: it may be the message failing at the head of the inbox, not ended yet.
  const record = letter ? undefined : await store.load(actorId);
  const notYet = failingNotDeadLettered(record, messageId, followUp);
  if (notYet) throw notYet;
  if (!letter || letter.applied) {
    throw new BatonError(
      ErrorCode.NOT_FOUND,
      `${actorId} keeps no dead letter ${messageId}: it was redriven already, or never dead-lettered; list them with store.listDeadLetters()`,
      { details: { actorId, messageId } },
    );
  }
  if (!letter.redrivable) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `dead letter ${messageId} of ${actorId} was too large to keep whole, so it cannot be redriven: send its message again from its source`,
      { details: { actorId, messageId } },
    );
  }
  if (!options.force) {
    const answered = answeredSender(letter);
    if (answered !== undefined) throw answeredLetterRefused(letter, answered, followUp);
    if (keptTooOldToTell(letter) || (await claimLapsed(store, letter, options.clock))) {
      throw tooOldLetterRefused(letter, followUp);
    }
    if (letter.life !== undefined && ofEndedLife(letter, await store.load(actorId))) {
      throw endedLifeLetterRefused(letter, followUp);
    }
  }
  // Set anew, never taken from the letter: a forced redrive kept again is forced no more.
  const envelope = {
    ...letter.envelope,
    redrive: letter.at,
    redriveForced: options.force || undefined,
  };
  await queue.send([
    {
      group: actorId,
      // Its own namespace: never equal to an actor message id or an ingress id. A forced one's
      // apart: a plain one the actor left kept (its life ended meanwhile) does not shadow it.
      dedupeId: `${options.force ? 'redrive-forced' : 'redrive'}:${letter.at}:${messageId}`,
      body: encodeEnvelope(envelope),
    },
  ]);
}

/**
 * Whether the claim of the letter's client key has lapsed ({@link keyClaimLapsed}): by the
 * store, when it reads claims — none holds the key now, or another claim does —, else by `clock`.
 */
async function claimLapsed(
  store: Store,
  letter: DeadLetter,
  clock: Clock = systemClock,
): Promise<boolean> {
  const until = letter.envelope.keyHeldUntil;
  if (until === undefined) return false;
  if (!store.readClaim) return keyClaimLapsed(letter, clock.now());
  return (await store.readClaim(letter.messageId))?.expiresAt !== until;
}

/** The refusal of a plain redrive of a letter whose sender was answered. */
function answeredLetterRefused(
  letter: DeadLetter,
  answered: string,
  followUp: FollowUp,
): BatonError {
  const { actorId, messageId, envelope } = letter;
  return new BatonError(
    ErrorCode.INVALID_STATE,
    `dead letter ${messageId} of ${actorId} was not redriven: when it was kept, ${answered}; applied now, it would change ${actorId} after that answer. If its sender undid or gave up what it asked for, purge it (${followUp`dead-letters purge ${actorId} ${messageId}`}); if you know it must be applied still, redrive it with force (${followUp`dead-letters redrive ${actorId} ${messageId} --force`}; redriveDeadLetter(…, { force: true }))`,
    {
      details: {
        actorId,
        messageId,
        answered: envelope.from === INGRESS ? 'outcome' : 'asker',
        from: envelope.from,
      },
    },
  );
}

/** The refusal of a plain redrive of a letter kept as too old to tell whether it was applied. */
function tooOldLetterRefused(letter: DeadLetter, followUp: FollowUp): BatonError {
  const { actorId, messageId } = letter;
  return new BatonError(
    ErrorCode.INVALID_STATE,
    `dead letter ${messageId} of ${actorId} was not redriven: it is too old to tell whether it was applied (it came after what proves a message applied was gone — its sender's mark, or its outcome —, or where its sender's mark had forgotten its channel's gaps, or the claim of its client's key has lapsed since, so a message sent under that key again was taken as new), so applied now it may be applied twice. If you know it was never applied, redrive it with force (${followUp`dead-letters redrive ${actorId} ${messageId} --force`}; redriveDeadLetter(…, { force: true })); else purge it (${followUp`dead-letters purge ${actorId} ${messageId}`})`,
    { details: { actorId, messageId, tooOldToTell: true } },
  );
}

/** The refusal of a plain redrive of a letter kept in a life of its actor that has ended. */
function endedLifeLetterRefused(letter: DeadLetter, followUp: FollowUp): BatonError {
  const { actorId, messageId } = letter;
  return new BatonError(
    ErrorCode.INVALID_STATE,
    `dead letter ${messageId} of ${actorId} was not redriven: it was kept in a life of ${actorId} that has ended since (the actor halted, or it never applied a message and its record expired), so applied now it would change a new life of ${actorId} by a message sent to the one that ended. Purge it (${followUp`dead-letters purge ${actorId} ${messageId}`}), unless you know the new life must take it: then redrive it with force (${followUp`dead-letters redrive ${actorId} ${messageId} --force`}; redriveDeadLetter(…, { force: true }))`,
    { details: { actorId, messageId, lifeEnded: true } },
  );
}
