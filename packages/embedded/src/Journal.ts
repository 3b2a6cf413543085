/**
 * The journal: how the embedded backend survives a restart. Every state change is one JSON
 * line, appended and synced before the change becomes visible; a new backend replays the lines.
 */

/** One journal line: a JSON object tagged by `t` (`store.*` or `queue.*`). */
export interface JournalEntry {
  readonly t: string;
  readonly [field: string]: unknown;
}

/**
 * Durable, append-only storage of {@link JournalEntry}s. `append` must be durable when it
 * returns and atomic per entry: after a crash, an entry is either replayed whole or not at all.
 *
 * @example
 * const journal = new MemoryJournal();
 * journal.append([{ t: 'note', text: 'hello' }]);
 * journal.replay(); // [{ t: 'note', text: 'hello' }]
 */
export interface Journal {
  /** Appends entries in order; durable when it returns. Throws if nothing could be written. */
  append(entries: readonly JournalEntry[]): void;
  /** Every entry appended (or put by `replace`) so far, oldest first. */
  replay(): JournalEntry[];
  /** Atomically replaces the whole content, e.g. with a snapshot (compaction). */
  replace(entries: readonly JournalEntry[]): void;
  /** Releases files and locks. A closed journal must not be used again. */
  close(): void;
}

/**
 * A journal in memory that outlives the backends using it: create a new backend on the same
 * `MemoryJournal` to "restart the process" in a deterministic simulation without touching disk.
 * Entries are kept as JSON text, so what a restarted backend sees went through JSON exactly
 * as with a {@link FileJournal}.
 *
 * @example
 * const journal = new MemoryJournal();
 * const first = createEmbeddedBackend({ journal });
 * await first.queue.send([{ group: 'a', dedupeId: '1', body: 'hi' }]);
 * const second = createEmbeddedBackend({ journal }); // the message is still there
 */
export class MemoryJournal implements Journal {
  #lines: string[] = [];

  /** The number of entries held. */
  get length(): number {
    return this.#lines.length;
  }

  append(entries: readonly JournalEntry[]): void {
    const lines = entries.map((entry) => JSON.stringify(entry));
    this.#lines.push(...lines);
  }

  replay(): JournalEntry[] {
    return this.#lines.map((line) => JSON.parse(line) as JournalEntry);
  }

  replace(entries: readonly JournalEntry[]): void {
    this.#lines = entries.map((entry) => JSON.stringify(entry));
  }

  /** Does nothing: a memory journal can be reopened by a new backend at any time. */
  close(): void {}
}
