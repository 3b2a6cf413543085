import type { WarmEntries } from '../contextSlots.ts';

/**
 * A worker's memory of live objects a handler leaves for the actor's next turn (a workflow's
 * suspended run), least recently used first out. A handler takes its entry out as it starts and
 * puts one back as it ends, so two handlings of one actor never share an entry; whoever puts an
 * entry back must be able to tell, next time, whether the committed record is still the one it
 * left (the entry is only a hint). A worker keeps the record versions it drained in one too.
 */
export class WarmCache<T = unknown> implements WarmEntries {
  readonly #entries = new Map<string, T>();
  readonly #capacity: number;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  /** Removes and returns the entry of `key`. */
  take(key: string): T | undefined {
    const value = this.#entries.get(key);
    this.#entries.delete(key);
    return value;
  }

  put(key: string, value: T): void {
    if (this.#capacity <= 0) return;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.#capacity) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
  }

  get size(): number {
    return this.#entries.size;
  }
}
