/**
 * The shared empty collections a `CommitBuilder` starts its lists, maps and sets as: most commits
 * hold no dead letter, mark or timer, so none is made until something is written.
 */

/** An empty list, shared: only read. */
export const NONE: readonly never[] = [];

/** An empty map and set, shared: never written (see {@link writable}). */
export const EMPTY_MAP: ReadonlyMap<never, never> = new Map<never, never>();
export const EMPTY_SET: ReadonlySet<never> = new Set<never>();

/** `collection` to write to: a new one in place of the shared empty one. */
export function writable<K, V>(collection: ReadonlyMap<K, V>): Map<K, V>;
export function writable<K>(collection: ReadonlySet<K>): Set<K>;
export function writable<K, V>(collection: ReadonlyMap<K, V> | ReadonlySet<K>): Map<K, V> | Set<K> {
  if (collection === EMPTY_MAP) return new Map();
  if (collection === EMPTY_SET) return new Set();
  return collection as Map<K, V> | Set<K>;
}
