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
  OutcomePageWrite,
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
import { type ClaimEntry, KeyClaims } from './KeyClaims.ts';
import { Notifier } from './Notifier.ts';
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

/** A store entry of the journal: a commit applied blindly on replay. */
interface CommitEntry extends JournalEntry {
  readonly t: 'store.commit';
  readonly record?: ActorRecord;
  readonly outbox: readonly OutboxItem[];
  readonly idempotency: readonly IdempotencyRecord[];
  /** Outcomes appended to a page of the record's actor. */
  readonly outcomes?: OutcomePageWrite;
  readonly deadLetters?: Commit['deadLetters'];
  readonly overflow?: readonly OverflowMark[];
  readonly timers?: Commit['timers'];
}

interface DeleteOutboxEntry extends JournalEntry {
  readonly t: 'store.deleteOutbox';
  readonly actorId: string;
  readonly seqs: readonly number[];
}

/** The sends a record holds at `ver` of `life` were drained: the record keeps them no longer. */
interface HeldDrainedEntry extends JournalEntry {
  readonly t: 'store.heldDrained';
  readonly actorId: string;
  readonly ver: number;
  /** Absent for a record without a life (and in entries written before lives existed). */
  readonly life?: string;
}

/** Effect runs done, by idempotency key, until `expiresAt`. */
interface EffectsDoneEntry extends JournalEntry {
  readonly t: 'store.effectsDone';
  readonly keys: readonly string[];
  readonly expiresAt: number;
}

/** One outcome page of an actor as it stands, to compact a journal (its outcomes are kept apart). */
interface PageEntry extends JournalEntry {
  readonly t: 'store.page';
  readonly actorId: string;
  readonly page: number;
  readonly sentAt: number;
  readonly expiresAt: number;
  /** The page's keys, each with its message's `sentAt`. */
  readonly keys: ReadonlyArray<readonly [string, number]>;
}

/** One outcome page: which keys it holds (their outcomes are in the idempotency map). */
interface Page {
  /** The latest `sentAt` of this page and every page before it ({@link OutcomePageWrite.sentAt}). */
  sentAt: number;
  /** When its last outcome expires: the page is forgotten then. */
  expiresAt: number;
  /** Key → its message's `sentAt`. */
  readonly keys: Map<string, number>;
}

type StoreEntry =
  | CommitEntry
  | PageEntry
  | DeleteOutboxEntry
  | HeldDrainedEntry
  | ClaimEntry
  | EffectsDoneEntry;

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
  readonly #records = new Map<string, ActorRecord>();
  readonly #outbox = new Map<string, Map<number, OutboxItem>>();
  /** Outcomes by key. One appended to a page keeps its `sentAt` here: reads take it off. */
  readonly #idempotency = new Map<string, IdempotencyRecord | PagedOutcome>();
  readonly #claims = new KeyClaims();
  /** Outcome pages by actor, then by page number. */
  readonly #pages = new Map<string, Map<number, Page>>();
  /** Dead letters by actor, then by message id, in the order they were kept. */
  readonly #deadLetters = new Map<string, Map<string, DeadLetter>>();
  /** Overflow marks by actor, then by kind and peer. */
  readonly #overflow = new Map<string, Map<string, OverflowMark>>();
  /** Timers by actor, then by timer id. */
  readonly #timers = new Map<string, Map<string, Timer>>();
  /** Effect runs done: idempotency key → when the mark expires. */
  readonly #effectsDone = new Map<string, number>();
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
      if (EmbeddedStore.owns(entry)) this.#apply(entry as StoreEntry);
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
    const record = this.#records.get(actorId);
    return record && deepCopy(record);
  }

  async commit(commit: Commit): Promise<void> {
    this.#checkOpen();
    checkCommit(commit, this.limits, { verifyMeasured: this.#freeze });
    const { record, expectedVer } = commit;
    const current = this.#records.get(record.id);
    // A record of another life at the same version is not the one the turn read.
    if ((current?.ver ?? 0) !== expectedVer || (current && current.life !== record.life)) {
      throw versionConflict(record.id, current && deepCopy(current));
    }
    // Only `idempotency` is put-if-absent; `replaceIdempotency` overwrites (a redrive's outcome).
    const used: string[] = [];
    for (const { key } of commit.idempotency) if (this.#liveIdempotency(key)) used.push(key);
    // A page, like DynamoDB's page item, knows only its own outcomes.
    const page = commit.outcomes && this.#pages.get(record.id)?.get(commit.outcomes.page);
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
    this.#apply(entry);
    if (++this.#commitsSincePurge >= Math.max(PURGE_EVERY, this.#idempotency.size)) {
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
    const items = [...(this.#outbox.get(actorId)?.values() ?? [])];
    return items.sort((a, b) => a.seq - b.seq).map((item) => deepCopy(item));
  }

  async deleteOutbox(actorId: string, seqs: readonly number[]): Promise<void> {
    this.#checkOpen();
    const items = this.#outbox.get(actorId);
    const present = [...new Set(seqs)].filter((seq) => items?.has(seq));
    if (present.length === 0) return;
    const entry: DeleteOutboxEntry = { t: 'store.deleteOutbox', actorId, seqs: present };
    this.#journal?.append([entry]);
    this.#apply(entry);
  }

  async listOutboxActors(olderThan: number): Promise<string[]> {
    this.#checkOpen();
    const actors = new Set<string>();
    for (const record of this.#records.values()) {
      if (record.outbox?.some((item) => item.createdAt < olderThan)) actors.add(record.id);
    }
    for (const [actorId, items] of this.#outbox) {
      for (const item of items.values()) {
        if (item.createdAt < olderThan) {
          actors.add(actorId);
          break;
        }
      }
    }
    return [...actors];
  }

  async retireHeldOutbox(actorId: string, ver: number, life: string | undefined): Promise<void> {
    this.#checkOpen();
    const current = this.#records.get(actorId);
    if (current?.ver !== ver || current.life !== life || !current.outbox) return;
    const { outbox: _held, outboxApart: _apart, ...rest } = current;
    const entry: CommitEntry = {
      t: 'store.commit',
      record: { ...rest, ver: ver + 1 },
      outbox: [],
      idempotency: [],
    };
    this.#journal?.append([entry]);
    this.#apply(entry);
    this.#changes.emit(entry.record!);
  }

  /**
   * Drops the sends the record at `ver` holds, as they were drained: in-process the write is
   * cheap, and a record never keeps sent messages that a later drain would send again. The
   * version stays, so no turn conflicts with it; the change is not a commit, and not pushed.
   */
  async heldDrained(actorId: string, ver: number, life: string | undefined): Promise<void> {
    this.#checkOpen();
    const record = this.#records.get(actorId);
    if (record?.ver !== ver || record.life !== life || !record.outbox) return;
    const entry: HeldDrainedEntry = { t: 'store.heldDrained', actorId, ver, life };
    this.#journal?.append([entry]);
    this.#apply(entry);
  }

  async readIdempotency(key: string): Promise<IdempotencyRecord | undefined> {
    this.#checkOpen();
    const record = this.#liveIdempotency(key);
    return record && deepCopy(unpaged(record));
  }

  async readPagedOutcomes(actorId: string, sentAt: number, fromPage = 0): Promise<PagedOutcome[]> {
    this.#checkOpen();
    const found: PagedOutcome[] = [];
    for (const [number, page] of this.#pages.get(actorId) ?? []) {
      if (number < fromPage || page.sentAt < sentAt) continue;
      for (const [key, at] of page.keys) {
        const record = this.#liveIdempotency(key);
        if (record) found.push({ ...deepCopy(record), sentAt: at });
      }
    }
    return found;
  }

  async claimKey(claim: KeyClaim): Promise<KeyClaim | undefined> {
    this.#checkOpen();
    const held = this.#claims.live(claim.key, this.#clock.now());
    if (held) return deepCopy(held);
    const entry: ClaimEntry = deepCopy({ t: 'store.claim', claim });
    this.#journal?.append([entry]);
    this.#apply(entry);
    return undefined;
  }

  async readEffectsDone(keys: readonly string[]): Promise<ReadonlySet<string>> {
    this.#checkOpen();
    const now = this.#clock.now();
    return new Set(keys.filter((key) => (this.#effectsDone.get(key) ?? 0) > now));
  }

  async markEffectsDone(keys: readonly string[], expiresAt: number): Promise<void> {
    this.#checkOpen();
    const entry: EffectsDoneEntry = { t: 'store.effectsDone', keys: [...keys], expiresAt };
    this.#journal?.append([entry]);
    this.#apply(entry);
  }

  async readDeadLetter(actorId: string, messageId: string): Promise<DeadLetter | undefined> {
    this.#checkOpen();
    const letter = this.#deadLetters.get(actorId)?.get(messageId);
    return letter && deepCopy(letter);
  }

  async listDeadLetters(actorId?: string): Promise<DeadLetter[]> {
    this.#checkOpen();
    const lists =
      actorId === undefined ? [...this.#deadLetters.values()] : [this.#deadLetters.get(actorId)];
    return lists
      .flatMap((letters) => [...(letters?.values() ?? [])])
      .sort((a, b) => a.at - b.at)
      .map((letter) => deepCopy(letter));
  }

  async readOverflow(actorId: string, keys: readonly OverflowKey[]): Promise<OverflowMark[]> {
    this.#checkOpen();
    const marks = this.#overflow.get(actorId);
    const now = this.#clock.now();
    return keys.flatMap((key) => {
      const mark = marks?.get(overflowKey(key));
      return mark && mark.expiresAt > now ? [deepCopy(mark)] : [];
    });
  }

  async readTimer(actorId: string, id: string): Promise<Timer | undefined> {
    this.#checkOpen();
    const timer = this.#timers.get(actorId)?.get(id);
    return timer && deepCopy(timer);
  }

  async listTimers(actorId: string): Promise<Timer[]> {
    this.#checkOpen();
    return soonestFirst([...(this.#timers.get(actorId)?.values() ?? [])]);
  }

  async listDueTimers(before: number, limit: number): Promise<Timer[]> {
    this.#checkOpen();
    const due = [...this.#timers.values()].flatMap((timers) =>
      [...timers.values()].filter((timer) => timer.at <= before && !timer.deadLettered),
    );
    return soonestFirst(due).slice(0, limit);
  }

  /** When the soonest timer of any actor is due, epoch ms; `undefined` when there is none (a timer kept for a dead-lettered fire is never due). */
  nextTimerAt(): number | undefined {
    let next: number | undefined;
    for (const timers of this.#timers.values()) {
      for (const { at, deadLettered } of timers.values()) {
        if (!deadLettered && (next === undefined || at < next)) next = at;
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
    return [...this.#records.values()].map((record) => deepCopy(record));
  }

  /** The number of outbox items waiting to be drained, over all actors, held or apart. */
  outboxSize(): number {
    let size = 0;
    for (const record of this.#records.values()) size += record.outbox?.length ?? 0;
    for (const items of this.#outbox.values()) size += items.size;
    return size;
  }

  /** Every unexpired idempotency record (copies). */
  idempotencyRecords(): IdempotencyRecord[] {
    const now = this.#clock.now();
    return [...this.#idempotency.values()]
      .filter((record) => record.expiresAt > now)
      .map((record) => deepCopy(unpaged(record)));
  }

  /**
   * Drops expired idempotency records, key claims, marks and effect done-marks from memory (they already read as absent), and
   * the records of halted actors past their `expiresAt`, as DynamoDB's TTL deletes them.
   */
  purgeExpired(): void {
    this.#commitsSincePurge = 0;
    const now = this.#clock.now();
    for (const [id, record] of this.#records) {
      if (record.expiresAt !== undefined && record.expiresAt <= now) this.#records.delete(id);
    }
    for (const [key, record] of this.#idempotency) {
      if (record.expiresAt <= now) this.#idempotency.delete(key);
    }
    for (const [actorId, pages] of this.#pages) {
      for (const [n, page] of pages) if (page.expiresAt <= now) pages.delete(n);
      if (pages.size === 0) this.#pages.delete(actorId);
    }
    this.#claims.purge(now);
    for (const [key, expiresAt] of this.#effectsDone) {
      if (expiresAt <= now) this.#effectsDone.delete(key);
    }
    for (const [actorId, marks] of this.#overflow) {
      for (const [key, mark] of marks) if (mark.expiresAt <= now) marks.delete(key);
      if (marks.size === 0) this.#overflow.delete(actorId);
    }
  }

  /** The live state as journal entries, to compact a journal. */
  snapshot(): JournalEntry[] {
    return [...this.#commitSnapshot(), ...this.#effectsDoneSnapshot()];
  }

  /** The effect done-marks, one entry per expiry. */
  #effectsDoneSnapshot(): EffectsDoneEntry[] {
    const byExpiry = new Map<number, string[]>();
    for (const [key, expiresAt] of this.#effectsDone) {
      const keys = byExpiry.get(expiresAt);
      if (keys) keys.push(key);
      else byExpiry.set(expiresAt, [key]);
    }
    return [...byExpiry].map(([expiresAt, keys]) => ({ t: 'store.effectsDone', keys, expiresAt }));
  }

  #commitSnapshot(): JournalEntry[] {
    this.purgeExpired();
    const outbox = new Map([...this.#outbox].map(([id, items]) => [id, [...items.values()]]));
    const idempotency = new Map<string, IdempotencyRecord[]>();
    for (const record of this.#idempotency.values()) {
      const list = idempotency.get(record.actorId);
      if (list) list.push(unpaged(record));
      else idempotency.set(record.actorId, [unpaged(record)]);
    }
    const entries: CommitEntry[] = [];
    for (const record of this.#records.values()) {
      const deadLetters = [...(this.#deadLetters.get(record.id)?.values() ?? [])];
      const overflow = [...(this.#overflow.get(record.id)?.values() ?? [])];
      const timers = [...(this.#timers.get(record.id)?.values() ?? [])];
      entries.push({
        t: 'store.commit',
        record,
        outbox: outbox.get(record.id) ?? [],
        idempotency: idempotency.get(record.id) ?? [],
        ...(deadLetters.length > 0 ? { deadLetters: { put: deadLetters, remove: [] } } : {}),
        ...(overflow.length > 0 ? { overflow } : {}),
        ...(timers.length > 0 ? { timers: { put: timers, remove: [] } } : {}),
      });
      outbox.delete(record.id);
      idempotency.delete(record.id);
    }
    const rest = {
      outbox: [...outbox.values()].flat(),
      idempotency: [...idempotency.values()].flat(),
    };
    if (rest.outbox.length + rest.idempotency.length > 0) {
      entries.push({ t: 'store.commit', ...rest });
    }
    return [...entries, ...this.#pageSnapshot(), ...this.#claims.entries()];
  }

  #pageSnapshot(): PageEntry[] {
    const entries: PageEntry[] = [];
    for (const [actorId, pages] of this.#pages) {
      for (const [page, { sentAt, expiresAt, keys }] of pages) {
        entries.push({ t: 'store.page', actorId, page, sentAt, expiresAt, keys: [...keys] });
      }
    }
    return entries;
  }

  /** Rejects every later call with UNAVAILABLE. Does not close the journal. */
  close(): void {
    this.#closed = true;
  }

  #liveIdempotency(key: string): IdempotencyRecord | undefined {
    const record = this.#idempotency.get(key);
    return record && record.expiresAt > this.#clock.now() ? record : undefined;
  }

  #apply(entry: StoreEntry): void {
    if (entry.t === 'store.claim') {
      this.#claims.apply(entry);
      return;
    }
    if (entry.t === 'store.page') {
      const pages = this.#pages.get(entry.actorId) ?? new Map<number, Page>();
      const { sentAt, expiresAt } = entry;
      pages.set(entry.page, { sentAt, expiresAt, keys: new Map(entry.keys) });
      this.#pages.set(entry.actorId, pages);
      return;
    }
    if (entry.t === 'store.effectsDone') {
      for (const key of entry.keys) this.#effectsDone.set(key, entry.expiresAt);
      return;
    }
    if (entry.t === 'store.heldDrained') {
      const record = this.#records.get(entry.actorId);
      if (record?.ver === entry.ver && record.life === entry.life && record.outbox) {
        const { outbox: _drained, ...rest } = record;
        this.#records.set(entry.actorId, rest);
      }
      return;
    }
    if (entry.t === 'store.deleteOutbox') {
      const items = this.#outbox.get(entry.actorId);
      for (const seq of entry.seqs) items?.delete(seq);
      if (items?.size === 0) this.#outbox.delete(entry.actorId);
      return;
    }
    if (entry.record) this.#records.set(entry.record.id, entry.record);
    for (const item of entry.outbox) {
      const items = this.#outbox.get(item.actorId) ?? new Map<number, OutboxItem>();
      items.set(item.seq, item);
      this.#outbox.set(item.actorId, items);
    }
    for (const record of entry.idempotency) this.#idempotency.set(record.key, record);
    if (entry.record && entry.outcomes) this.#appendPage(entry.record.id, entry.outcomes);
    if (entry.record && entry.deadLetters) {
      const letters = this.#deadLetters.get(entry.record.id) ?? new Map<string, DeadLetter>();
      for (const id of entry.deadLetters.remove) letters.delete(id);
      for (const letter of entry.deadLetters.put) {
        letters.delete(letter.messageId);
        letters.set(letter.messageId, letter);
      }
      if (letters.size > 0) this.#deadLetters.set(entry.record.id, letters);
      else this.#deadLetters.delete(entry.record.id);
    }
    if (entry.record && entry.overflow) {
      const marks = this.#overflow.get(entry.record.id) ?? new Map<string, OverflowMark>();
      for (const mark of entry.overflow) marks.set(overflowKey(mark), mark);
      this.#overflow.set(entry.record.id, marks);
    }
    if (entry.record && entry.timers) {
      const timers = this.#timers.get(entry.record.id) ?? new Map<string, Timer>();
      for (const id of entry.timers.remove) timers.delete(id);
      for (const timer of entry.timers.put) timers.set(timer.id, timer);
      if (timers.size > 0) this.#timers.set(entry.record.id, timers);
      else this.#timers.delete(entry.record.id);
    }
  }

  #appendPage(actorId: string, write: OutcomePageWrite): void {
    let pages = this.#pages.get(actorId);
    if (!pages) {
      pages = new Map();
      this.#pages.set(actorId, pages);
    }
    let page = pages.get(write.page);
    if (!page) {
      page = { sentAt: 0, expiresAt: 0, keys: new Map() };
      pages.set(write.page, page);
    }
    page.sentAt = write.sentAt;
    for (const outcome of write.records) {
      this.#idempotency.set(outcome.key, outcome);
      page.keys.set(outcome.key, outcome.sentAt);
      page.expiresAt = Math.max(page.expiresAt, outcome.expiresAt);
    }
  }

  #checkOpen(): void {
    if (this.#closed) {
      throw new BatonError(ErrorCode.UNAVAILABLE, 'the embedded store is closed');
    }
  }
}

/** An outcome as {@link EmbeddedStore.readIdempotency} gives it: without its page's `sentAt`. */
function unpaged(outcome: IdempotencyRecord | PagedOutcome): IdempotencyRecord {
  if (!('sentAt' in outcome)) return outcome;
  const { sentAt: _, ...record } = outcome;
  return record;
}

const soonestFirst = (timers: Timer[]): Timer[] =>
  timers.sort((a, b) => a.at - b.at).map((timer) => deepCopy(timer));

const overflowKey = (key: OverflowKey) => `${key.kind}\u0000${key.peer}`;
