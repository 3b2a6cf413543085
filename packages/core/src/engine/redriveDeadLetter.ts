import { encodeEnvelope } from '../adapter/envelope.ts';
import type { Queue, Store } from '../adapter/ports.ts';
import { BatonError, ErrorCode } from '../errors.ts';
import { parkedLetterRefused } from './parking.ts';

/**
 * Sends a dead letter back to its actor's inbox, once its cause is fixed. The actor applies it
 * exactly once, in its own turn, and forgets the dead letter in the same commit; redriving
 * twice, or a redelivered copy, applies nothing more (the letter of a message of a sender's
 * ended life stays, as the proof that it was applied). The message is applied after the
 * messages that reached the actor since it was dead-lettered (channel order does not hold
 * across a redrive). If it fails again it becomes a dead letter again.
 *
 * @example
 * for (const letter of await store.listDeadLetters('account/alice')) {
 *   await redriveDeadLetter(store, queue, letter.actorId, letter.messageId);
 * }
 */
export async function redriveDeadLetter(
  store: Store,
  queue: Queue,
  actorId: string,
  messageId: string,
): Promise<void> {
  const letter = await store.readDeadLetter(actorId, messageId);
  if (letter?.parked !== undefined) throw parkedLetterRefused(letter, 'redrive');
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
  const envelope = { ...letter.envelope, redrive: letter.at };
  await queue.send([
    {
      group: actorId,
      // Its own namespace: never equal to an actor message id or an ingress id.
      dedupeId: `redrive:${letter.at}:${messageId}`,
      body: encodeEnvelope(envelope),
    },
  ]);
}
