import type { ActorRecord } from '../adapter/ports.ts';

/**
 * The warm worker's cache of actor records (GEO): a hit saves the load, and the commit's version
 * condition catches a stale entry, so the cache never needs invalidating from outside.
 * Least-recently-used entries go first.
 */
export class RecordCache {
  readonly #entries = new Map<string, ActorRecord>();
  readonly #capacity: number;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  get(actorId: string): ActorRecord | undefined {
    const record = this.#entries.get(actorId);
    if (record) {
      this.#entries.delete(actorId);
      this.#entries.set(actorId, record);
    }
    return record;
  }

  set(record: ActorRecord): void {
    if (this.#capacity <= 0) return;
    this.#entries.delete(record.id);
    this.#entries.set(record.id, record);
    if (this.#entries.size > this.#capacity) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
  }

  delete(actorId: string): void {
    this.#entries.delete(actorId);
  }

  clear(): void {
    this.#entries.clear();
  }
}
