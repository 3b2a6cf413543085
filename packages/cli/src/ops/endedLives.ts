/**
 * Which dead letters were kept in a life of their actor that has ended since (the engine's
 * `ofEndedLife`): a plain redrive refuses them, since applied now they would change the actor's
 * new life. One read of each actor's record.
 */
import type { ActorRecord, DeadLetter, Store } from '@baton/core/adapter';
import { ofEndedLife } from '@baton/core/engine';

export async function ofEndedLives(
  store: Pick<Store, 'load'>,
  letters: readonly DeadLetter[],
): Promise<ReadonlySet<DeadLetter>> {
  const records = new Map<string, Promise<ActorRecord | undefined>>();
  const ended = new Set<DeadLetter>();
  for (const letter of letters) {
    if (letter.life === undefined || letter.parked !== undefined) continue;
    let record = records.get(letter.actorId);
    if (!record) {
      record = store.load(letter.actorId);
      records.set(letter.actorId, record);
    }
    if (ofEndedLife(letter, await record)) ended.add(letter);
  }
  return ended;
}
