/**
 * The kept letters of a timer's fire (or an ask's reply) that apply nothing when redriven — or,
 * parked at a paused actor, when it is resumed: the scheduling of the timer the letter names is
 * no longer stored, as the engine's redrive admission reads it (`redriven`, admitMessage.ts).
 * Such a redrive (or resume) forgets the letter and runs no handler; the commands say so rather
 * than promise that it is applied.
 */
import type { ActorRecord, DeadLetter, Store } from '@baton/core/adapter';
import { isVoid } from '@baton/core/engine';

/**
 * Why a letter's fire applies nothing: its timer was cancelled (no longer stored), scheduled
 * anew since (another scheduling of its id), or voided by a halt of the actor.
 */
export type VoidFire = 'timerCancelled' | 'timerScheduledAnew' | 'timerVoidedByHalt';

/** What each {@link VoidFire} says, after "its fire applies nothing: ". */
export const VOID_FIRE_TEXT: Readonly<Record<VoidFire, string>> = {
  timerCancelled: 'its timer was cancelled',
  timerScheduledAnew: 'its timer was scheduled anew since',
  timerVoidedByHalt: 'its timer was voided by a halt of the actor',
};

/**
 * Why `letter` applies nothing when redriven (or resumed), as its timer stands now; `undefined`
 * for a letter of no timer, or one whose timer is stored for it still.
 */
export async function voidFire(
  store: Pick<Store, 'readTimer' | 'load'>,
  letter: DeadLetter,
): Promise<VoidFire | undefined> {
  return (await voidFires(store, [letter])).get(letter);
}

/**
 * {@link voidFire} of each of `letters` that holds a timer's fire: each timer read once, each
 * actor's record once, and only for the letters of a timer.
 */
export async function voidFires(
  store: Pick<Store, 'readTimer' | 'load'>,
  letters: readonly DeadLetter[],
): Promise<Map<DeadLetter, VoidFire>> {
  const fires = letters.filter((l) => l.timer !== undefined);
  const records = new Map<string, Promise<ActorRecord | undefined>>();
  const recordOf = (actorId: string) => {
    const known = records.get(actorId);
    if (known) return known;
    const record = store.load(actorId);
    records.set(actorId, record);
    return record;
  };
  const found = await Promise.all(
    fires.map(async (letter) => {
      const { id, gen } = letter.timer!;
      const timer = await store.readTimer(letter.actorId, id);
      if (!timer) return 'timerCancelled' as const;
      if (timer.gen !== gen) return 'timerScheduledAnew' as const;
      const record = await recordOf(letter.actorId);
      return record && isVoid(record, timer) ? ('timerVoidedByHalt' as const) : undefined;
    }),
  );
  const voids = new Map<DeadLetter, VoidFire>();
  fires.forEach((letter, i) => {
    const why = found[i];
    if (why) voids.set(letter, why);
  });
  return voids;
}
