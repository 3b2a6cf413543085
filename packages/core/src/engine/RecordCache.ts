import type { ActorRecord } from '../adapter/ports.ts';

interface Entry {
  readonly record: ActorRecord;
  /** Another worker commits for this actor too: its record here was found stale. */
  readonly shared: boolean;
}

/**
 * The warm worker's cache of actor records (GEO): a hit saves the load, and the commit's version
 * condition catches a stale entry, so the cache never needs invalidating from outside.
 * Least-recently-used entries go first.
 *
 * A hot actor whose turns run in several workers (an SQS message group goes to any Lambda
 * container) would find its entry stale in most turns, and pay a failed commit each time: more
 * than a read. So an entry a commit found stale is marked shared, and a turn reads the store's
 * record instead ({@link trusted}) until a read finds the entry was current after all.
 */
export class RecordCache {
  readonly #entries = new Map<string, Entry>();
  readonly #capacity: number;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  get(actorId: string): ActorRecord | undefined {
    const entry = this.#entries.get(actorId);
    if (entry) {
      this.#entries.delete(actorId);
      this.#entries.set(actorId, entry);
    }
    return entry?.record;
  }

  /** The record of `actorId`, unless another worker commits for it too (read it instead). */
  trusted(actorId: string): ActorRecord | undefined {
    return this.#entries.get(actorId)?.shared ? undefined : this.get(actorId);
  }

  /** Keeps `record`, as shared as the entry it replaces. */
  set(record: ActorRecord): void {
    this.#put(record, this.#entries.get(record.id)?.shared ?? false);
  }

  /**
   * Keeps `record` as read from the store: if the entry it replaces held the same version, no
   * other worker committed meanwhile, and the entry is trusted again.
   */
  read(record: ActorRecord): void {
    const held = this.#entries.get(record.id);
    const current = held?.record.ver === record.ver && held.record.life === record.life;
    this.#put(record, held !== undefined && !current && held.shared);
  }

  /** A commit on the entry of `actorId` failed on its version: `current` is the store's record. */
  stale(actorId: string, current: ActorRecord | undefined): void {
    this.#entries.delete(actorId);
    if (current) this.#put(current, true);
  }

  delete(actorId: string): void {
    this.#entries.delete(actorId);
  }

  clear(): void {
    this.#entries.clear();
  }

  #put(record: ActorRecord, shared: boolean): void {
    if (this.#capacity <= 0) return;
    this.#entries.delete(record.id);
    this.#entries.set(record.id, { record, shared });
    if (this.#entries.size > this.#capacity) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
  }
}
