/**
 * What the embedded store holds, in memory: its tables, each keyed as DynamoDB's items are, and
 * how a journal entry changes them. Entries are applied blindly (the store checked the commit
 * first; a replay applies what was checked then); the store reads the tables directly.
 */
import type {
  ActorRecord,
  Commit,
  DeadLetter,
  IdempotencyRecord,
  OutboxItem,
  OutcomePageWrite,
  OverflowKey,
  OverflowMark,
  PagedOutcome,
  Timer,
} from '@baton/core/adapter';
import { deletableAt } from '@baton/core/adapter';
import type { JournalEntry } from './Journal.ts';
import { type ClaimEntry, KeyClaims } from './KeyClaims.ts';

/** A store entry of the journal: a commit applied blindly on replay. */
export interface CommitEntry extends JournalEntry {
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

export interface DeleteOutboxEntry extends JournalEntry {
  readonly t: 'store.deleteOutbox';
  readonly actorId: string;
  readonly seqs: readonly number[];
  /** The life that committed them; absent for items without one (and in older entries). */
  readonly life?: string;
}

/** The sends a record holds at `ver` of `life` were drained: the record keeps them no longer. */
export interface HeldDrainedEntry extends JournalEntry {
  readonly t: 'store.heldDrained';
  readonly actorId: string;
  readonly ver: number;
  /** Absent for a record without a life (and in entries written before lives existed). */
  readonly life?: string;
}

/** Effect runs done, by idempotency key, until `expiresAt`. */
export interface EffectsDoneEntry extends JournalEntry {
  readonly t: 'store.effectsDone';
  readonly keys: readonly string[];
  readonly expiresAt: number;
}

/** One outcome page of an actor as it stands, to compact a journal (its outcomes are kept apart). */
export interface PageEntry extends JournalEntry {
  readonly t: 'store.page';
  readonly actorId: string;
  readonly page: number;
  readonly sentAt: number;
  readonly expiresAt: number;
  /** The page's keys, each with its message's `sentAt`. */
  readonly keys: ReadonlyArray<readonly [string, number]>;
}

/** One outcome page: which keys it holds (their outcomes are in the idempotency map). */
export interface Page {
  /** The latest `sentAt` of this page and every page before it ({@link OutcomePageWrite.sentAt}). */
  sentAt: number;
  /** When its last outcome expires: the page is forgotten then. */
  expiresAt: number;
  /** Key → its message's `sentAt`. */
  readonly keys: Map<string, number>;
}

export type StoreEntry =
  | CommitEntry
  | PageEntry
  | DeleteOutboxEntry
  | HeldDrainedEntry
  | ClaimEntry
  | EffectsDoneEntry;

/**
 * The tables of one embedded store.
 *
 * @example
 * const tables = new StoreTables();
 * tables.apply({ t: 'store.commit', record, outbox: [], idempotency: [] });
 * tables.records.get(record.id); // record
 */
export class StoreTables {
  readonly records = new Map<string, ActorRecord>();
  /** Outbox items apart from their record, by actor, then by {@link outboxKey}. */
  readonly outbox = new Map<string, Map<string, OutboxItem>>();
  /** Outcomes by key. One appended to a page keeps its `sentAt` here: reads take it off. */
  readonly idempotency = new Map<string, IdempotencyRecord | PagedOutcome>();
  readonly claims = new KeyClaims();
  /** Outcome pages by actor, then by page number. */
  readonly pages = new Map<string, Map<number, Page>>();
  /** Dead letters by actor, then by message id, in the order they were kept. */
  readonly deadLetters = new Map<string, Map<string, DeadLetter>>();
  /** Overflow marks by actor, then by kind and peer. */
  readonly overflow = new Map<string, Map<string, OverflowMark>>();
  /** Timers by actor, then by timer id. */
  readonly timers = new Map<string, Map<string, Timer>>();
  /** Effect runs done: idempotency key → when the mark expires. */
  readonly effectsDone = new Map<string, number>();

  apply(entry: StoreEntry): void {
    if (entry.t === 'store.claim') {
      this.claims.apply(entry);
      return;
    }
    if (entry.t === 'store.page') {
      const pages = this.pages.get(entry.actorId) ?? new Map<number, Page>();
      const { sentAt, expiresAt } = entry;
      pages.set(entry.page, { sentAt, expiresAt, keys: new Map(entry.keys) });
      this.pages.set(entry.actorId, pages);
      return;
    }
    if (entry.t === 'store.effectsDone') {
      for (const key of entry.keys) this.effectsDone.set(key, entry.expiresAt);
      return;
    }
    if (entry.t === 'store.heldDrained') {
      const record = this.records.get(entry.actorId);
      if (record?.ver === entry.ver && record.life === entry.life && record.outbox) {
        const { outbox: _drained, ...rest } = record;
        this.records.set(entry.actorId, rest);
      }
      return;
    }
    if (entry.t === 'store.deleteOutbox') {
      const items = this.outbox.get(entry.actorId);
      for (const seq of entry.seqs) items?.delete(outboxKey(seq, entry.life));
      if (items?.size === 0) this.outbox.delete(entry.actorId);
      return;
    }
    if (entry.record) this.records.set(entry.record.id, entry.record);
    for (const item of entry.outbox) {
      const items = this.outbox.get(item.actorId) ?? new Map<string, OutboxItem>();
      items.set(outboxKey(item.seq, item.life), item);
      this.outbox.set(item.actorId, items);
    }
    for (const record of entry.idempotency) this.idempotency.set(record.key, record);
    if (entry.record && entry.outcomes) this.#appendPage(entry.record.id, entry.outcomes);
    if (entry.record && entry.deadLetters) {
      const letters = this.deadLetters.get(entry.record.id) ?? new Map<string, DeadLetter>();
      for (const id of entry.deadLetters.remove) letters.delete(id);
      for (const letter of entry.deadLetters.put) {
        letters.delete(letter.messageId);
        letters.set(letter.messageId, letter);
      }
      if (letters.size > 0) this.deadLetters.set(entry.record.id, letters);
      else this.deadLetters.delete(entry.record.id);
    }
    if (entry.record && entry.overflow) {
      const marks = this.overflow.get(entry.record.id) ?? new Map<string, OverflowMark>();
      for (const mark of entry.overflow) marks.set(overflowKey(mark), mark);
      this.overflow.set(entry.record.id, marks);
    }
    if (entry.record && entry.timers) {
      const timers = this.timers.get(entry.record.id) ?? new Map<string, Timer>();
      for (const id of entry.timers.remove) timers.delete(id);
      for (const timer of entry.timers.put) timers.set(timer.id, timer);
      if (timers.size > 0) this.timers.set(entry.record.id, timers);
      else this.timers.delete(entry.record.id);
    }
  }

  #appendPage(actorId: string, write: OutcomePageWrite): void {
    let pages = this.pages.get(actorId);
    if (!pages) {
      pages = new Map();
      this.pages.set(actorId, pages);
    }
    let page = pages.get(write.page);
    if (!page) {
      page = { sentAt: 0, expiresAt: 0, keys: new Map() };
      pages.set(write.page, page);
    }
    page.sentAt = write.sentAt;
    for (const outcome of write.records) {
      this.idempotency.set(outcome.key, outcome);
      page.keys.set(outcome.key, outcome.sentAt);
      page.expiresAt = Math.max(page.expiresAt, outcome.expiresAt);
    }
  }

  /** Forgets what expired at `now` (see `EmbeddedStore.purgeExpired`). */
  purge(now: number): void {
    // A halted record that holds sends stays until they are drained: they would go with it.
    for (const [id, record] of this.records) {
      const deletable = deletableAt(record);
      if (deletable !== undefined && deletable <= now && !record.outbox?.length) {
        this.records.delete(id);
      }
    }
    for (const [key, record] of this.idempotency) {
      if (record.expiresAt <= now) this.idempotency.delete(key);
    }
    for (const [actorId, pages] of this.pages) {
      for (const [n, page] of pages) if (page.expiresAt <= now) pages.delete(n);
      if (pages.size === 0) this.pages.delete(actorId);
    }
    this.claims.purge(now);
    for (const [key, expiresAt] of this.effectsDone) {
      if (expiresAt <= now) this.effectsDone.delete(key);
    }
    for (const [actorId, marks] of this.overflow) {
      for (const [key, mark] of marks) if (mark.expiresAt <= now) marks.delete(key);
      if (marks.size === 0) this.overflow.delete(actorId);
    }
    for (const [actorId, letters] of this.deadLetters) {
      for (const [id, letter] of letters) {
        if (letter.applied && letter.applied.expiresAt <= now) letters.delete(id);
      }
      if (letters.size === 0) this.deadLetters.delete(actorId);
    }
  }

  /** The tables as journal entries, to compact a journal (purge them first). */
  snapshot(): JournalEntry[] {
    return [...this.#commitSnapshot(), ...this.#effectsDoneSnapshot()];
  }

  /** The effect done-marks, one entry per expiry. */
  #effectsDoneSnapshot(): EffectsDoneEntry[] {
    const byExpiry = new Map<number, string[]>();
    for (const [key, expiresAt] of this.effectsDone) {
      const keys = byExpiry.get(expiresAt);
      if (keys) keys.push(key);
      else byExpiry.set(expiresAt, [key]);
    }
    return [...byExpiry].map(([expiresAt, keys]) => ({ t: 'store.effectsDone', keys, expiresAt }));
  }

  #commitSnapshot(): JournalEntry[] {
    const outbox = new Map([...this.outbox].map(([id, items]) => [id, [...items.values()]]));
    const idempotency = new Map<string, IdempotencyRecord[]>();
    for (const record of this.idempotency.values()) {
      const list = idempotency.get(record.actorId);
      if (list) list.push(unpaged(record));
      else idempotency.set(record.actorId, [unpaged(record)]);
    }
    const entries: CommitEntry[] = [];
    for (const record of this.records.values()) {
      const deadLetters = [...(this.deadLetters.get(record.id)?.values() ?? [])];
      const overflow = [...(this.overflow.get(record.id)?.values() ?? [])];
      const timers = [...(this.timers.get(record.id)?.values() ?? [])];
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
    return [...entries, ...this.#pageSnapshot(), ...this.claims.entries()];
  }

  #pageSnapshot(): PageEntry[] {
    const entries: PageEntry[] = [];
    for (const [actorId, pages] of this.pages) {
      for (const [page, { sentAt, expiresAt, keys }] of pages) {
        entries.push({ t: 'store.page', actorId, page, sentAt, expiresAt, keys: [...keys] });
      }
    }
    return entries;
  }
}

/** An outcome as `Store.readIdempotency` gives it: without its page's `sentAt`. */
export function unpaged(outcome: IdempotencyRecord | PagedOutcome): IdempotencyRecord {
  if (!('sentAt' in outcome)) return outcome;
  const { sentAt: _, ...record } = outcome;
  return record;
}

/** An overflow mark's key in its actor's table. */
export const overflowKey = (key: OverflowKey) => `${key.kind}\u0000${key.peer}`;

/**
 * An item apart's key among its actor's: its seq and the life that committed it, so that a new
 * life, which counts seqs from 1 again, never replaces an earlier life's item nor deletes one.
 */
export function outboxKey(seq: number, life: string | undefined): string {
  return life === undefined ? String(seq) : `${seq}#${life}`;
}
