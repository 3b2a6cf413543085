import { jsonSize } from '../adapter/conflicts.ts';
import type { Commit } from '../adapter/ports.ts';
import type { ActorRecord, Timer } from '../adapter/storedRecords.ts';
import { asJson } from './asJson.ts';
import { recentlyUsed } from './recentlyUsed.ts';

interface Entry {
  readonly record: ActorRecord;
  /** The JSON size of the record and its known timers, counted against the byte budget. */
  readonly bytes: number;
  /** Another worker commits for this actor too: its record here was found stale. */
  readonly shared: boolean;
  /** Timers known to be stored at this record's version (see {@link RecordCache.committed}). */
  readonly timers?: ReadonlyMap<string, Timer>;
}

/**
 * The JSON bytes of records (and their known timers) a cache keeps by default: records of up to
 * 400 KB (DynamoDB's item limit) would otherwise fill a Lambda's memory long before 1,000 of
 * them, and a record takes some times its JSON size in memory.
 */
export const DEFAULT_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * Timers kept known per actor at most, the latest put first kept: one not known is read, so
 * an actor with many pending timers costs memory for these only.
 */
export const MAX_KNOWN_TIMERS = 32;

/**
 * The warm worker's cache of actor records (GEO): a hit saves the load, and the commit's version
 * condition catches a stale entry, so the cache never needs invalidating from outside.
 * Least-recently-used entries go first, past a count of records or a budget of their JSON bytes
 * (the one entry just kept stays, whatever its size).
 *
 * A hot actor whose turns run in several workers (an SQS message group goes to any Lambda
 * container) would find its entry stale in most turns, and pay a failed commit each time: more
 * than a read. So an entry a commit found stale is marked shared, and a turn reads the store's
 * record instead ({@link trusted}) until a read finds the entry was current after all.
 *
 * An entry also knows some of the actor's stored timers — those this worker's own commits put
 * — so that a reply to an ask, or a timer's fire, finds its timer without a read
 * ({@link knownTimer}).
 */
export class RecordCache {
  readonly #entries = new Map<string, Entry>();
  readonly #capacity: number;
  readonly #maxBytes: number;
  #bytes = 0;

  constructor(capacity: number, maxBytes = DEFAULT_CACHE_BYTES) {
    this.#capacity = capacity;
    this.#maxBytes = maxBytes;
  }

  /** The JSON bytes of what the cache keeps. */
  get bytes(): number {
    return this.#bytes;
  }

  get(actorId: string): ActorRecord | undefined {
    return recentlyUsed(this.#entries, actorId)?.record;
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
   * Keeps `record`, which this worker's commit of `timers` wrote over `from`, with the timers
   * known stored at its version: those known at `from` (if the entry held that version) and
   * those the commit put, less those it removed. Timers change only in the actor's commits,
   * each on the version before it, so while the versions follow one another through this
   * worker's commits, what it put is what is stored. `bytes`: the record's JSON size, if the
   * commit measured it.
   */
  committed(
    record: ActorRecord,
    from: ActorRecord,
    timers: Commit['timers'],
    bytes?: number,
  ): void {
    const held = this.#entries.get(record.id);
    const before = held && sameVersion(held.record, from) ? held.timers : undefined;
    let known: Map<string, Timer> | undefined;
    if (before || timers) {
      known = new Map(before);
      for (const id of timers?.remove ?? []) known.delete(id);
      for (const timer of timers?.put ?? []) {
        known.delete(timer.id);
        // A timer kept for its dead-lettered fire waits for a redrive, which reads it.
        if (!timer.deadLettered) known.set(timer.id, timer);
      }
      for (const id of known.keys()) {
        if (known.size <= MAX_KNOWN_TIMERS) break;
        known.delete(id);
      }
    }
    this.#put(record, held?.shared ?? false, known?.size ? known : undefined, bytes);
  }

  /**
   * Timer `id` as stored at version `ver` of the actor's life `life`, if this worker knows it
   * ({@link committed}); `undefined` says nothing of whether it is stored. A copy, as a read
   * would give: its payload reaches a handler, which may change it and then fail.
   */
  knownTimer(
    actorId: string,
    ver: number,
    life: string | undefined,
    id: string,
  ): Timer | undefined {
    const held = this.#entries.get(actorId);
    if (held?.record.ver !== ver || held.record.life !== life) return undefined;
    const timer = held.timers?.get(id);
    return timer && { ...timer, payload: asJson(timer.payload) };
  }

  /**
   * Keeps `record` as read from the store: if the entry it replaces held the same version, no
   * other worker committed meanwhile, and the entry is trusted again.
   */
  read(record: ActorRecord): void {
    const held = this.#entries.get(record.id);
    const current = held !== undefined && sameVersion(held.record, record);
    this.#put(
      record,
      held !== undefined && !current && held.shared,
      current ? held.timers : undefined,
    );
  }

  /** A commit on the entry of `actorId` failed on its version: `current` is the store's record. */
  stale(actorId: string, current: ActorRecord | undefined): void {
    this.delete(actorId);
    if (current) this.#put(current, true);
  }

  delete(actorId: string): void {
    const held = this.#entries.get(actorId);
    if (!held) return;
    this.#entries.delete(actorId);
    this.#bytes -= held.bytes;
  }

  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
  }

  #put(
    record: ActorRecord,
    shared: boolean,
    timers?: ReadonlyMap<string, Timer>,
    recordBytes = jsonSize(record),
  ): void {
    if (this.#capacity <= 0 || this.#maxBytes <= 0) return;
    this.delete(record.id);
    let bytes = recordBytes;
    if (timers) for (const timer of timers.values()) bytes += jsonSize(timer);
    this.#entries.set(
      record.id,
      timers ? { record, bytes, shared, timers } : { record, bytes, shared },
    );
    this.#bytes += bytes;
    if (this.#entries.size <= this.#capacity && this.#bytes <= this.#maxBytes) return;
    // The oldest go first; the entry just kept stays.
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.#capacity && this.#bytes <= this.#maxBytes) break;
      if (oldest === record.id) break;
      this.delete(oldest);
    }
  }
}

/** Whether `a` and `b` are the same version of the same life of an actor. */
function sameVersion(a: ActorRecord, b: ActorRecord): boolean {
  return a.ver === b.ver && a.life === b.life;
}
