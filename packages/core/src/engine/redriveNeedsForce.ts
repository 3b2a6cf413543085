import { type Envelope, INGRESS, isActorSender } from '../adapter/envelope.ts';
import type { ActorRecord, DeadLetter } from '../adapter/storedRecords.ts';

/**
 * Who was answered DEAD_LETTERED when the engine kept this letter, or `undefined` when nobody
 * was (nor is, for a letter kept as too old to tell: see {@link keptTooOldToTell}): an actor's
 * ask (`ctx.ask`, a workflow's `ctx.call`) had that reply sent to its asker, which went on as
 * for a failed call (a workflow failed, or its saga undid the call); a client's ask
 * (`client.ask`, the HTTP ingress's `/ask`, a WebSocket ask or visible send, `baton ask`: its
 * envelope is `awaited`) was told it, as its outcome under its key. A client's plain send
 * (`client.send`, `/send`, a WebSocket send) waited for no answer: its letter is redriven as an
 * actor's plain send, a timer's fire or an ask's reply are — as is the letter of a message an
 * earlier Baton took in, which marked no ask. (Its outcome says DEAD_LETTERED too, marked as
 * one that waits for a redrive (`awaitsRedrive`): a read of it is given it, while an ask under
 * its key waits on, for the outcome a redrive replaces it with, or a purge's.)
 *
 * @example
 * const letters = await store.listDeadLetters('account/alice');
 * const plain = letters.filter((letter) => answeredSender(letter) === undefined);
 */
export function answeredSender(letter: DeadLetter): string | undefined {
  if (!wasAnswered(letter)) return undefined;
  const { envelope } = letter;
  return envelope.from === INGRESS
    ? "its client's ask: it was told DEAD_LETTERED, the outcome stored under its key (what an ask retried under that key, or a read of its outcome, is told too)"
    : `its asker ${envelope.from}: the reply to its ask said DEAD_LETTERED, and the asker went on as for a failed call (a workflow failed, or its saga undid the call)`;
}

/**
 * Whether {@link answeredSender} names someone: the test alone, which the turn needs (without
 * the words an operator reads, which stay out of the worker's bundle).
 */
export function wasAnswered(letter: DeadLetter): boolean {
  // Kept as too old to tell: nobody was told it failed, as it may have been applied.
  if (letter.unmarked) return false;
  const { envelope } = letter;
  if (envelope.from === INGRESS) return envelope.awaited === true;
  return envelope.ask !== undefined && isActorSender(envelope);
}

/**
 * Whether the engine kept this letter as too old to tell whether it was applied: a copy that
 * came after what proves a message applied was gone (its sender's mark, a client's outcome), one
 * where its sender's mark had forgotten its channel's gaps, or a message of a sender's life that
 * had ended. Its message may have been applied already, so a redrive of it needs force, for an
 * operator who knows it was never applied. A client's letter may become as old since: see
 * {@link keyClaimLapsed}.
 */
export function keptTooOldToTell(letter: DeadLetter): boolean {
  return letter.unmarked === true || letter.envelope.lifeEnded === true;
}

/**
 * Whether, at `now`, the claim that bound the key of this letter's client message to it has
 * lapsed ({@link Envelope.keyHeldUntil}): a message sent under the key since was taken as a new
 * one, under the same id — this one sent again, maybe, and applied. The letter is then as old as
 * one {@link keptTooOldToTell}, and a plain redrive refuses it alike. A letter of an unkeyed
 * message, or one an earlier Baton's door took in, has no claim to lapse.
 *
 * @example
 * keyClaimLapsed(letter, Date.now()); // true: purge it, or force it if you know it was never applied
 */
export function keyClaimLapsed(letter: DeadLetter, now: number): boolean {
  const until = letter.envelope.keyHeldUntil;
  return until !== undefined && now >= until;
}

/**
 * Whether a plain redrive refuses this letter, asking for force: its sender was answered
 * DEAD_LETTERED ({@link answeredSender}), or it was kept as too old to tell whether it was
 * applied ({@link keptTooOldToTell}). Decide about each such letter apart; redrive the others.
 *
 * @example
 * for (const letter of await store.listDeadLetters('account/alice')) {
 *   if (redriveNeedsForce(letter)) continue; // decide about it apart
 *   await redriveDeadLetter(store, queue, letter.actorId, letter.messageId);
 * }
 */
export function redriveNeedsForce(letter: DeadLetter): boolean {
  return wasAnswered(letter) || keptTooOldToTell(letter);
}

/**
 * Whether `letter` was kept in a life of its actor that has ended, `record` being the actor's
 * record now (`undefined`: none, its last life ended): applied, it would change a new life of
 * the actor (an account opened again under the same id) by a message sent to the one that
 * ended. A life ends when the actor halts (the record counts its halts: {@link
 * ActorRecord.timerEpoch}), and when its record expires: a halted one's, or, for an actor that
 * never applied a message (its first was this letter), as a halted one's does. A plain redrive
 * refuses it, in every case. A timer's fire (or an ask's reply) is not: its redrive applies
 * nothing once its actor halted or its life ended (see `redriven`). A letter an earlier Baton
 * kept names no life, and is taken.
 *
 * @example
 * ofEndedLife(letter, await store.load(letter.actorId)); // true: purge it, or force it
 */
export function ofEndedLife(letter: DeadLetter, record: ActorRecord | undefined): boolean {
  if (!letter.life || letter.timer) return false;
  if (record?.life !== letter.life) return true;
  // A letter kept by a Baton before epochs names none: its life alone tells it.
  return letter.epoch !== undefined && (record.timerEpoch ?? 0) !== letter.epoch;
}
