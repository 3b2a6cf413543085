/** What the engine's caches (records, outcome pages' keys) share: a Map kept in order of use. */

/**
 * The entry of `key` in `entries`, made the most recently used: moved to the end of the Map,
 * whose first key is then the least recently used, the one a full cache forgets first.
 */
export function recentlyUsed<K, V>(entries: Map<K, V>, key: K): V | undefined {
  const entry = entries.get(key);
  if (entry) {
    entries.delete(key);
    entries.set(key, entry);
  }
  return entry;
}
