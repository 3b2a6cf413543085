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
import { checkCommit, duplicateKeys, systemClock, versionConflict } from '@baton/core/adapter';
import { deepCopy, type Writable } from '@baton/core/shared';
import { deepFreeze } from './deepFreeze.ts';
import type { Journal, JournalEntry } from './Journal.ts';
import type { ClaimEntry } from './KeyClaims.ts';
import { Notifier } from './Notifier.ts';
import {
  type CommitEntry,
  type DeleteOutboxEntry,
  type EffectsDoneEntry,
  type HeldDrainedEntry,
  outboxKey,
  overflowKey,
  type StoreEntry,
  StoreTables,
  unpaged,
} from './StoreTables.ts';
import { resolveLimits } from './storeLimits.ts';

/** Options of an {@link EmbeddedStore}. */
export interface EmbeddedStoreOptions {
  /** Transaction limits; the ones not given are DynamoDB's (100 items, 4 MB, 400 KB per item). */
  readonly limits?: Partial<StoreLimits>;
  /** Decides when idempotency records expire. Default: the system clock. */
  readonly clock?: Clock;
  /** Where commits are made durable and replayed from on start. Default: none (memory only). */
  readonly journal?: Journal;
  /** Called when a change or outcome listener throws (the commit stays done). Default: console.error. */
  readonly onListenerError?: (error: unknown) => void;
  /**
   * Freezes what a commit passes in, which the store keeps as it is: code that changes a
   * committed object afterwards throws instead of changing the store. It also measures every
   * commit whole, and throws where the engine measured a size otherwise (`Commit.measured`).
   * It costs walks of every commit, so it is for tests. Default: on when the environment
   * variable `BATON_FREEZE_COMMITS` is `1` (Baton's own test suite sets it).
   */
  readonly freezeCommits?: boolean;
}

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
  readonly #changes: Notifier<ActorRecord>;
  readonly #outcomes: Notifier<IdempotencyRecord>;
  readonly #timersPut: Notifier<Timer>;
  readonly #freeze: boolean;
  #commitsSincePurge = 0;
  #closed = false;

  constructor(options: EmbeddedStoreOptions = {}) {
    this.limits = resolveLimits(options.limits);
    this.#clock = options.clock ?? systemClock;
    this.#journal = options.journal;
    this.#freeze = options.freezeCommits ?? process.env.BATON_FREEZE_COMMITS === '1';
    const onError =
      options.onListenerError ??
      ((error: unknown) => console.error('@baton/embedded: a store listener threw', error));
    this.#changes = new Notifier((record) => deepCopy(record), onError);
    this.#outcomes = new Notifier((record) => deepCopy(record), onError);
    this.#timersPut = new Notifier((timer) => deepCopy(timer), onError);
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
    checkCommit(commit, this.limits, { verifyMeasured: this.#freeze });
    const { record, expectedVer } = commit;
    const current = this.#tables.records.get(record.id);
    // A record of another life at the same version is not the one the turn read.
    if ((current?.ver ?? 0) !== expectedVer || (current && current.life !== record.life)) {
      throw versionConflict(record.id, current && deepCopy(current));
    }
    // Only `idempotency` is put-if-absent; `replaceIdempotency` overwrites (a redrive's outcome).
    const used: string[] = [];
    for (const { key } of commit.idempotency) if (this.#liveIdempotency(key)) used.push(key);
    // A page, like DynamoDB's page item, knows only its own outcomes.
    const page = commit.outcomes && this.#tables.pages.get(record.id)?.get(commit.outcomes.page);
    for (const { key } of commit.outcomes?.records ?? []) {
      if (page?.keys.has(key) && this.#liveIdempotency(key)) used.push(key);
    }
    if (used.length > 0) throw duplicateKeys(used);

    // An absent part is an undefined field, which the journal's JSON leaves out. Built field by
    // field: every commit makes one, and spreads of optional parts cost more than the rest.
    const replaced = commit.replaceIdempotency;
    const entry: Writable<CommitEntry> = {
      t: 'store.commit',
      record,
      outbox: commit.outbox,
      idempotency: replaced?.length ? [...commit.idempotency, ...replaced] : commit.idempotency,
      deadLetters: commit.deadLetters,
      timers: commit.timers,
    };
    if (commit.outcomes?.records.length) entry.outcomes = commit.outcomes;
    if (commit.overflow?.length) entry.overflow = commit.overflow;
    if (this.#freeze) deepFreeze(entry);
    this.#journal?.append([entry]);
    this.#tables.apply(entry);
    if (++this.#commitsSincePurge >= Math.max(PURGE_EVERY, this.#tables.idempotency.size)) {
      this.purgeExpired();
    }
    this.#changes.emit(entry.record!);
    for (const outcome of entry.idempotency) this.#outcomes.emit(outcome);
    if (this.#outcomes.size > 0) {
      for (const outcome of entry.outcomes?.records ?? []) this.#outcomes.emit(unpaged(outcome));
    }
    for (const timer of entry.timers?.put ?? []) {
      if (!timer.deadLettered) this.#timersPut.emit(timer);
    }
  }

  async readOutbox(actorId: string): Promise<OutboxItem[]> {
    this.#checkOpen();
    const items = [...(this.#tables.outbox.get(actorId)?.values() ?? [])];
    return items.sort((a, b) => a.seq - b.seq).map((item) => deepCopy(item));
  }

  async deleteOutbox(
    actorId: string,
    seqs: readonly number[],
    life: string | undefined,
  ): Promise<void> {
    this.#checkOpen();
    const items = this.#tables.outbox.get(actorId);
    const present = [...new Set(seqs)].filter((seq) => items?.has(outboxKey(seq, life)));
    if (present.length === 0) return;
    const entry: DeleteOutboxEntry = {
      t: 'store.deleteOutbox',
      actorId,
      seqs: present,
      ...(life === undefined ? {} : { life }),
    };
    this.#journal?.append([entry]);
    this.#tables.apply(entry);
  }

  async listOutboxActors(olderThan: number): Promise<string[]> {
    this.#checkOpen();
    const oldest = new Map<string, number>();
    const see = (actorId: string, item: OutboxItem) => {
      if (
        item.createdAt < olderThan &&
        item.createdAt < (oldest.get(actorId) ?? Number.POSITIVE_INFINITY)
      ) {
        oldest.set(actorId, item.createdAt);
      }
    };
    for (const record of this.#tables.records.values()) {
      for (const item of record.outbox ?? []) see(record.id, item);
    }
    for (const [actorId, items] of this.#tables.outbox) {
      for (const item of items.values()) see(actorId, item);
    }
    return [...oldest].sort((a, b) => a[1] - b[1]).map(([actorId]) => actorId);
  }

  /** The record keeps its own `expiresAt`: a purge deletes it once it holds no sends. */
  async retireHeldOutbox(
    actorId: string,
    ver: number,
    life: string | undefined,
    _expiresAt: number | undefined,
  ): Promise<void> {
    this.#checkOpen();
    const current = this.#tables.records.get(actorId);
    if (current?.ver !== ver || current.life !== life || !current.outbox) return;
    const { outbox: _held, outboxApart: _apart, ...rest } = current;
    const entry: CommitEntry = {
      t: 'store.commit',
      record: { ...rest, ver: ver + 1 },
      outbox: [],
      idempotency: [],
    };
    this.#journal?.append([entry]);
    this.#tables.apply(entry);
    this.#changes.emit(entry.record!);
  }

  /**
   * Drops the sends the record at `ver` holds, as they were drained: in-process the write is
   * cheap, and a record never keeps sent messages that a later drain would send again. The
   * version stays, so no turn conflicts with it; the change is not a commit, and not pushed.
   */
  async heldDrained(actorId: string, ver: number, life: string | undefined): Promise<void> {
    this.#checkOpen();
    const record = this.#tables.records.get(actorId);
    if (record?.ver !== ver || record.life !== life || !record.outbox) return;
    const entry: HeldDrainedEntry = { t: 'store.heldDrained', actorId, ver, life };
    this.#journal?.append([entry]);
    this.#tables.apply(entry);
  }

  async readIdempotency(key: string): Promise<IdempotencyRecord | undefined> {
    this.#checkOpen();
    const record = this.#liveIdempotency(key);
    return record && deepCopy(unpaged(record));
  }

  async readPagedOutcomes(actorId: string, sentAt: number, fromPage = 0): Promise<PagedOutcome[]> {
    this.#checkOpen();
    const found: PagedOutcome[] = [];
    for (const [number, page] of this.#tables.pages.get(actorId) ?? []) {
      if (number < fromPage || page.sentAt < sentAt) continue;
      for (const [key, at] of page.keys) {
        const record = this.#liveIdempotency(key);
        if (record) found.push({ ...deepCopy(record), sentAt: at });
      }
    }
    return found;
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
    const lists =
      actorId === undefined
        ? [...this.#tables.deadLetters.values()]
        : [this.#tables.deadLetters.get(actorId)];
    return lists
      .flatMap((letters) => [...(letters?.values() ?? [])])
      .filter((letter) => !letter.applied)
      .sort((a, b) => a.at - b.at)
      .map((letter) => deepCopy(letter));
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
    return soonestFirst([...(this.#tables.timers.get(actorId)?.values() ?? [])]);
  }

  async listDueTimers(
    before: number,
    limit: number,
    after = Number.NEGATIVE_INFINITY,
  ): Promise<Timer[]> {
    this.#checkOpen();
    const due = [...this.#tables.timers.values()].flatMap((timers) =>
      [...timers.values()].filter(
        (timer) => timer.at <= before && timer.at > after && !timer.deadLettered,
      ),
    );
    return soonestFirst(due).slice(0, limit);
  }

  /**
   * When the soonest timer of any actor is due, epoch ms; `undefined` when there is none (a timer
   * kept for a dead-lettered fire is never due). Timers `skip` returns true for are left out.
   */
  nextTimerAt(skip?: (timer: Timer) => boolean): number | undefined {
    let next: number | undefined;
    for (const timers of this.#tables.timers.values()) {
      for (const timer of timers.values()) {
        if (timer.deadLettered || (next !== undefined && timer.at >= next) || skip?.(timer))
          continue;
        next = timer.at;
      }
    }
    return next;
  }

  /** Calls `listener` with every committed actor record, in commit order. Returns unsubscribe. */
  subscribe(listener: (record: ActorRecord) => void): () => void {
    return this.#changes.subscribe(listener);
  }

  /** Calls `listener` with every timer a commit schedules. Returns unsubscribe. */
  watchTimers(listener: (timer: Timer) => void): () => void {
    return this.#timersPut.subscribe(listener);
  }

  /** Calls `listener` with every committed idempotency record. Returns unsubscribe. */
  watchOutcomes(listener: (record: IdempotencyRecord) => void): () => void {
    return this.#outcomes.subscribe(listener);
  }

  /** Every actor record (copies), for tests and tools. */
  records(): ActorRecord[] {
    return [...this.#tables.records.values()].map((record) => deepCopy(record));
  }

  /** The number of outbox items waiting to be drained, over all actors, held or apart. */
  outboxSize(): number {
    let size = 0;
    for (const record of this.#tables.records.values()) size += record.outbox?.length ?? 0;
    for (const items of this.#tables.outbox.values()) size += items.size;
    return size;
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

  #liveIdempotency(key: string): IdempotencyRecord | undefined {
    const record = this.#tables.idempotency.get(key);
    return record && record.expiresAt > this.#clock.now() ? record : undefined;
  }

  #checkOpen(): void {
    if (this.#closed) {
      throw new BatonError(ErrorCode.UNAVAILABLE, 'the embedded store is closed');
    }
  }
}

const soonestFirst = (timers: Timer[]): Timer[] =>
  timers.sort((a, b) => a.at - b.at).map((timer) => deepCopy(timer));
