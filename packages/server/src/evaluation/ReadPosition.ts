import type { ActorRecord } from '@baton/core/adapter';

/**
 * Where a query's read found an actor: its record's version, and the life that version
 * belongs to ({@link ActorRecord.life}). Versions start again at 1 in each life of an actor
 * (after `ctx.halt()` and the record's deletion), so a version alone does not order commits.
 *
 * @example
 * const read: ReadPosition = { ver: 6, life: 'k3x9q0m2a7bz' };
 */
export interface ReadPosition {
  /** The record's `ver`; 0 when no record was stored. */
  readonly ver: number;
  /** The record's life; absent for no record, or a record written before lives existed. */
  readonly life?: string;
}

/**
 * The position of `record` (of no record: version 0).
 *
 * @example
 * positionOf(await store.load('account/alice')); // { ver: 3, life: 'k3x9q0m2a7bz' }
 */
export function positionOf(record: Pick<ActorRecord, 'ver' | 'life'> | undefined): ReadPosition {
  if (!record) return { ver: 0 };
  return record.life === undefined ? { ver: record.ver } : { ver: record.ver, life: record.life };
}

/**
 * Whether a commit at `seen` is one a read at `read` did not see: a later version of the same
 * life, or any version of another life. Lives have no order, so a late copy of an older life's
 * commit counts as moved too: it costs one needless re-run, never a missed one.
 *
 * @example
 * movedPast({ ver: 1, life: 'new' }, { ver: 6, life: 'old' }); // true: a new life
 * movedPast({ ver: 6, life: 'old' }, { ver: 6, life: 'old' }); // false
 */
export function movedPast(seen: ReadPosition, read: ReadPosition): boolean {
  if (seen.ver === 0) return false;
  return seen.ver > read.ver || seen.life !== read.life;
}

/**
 * Whether two reads found the same commit.
 *
 * @example
 * samePosition({ ver: 2, life: 'a' }, { ver: 2, life: 'a' }); // true
 */
export function samePosition(a: ReadPosition | undefined, b: ReadPosition | undefined): boolean {
  return a?.ver === b?.ver && a?.life === b?.life;
}

/**
 * `seen` with the commit at `at` added, keeping the newest version of each life: the commits a
 * read in flight (or a batch of the change feed) must be compared with.
 *
 * @example
 * withNewest([{ ver: 2, life: 'a' }], { ver: 3, life: 'a' }); // [{ ver: 3, life: 'a' }]
 */
export function withNewest(seen: readonly ReadPosition[], at: ReadPosition): ReadPosition[] {
  const same = seen.find((p) => p.life === at.life);
  const others = seen.filter((p) => p !== same);
  return [...others, same && same.ver > at.ver ? same : at];
}
