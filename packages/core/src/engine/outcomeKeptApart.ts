/**
 * A retry's outcome brought where a client finds it. A client reads an ingress message's
 * outcome through its actor's newest pages only (`OUTCOME_READ_MAX_PAGES`): one request must
 * not make the store read every page a busy actor wrote since the send. A retry whose first
 * send's outcome lies further back is therefore enqueued again; the actor skips the copy, as it
 * finds the outcome in a closed page, and commits that outcome again as an item of its own (as a
 * redrive's is), which a read takes first, at once, and which the store's change feed pushes to
 * whoever waits for it. The outcome is the same, and keeps its expiry.
 */
import type { TurnStore } from '../adapter/ports.ts';
import type { ActorRecord, IdempotencyRecord } from '../adapter/storedRecords.ts';

/** The outcome of ingress message `key` to keep apart, if it is still live. */
export async function outcomeKeptApart(
  store: TurnStore,
  record: ActorRecord,
  key: string,
  sentAt: number,
): Promise<IdempotencyRecord | undefined> {
  const outcome = await store.readIdempotency(key, sentAt);
  return outcome?.actorId === record.id ? outcome : undefined;
}
