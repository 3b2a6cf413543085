import type { Clock } from '@baton/core/adapter';
import { EmbeddedQueue } from './EmbeddedQueue.ts';
import { EmbeddedStore } from './EmbeddedStore.ts';
import type { Journal, JournalEntry } from './Journal.ts';

/**
 * The live state of `entries` as fewer entries: the store's records, outbox and unexpired
 * idempotency records; each queue's messages, dead letters, sequence counter and dedupe ids
 * within `dedupeWindowMs`. Entries neither a store nor a queue wrote are kept as they are.
 */
export function snapshotEntries(
  entries: readonly JournalEntry[],
  clock: Clock,
  dedupeWindowMs: number,
): JournalEntry[] {
  const queueNames = new Set<string>();
  const others: JournalEntry[] = [];
  for (const entry of entries) {
    if (EmbeddedStore.owns(entry)) continue;
    if (entry.t.startsWith('queue.') && typeof entry.q === 'string') queueNames.add(entry.q);
    else others.push(entry);
  }
  const journal = replayOnly(entries);
  const store = new EmbeddedStore({ journal, clock });
  const queues = [...queueNames].map(
    (name) => new EmbeddedQueue({ journal, clock, name, dedupeWindowMs }),
  );
  return [...others, ...store.snapshot(), ...queues.flatMap((queue) => queue.snapshot())];
}

/**
 * Replaces the journal's content with a snapshot when it has more than `threshold` entries and
 * the snapshot is less than half as long; a `threshold` of 0 replaces it whatever the snapshot
 * saves (simulations restart from snapshots so). Returns the entries the journal holds afterwards.
 */
export function compactJournal(
  journal: Journal,
  entries: JournalEntry[],
  options: { readonly threshold: number; readonly clock: Clock; readonly dedupeWindowMs: number },
): JournalEntry[] {
  if (entries.length <= options.threshold) return entries;
  const snapshot = snapshotEntries(entries, options.clock, options.dedupeWindowMs);
  if (options.threshold > 0 && snapshot.length * 2 > entries.length) return entries;
  journal.replace(snapshot);
  // Reread: the snapshot objects are shared with the throwaway store and queues above.
  return journal.replay();
}

/** A journal that replays `entries` and writes nowhere: to rebuild state from entries. */
function replayOnly(entries: readonly JournalEntry[]): Journal {
  return {
    append: () => {},
    replay: () => [...entries],
    replace: () => {},
    close: () => {},
  };
}
