import { encodeEnvelope, messageGroup } from '../adapter/envelope.ts';
import type { OutboxItem, Queue, QueueMessage, Store } from '../adapter/ports.ts';

/**
 * Moves an actor's committed outbox into its targets' inboxes (DESIGN step 5): every item, in
 * sequence order, then deletes them. Always the whole outbox from its oldest item, so a message
 * can never overtake an earlier one to the same target (I3). Re-sending after a crash is safe:
 * the queue drops the copy within its dedupe window, the target's sender mark after it.
 *
 * A queue may accept part of a send (SQS answers per entry), so each `send` holds at most one
 * message per target: a later message to a target goes out only once every earlier one was
 * accepted, and a failed send leaves each target's accepted messages a prefix of its channel.
 *
 * `inHand`: the items a turn just committed, when the caller knows the outbox holds nothing
 * older (see `Worker`): they are drained without reading the outbox back.
 *
 * @returns how many envelopes were sent
 */
export async function drainOutbox(
  store: Store,
  queue: Queue,
  actorId: string,
  inHand?: readonly OutboxItem[],
): Promise<number> {
  const items = inHand ?? (await store.readOutbox(actorId));
  if (items.length === 0) return 0;
  const messages = items.flatMap((item) =>
    item.envelopes.map((envelope) => ({
      group: messageGroup(envelope),
      dedupeId: envelope.id,
      body: encodeEnvelope(envelope),
    })),
  );
  for (const round of rounds(messages)) await queue.send(round);
  await store.deleteOutbox(
    actorId,
    items.map((item) => item.seq),
  );
  return messages.length;
}

/** Splits messages into sends of at most one message per group, keeping each group's order. */
export function rounds(messages: readonly QueueMessage[]): QueueMessage[][] {
  const result: QueueMessage[][] = [];
  const next = new Map<string, number>();
  for (const message of messages) {
    const index = next.get(message.group) ?? 0;
    next.set(message.group, index + 1);
    if (index === result.length) result.push([]);
    result[index]!.push(message);
  }
  return result;
}
