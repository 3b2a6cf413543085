import { encodeEnvelope } from '../envelope.ts';
import type { Queue, Store } from '../ports.ts';

/**
 * Moves an actor's committed outbox into its targets' inboxes (DESIGN step 5): every item, in
 * sequence order, then deletes them. Always the whole outbox from its oldest item, so a message
 * can never overtake an earlier one to the same target (I3). Re-sending after a crash is safe:
 * the queue drops the copy within its dedupe window, the target's sender mark after it.
 *
 * @returns how many envelopes were sent
 */
export async function drainOutbox(store: Store, queue: Queue, actorId: string): Promise<number> {
  const items = await store.readOutbox(actorId);
  if (items.length === 0) return 0;
  const messages = items.flatMap((item) =>
    item.envelopes.map((envelope) => ({
      group: envelope.to,
      dedupeId: envelope.id,
      body: encodeEnvelope(envelope),
    })),
  );
  await queue.send(messages);
  await store.deleteOutbox(
    actorId,
    items.map((item) => item.seq),
  );
  return messages.length;
}
