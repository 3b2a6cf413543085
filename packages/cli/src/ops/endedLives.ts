/**
 * Which dead letters were kept in a life of their actor that has ended since (the engine's
 * `ofEndedLife`): a plain redrive refuses them, since applied now they would change the actor's
 * new life. One read of each actor's record, {@link LOADS_AT_ONCE} at a time.
 */
import type { ActorRecord, DeadLetter, Store } from '@baton/core/adapter';
import { ofEndedLife } from '@baton/core/engine';

/** Records read at once: a page of letters of many actors is told in a few round trips. */
const LOADS_AT_ONCE = 16;

export async function ofEndedLives(
  store: Pick<Store, 'load'>,
  letters: readonly DeadLetter[],
): Promise<ReadonlySet<DeadLetter>> {
  // A letter kept before letters named their life, or parked (its actor's life goes on), is
  // taken as before: no read.
  const told = letters.filter((l) => l.life !== undefined && l.parked === undefined);
  const actorIds = [...new Set(told.map((l) => l.actorId))];
  const records = new Map<string, ActorRecord | undefined>();
  for (let i = 0; i < actorIds.length; i += LOADS_AT_ONCE) {
    const batch = actorIds.slice(i, i + LOADS_AT_ONCE);
    const loaded = await Promise.all(batch.map(async (id) => [id, await store.load(id)] as const));
    for (const [id, record] of loaded) records.set(id, record);
  }
  return new Set(told.filter((l) => ofEndedLife(l, records.get(l.actorId))));
}
