import { BatonError, ErrorCode } from '@baton/core';
import type {
  ActorRecord,
  ChangeFeed,
  Clock,
  Commit,
  DeadLetter,
  IdempotencyRecord,
  KeyClaim,
  OutboxItem,
  OverflowKey,
  OverflowMark,
  PagedOutcome,
  Store,
  StoreLimits,
  Timer,
} from '@baton/core/adapter';
import { systemClock } from '@baton/core/adapter';
import { deepCopy } from '@baton/core/shared';
import { commitEntry } from './commitEntry.ts';
import type { EmbeddedStoreOptions } from './EmbeddedStoreOptions.ts';
import type { Journal, JournalEntry } from './Journal.ts';
import type { ClaimEntry } from './KeyClaims.ts';
import { StoreListeners } from './StoreListeners.ts';
import {
  type EffectsDoneEntry,
  overflowKey,
  type StoreEntry,
  StoreTables,
  unpaged,
} from './StoreTables.ts';
import { resolveLimits } from './storeLimits.ts';
import {
  deleteOutboxEntry,
  heldDrainedEntry,
  outboxActors,
  outboxOf,
  outboxSize,
  retiredHeldEntry,
} from './storeOutbox.ts';
import {
  deadLettersOf,
  dueTimers,
  liveIdempotency,
  nextTimerAt,
  pagedOutcomes,
  timersOf,
} from './storeReads.ts';

export type { EmbeddedStoreOptions } from './EmbeddedStoreOptions.ts';

/**
 * Commits between purges of what expired: at least this many, and at least as many as the store
 * holds outcomes, so that a purge's walk costs a commit the same however much the store holds
 * (what expired reads as absent meanwhile; memory holds at most about twice what is live).
 */
const PURGE_EVERY = 1_000;

/**
 * The in-process {@link Store} and {@link ChangeFeed}, with DynamoDB's transaction semantics:
 * a commit applies whole or not at all, after checking, in this order, the limits
 * (TRANSACTION_TOO_LARGE), the version condition on version and life (VERSION_CONFLICT,
 * carrying the stored record) and the idempotency keys (DUPLICATE, naming every used key).
 * What a commit passes in is kept as it is, not copied (copying each commit took about 8% of an
 * embedded turn): the caller must not change it afterwards, and the engine never does (see
 * {@link EmbeddedStoreOptions.freezeCommits}). Everything read out is a copy, so no reader can
 * change committed state. Change and outcome listeners are called synchronously, in commit
 * order, before `commit` returns, each with copies.
 *
 * @example
 * const store = new EmbeddedStore();
 * store.subscribe((record) => console.log(record.id, record.ver));
 * await store.commit({
 *   expectedVer: 0,
 *   record: { id: 'counter/a', ver: 1, state: { n: 1 }, inboxOffset: '0', marks: {}, sentSeq: 0 },
 *   outbox: [],
 *   idempotency: [],
 * }); // logs "counter/a 1"
 */
export class EmbeddedStore implements Store, ChangeFeed {
  readonly limits: StoreLimits;
  readonly #clock: Clock;
  readonly #journal: Journal | undefined;
  readonly #tables = new StoreTables();
  readonly #listeners: StoreListeners;
  readonly #freeze: boolean;
  #commitsSincePurge = 0;
  #closed = false;

  constructor(options: EmbeddedStoreOptions = {}) {
    this.limits = resolveLimits(options.limits);
    this.#clock = options.clock ?? systemClock;
    this.#journal = options.journal;
    this.#freeze = options.freezeCommits ?? process.env.BATON_FREEZE_COMMITS === '1';
    this.#listeners = new StoreListeners(options.onListenerError);
    for (const entry of this.#journal?.replay() ?? []) {
      if (EmbeddedStore.owns(entry)) this.#tables.apply(entry as StoreEntry);
    }
  }

  /**
   * Whether a journal entry belongs to a store (`store.*`); the others belong to queues.
   *
   * @example
   * EmbeddedStore.owns({ t: 'store.commit' }); // true
   */
  static owns(entry: JournalEntry): boolean {
    return entry.t.startsWith('store.');
  }

  async load(actorId: string): Promise<ActorRecord | undefined> {
    this.#checkOpen();
    const record = this.#tables.records.get(actorId);
    return record && deepCopy(record);
  }

  async commit(commit: Commit): Promise<void> {
    this.#checkOpen();
    const entry = commitEntry(commit, this.#tables, this.limits, this.#clock, this.#freeze);
    this.#journal?.append([entry]);
    this.#tables.apply(entry);
    if (++this.#commitsSincePurge >= Math.max(PURGE_EVERY, this.#tables.idempotency.size)) {
      this.purgeExpired();
    }
    this.#listeners.committed(entry);
  }

  async readOutbox(actorId: string): Promise<OutboxItem[]> {
    this.#checkOpen();
    return outboxOf(this.#tables, actorId);
  }

  async deleteOutbox(
    actorId: string,
    seqs: readonly number[],
    life: string | undefined,
  ): Promise<void> {
    this.#checkOpen();
    const entry = deleteOutboxEntry(this.#tables, actorId, seqs, life);
    if (!entry) return;
    this.#journal?.append([entry]);
    this.#tables.apply(entry);
  }

  async listOutboxActors(olderThan: number): Promise<string[]> {
    this.#checkOpen();
    return outboxActors(this.#tables, olderThan);
  }

  /** The record keeps its own `expiresAt`: a purge deletes it once it holds no sends. */
  async retireHeldOutbox(
    actorId: string,
    ver: number,
    life: string | undefined,
    _expiresAt: number | undefined,
  ): Promise<void> {
    this.#checkOpen();
    const entry = retiredHeldEntry(this.#tables, actorId, ver, life);
    if (!entry) return;
    this.#journal?.append([entry]);
    this.#tables.apply(entry);
    this.#listeners.changed(entry.record!);
  }

  /**
   * Drops the sends the record at `ver` holds, as they were drained: in-process the write is
   * cheap, and a record never keeps sent messages that a later drain would send again. The
   * version stays, so no turn conflicts with it; the change is not a commit, and not pushed.
   */
  async heldDrained(actorId: string, ver: number, life: string | undefined): Promise<void> {
    this.#checkOpen();
    const entry = heldDrainedEntry(this.#tables, actorId, ver, life);
    if (!entry) return;
    this.#journal?.append([entry]);
    this.#tables.apply(entry);
  }

  async readIdempotency(key: string): Promise<IdempotencyRecord | undefined> {
    this.#checkOpen();
    const record = liveIdempotency(this.#tables, this.#clock, key);
    return record && deepCopy(unpaged(record));
  }

  async readPagedOutcomes(actorId: string, sentAt: number, fromPage = 0): Promise<PagedOutcome[]> {
    this.#checkOpen();
    return pagedOutcomes(this.#tables, this.#clock, actorId, sentAt, fromPage);
  }

  async readClaim(key: string): Promise<KeyClaim | undefined> {
    this.#checkOpen();
    const held = this.#tables.claims.live(key, this.#clock.now());
    return held && deepCopy(held);
  }

  async claimKey(claim: KeyClaim): Promise<KeyClaim | undefined> {
    this.#checkOpen();
    const held = this.#tables.claims.live(claim.key, this.#clock.now());
    if (held) return deepCopy(held);
    const entry: ClaimEntry = deepCopy({ t: 'store.claim', claim });
    this.#journal?.append([entry]);
    this.#tables.apply(entry);
    return undefined;
  }

  async readEffectsDone(keys: readonly string[]): Promise<ReadonlySet<string>> {
    this.#checkOpen();
    const now = this.#clock.now();
    return new Set(keys.filter((key) => (this.#tables.effectsDone.get(key) ?? 0) > now));
  }

  async markEffectsDone(keys: readonly string[], expiresAt: number): Promise<void> {
    this.#checkOpen();
    const entry: EffectsDoneEntry = { t: 'store.effectsDone', keys: [...keys], expiresAt };
    this.#journal?.append([entry]);
    this.#tables.apply(entry);
  }

  async readDeadLetter(actorId: string, messageId: string): Promise<DeadLetter | undefined> {
    this.#checkOpen();
    const letter = this.#tables.deadLetters.get(actorId)?.get(messageId);
    return letter && deepCopy(letter);
  }

  async listDeadLetters(actorId?: string): Promise<DeadLetter[]> {
    this.#checkOpen();
    return deadLettersOf(this.#tables, actorId);
  }

  async countDeadLetters(): Promise<number> {
    this.#checkOpen();
    let count = 0;
    for (const letters of this.#tables.deadLetters.values()) {
      for (const letter of letters.values()) if (!letter.applied) count++;
    }
    return count;
  }

  async readOverflow(actorId: string, keys: readonly OverflowKey[]): Promise<OverflowMark[]> {
    this.#checkOpen();
    const marks = this.#tables.overflow.get(actorId);
    const now = this.#clock.now();
    return keys.flatMap((key) => {
      const mark = marks?.get(overflowKey(key));
      return mark && mark.expiresAt > now ? [deepCopy(mark)] : [];
    });
  }

  async readTimer(actorId: string, id: string): Promise<Timer | undefined> {
    this.#checkOpen();
    const timer = this.#tables.timers.get(actorId)?.get(id);
    return timer && deepCopy(timer);
  }

  async listTimers(actorId: string): Promise<Timer[]> {
    this.#checkOpen();
    return timersOf(this.#tables, actorId);
  }

  async listDueTimers(
    before: number,
    limit: number,
    after = Number.NEGATIVE_INFINITY,
  ): Promise<Timer[]> {
    this.#checkOpen();
    return dueTimers(this.#tables, before, limit, after);
  }

  /**
   * When the soonest timer of any actor is due, epoch ms; `undefined` when there is none (a timer
   * kept for a dead-lettered fire is never due). Timers `skip` returns true for are left out.
   */
  nextTimerAt(skip?: (timer: Timer) => boolean): number | undefined {
    return nextTimerAt(this.#tables, skip);
  }

  /** Calls `listener` with every committed actor record, in commit order. Returns unsubscribe. */
  subscribe(listener: (record: ActorRecord) => void): () => void {
    return this.#listeners.subscribe(listener);
  }

  /** Calls `listener` with every timer a commit schedules. Returns unsubscribe. */
  watchTimers(listener: (timer: Timer) => void): () => void {
    return this.#listeners.watchTimers(listener);
  }

  /** Calls `listener` with every committed idempotency record. Returns unsubscribe. */
  watchOutcomes(listener: (record: IdempotencyRecord) => void): () => void {
    return this.#listeners.watchOutcomes(listener);
  }

  /** Every actor record (copies), for tests and tools. */
  records(): ActorRecord[] {
    return [...this.#tables.records.values()].map((record) => deepCopy(record));
  }

  /** The number of outbox items waiting to be drained, over all actors, held or apart. */
  outboxSize(): number {
    return outboxSize(this.#tables);
  }

  /** Every unexpired idempotency record (copies). */
  idempotencyRecords(): IdempotencyRecord[] {
    const now = this.#clock.now();
    return [...this.#tables.idempotency.values()]
      .filter((record) => record.expiresAt > now)
      .map((record) => deepCopy(unpaged(record)));
  }

  /**
   * Drops expired idempotency records, key claims, marks and effect done-marks from memory (they
   * already read as absent), and the records of halted actors past their `expiresAt`, as
   * DynamoDB's TTL deletes them.
   */
  purgeExpired(): void {
    this.#commitsSincePurge = 0;
    this.#tables.purge(this.#clock.now());
  }

  /** The live state as journal entries, to compact a journal. */
  snapshot(): JournalEntry[] {
    this.purgeExpired();
    return this.#tables.snapshot();
  }

  /** Rejects every later call with UNAVAILABLE. Does not close the journal. */
  close(): void {
    this.#closed = true;
  }

  #checkOpen(): void {
    if (this.#closed) {
      throw new BatonError(ErrorCode.UNAVAILABLE, 'the embedded store is closed');
    }
  }
}
