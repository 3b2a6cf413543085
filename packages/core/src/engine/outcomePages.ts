/**
 * Ingress outcomes in pages (I7 at the cost of one item per commit): on a store that keeps them
 * so ({@link Store.readPagedOutcomes}), a commit appends the outcomes of all its ingress
 * messages to the actor's current page — one item written, however many messages — each put
 * only if the page holds no live outcome of its key, so a copy of a message of the current page
 * fails the commit as a DUPLICATE and is skipped on the redo, as with one item per outcome. A
 * page past {@link PAGE_BYTES} is closed and the next one begun; a message that may be a copy of
 * one in a closed page is looked up there before it is applied. Copies carry the `sentAt` of the
 * first send (a redriven copy is the same message; a retried send takes it from the key's
 * claim), so only a message sent at or before the latest `sentAt` of the closed pages
 * ({@link OutcomePageState.closedSentAt}) needs a look-up: in steady traffic, none does. A
 * backlog does; a warm worker then reads only the pages closed since its last look-up
 * ({@link PageKeyCache}): a closed page never changes.
 */
import { jsonSize } from '../adapter/conflicts.ts';
import { INGRESS } from '../adapter/envelope.ts';
import { pageEntryBytes, pageItemBytes } from '../adapter/outcomePageBytes.ts';
import type { Clock, StoreLimits, TurnStore } from '../adapter/ports.ts';
import type {
  ActorRecord,
  IdempotencyRecord,
  OutcomePageState,
  OutcomePageWrite,
  PagedOutcome,
} from '../adapter/storedRecords.ts';
import type { Writable } from '../shared/Writable.ts';
import type { Inbound } from './Inbound.ts';
import { recentlyUsed } from './recentlyUsed.ts';

/**
 * Bytes of outcomes after which a page is closed, unless the store sets its own
 * (`StoreLimits.outcomePageBytes`: a store that bills a write by the size of the item, as
 * DynamoDB does, keeps its pages small, since every commit writes its page again until the page
 * closes).
 */
export const PAGE_BYTES = 8 * 1024;

/**
 * How far after the switch to pages a message's `sentAt` may lie and still be a copy of one
 * whose outcome an earlier Baton kept as an item of its own: the senders' clocks may run ahead.
 */
export const ITEMS_CLOCK_MARGIN_MS = 60 * 60 * 1000;

/** Record format of a record with outcome pages (a Baton before them must not write it). */
const PAGED_FORMAT = 2;

/** Whether the store keeps outcomes in pages. */
export function pagesOutcomes(store: TurnStore): boolean {
  return typeof store.readPagedOutcomes === 'function';
}

/**
 * `record` ready for a turn on `store`: with its outcome page state, begun now if it has none
 * (on a record written before pages, the outcomes kept as items until now are looked up too).
 */
export function withOutcomePages(store: TurnStore, record: ActorRecord, now: number): ActorRecord {
  if (!pagesOutcomes(store)) {
    if (record.outcomePage) {
      throw new Error(
        `the record of ${record.id} keeps its outcomes in pages: a store that wraps this one must pass on readPagedOutcomes`,
      );
    }
    return record;
  }
  if (record.outcomePage) return record;
  const page = firstPage(now);
  const begun: OutcomePageState =
    record.ver === 0
      ? { page, bytes: 0 }
      : { page, bytes: 0, itemsBefore: now + ITEMS_CLOCK_MARGIN_MS };
  return { ...record, format: Math.max(record.format ?? 1, PAGED_FORMAT), outcomePage: begun };
}

/**
 * The number of a life's first page: the time its pages begin, in ms. An earlier life's pages may
 * outlive its record (a store deletes expired items when it gets to them, and a redrive renews
 * an outcome), and a reader goes back from the highest page number, stopping at the first page
 * of messages sent before the one it looks for: a new life numbered from 0 again would sort
 * below such a page and hide its outcomes. Numbered from its start, it sorts above them all: a
 * life closes far fewer than one page a millisecond, and the next begins days after its record
 * was halted.
 */
export function firstPage(now: number): number {
  return Math.max(0, Math.floor(now));
}

/** An ingress message's outcome, kept with its message's `sentAt`. */
export function pagedOutcome(record: IdempotencyRecord, sentAt: number): PagedOutcome {
  return { ...record, sentAt };
}

/**
 * Bytes of outcomes after which a page is closed on a store with `limits`: its
 * `outcomePageBytes` ({@link PAGE_BYTES} if it sets none), or a quarter of its item limit if
 * that is less.
 */
export function pageBytes(limits: StoreLimits): number {
  return Math.min(limits.outcomePageBytes ?? PAGE_BYTES, Math.floor(limits.maxItemBytes / 4));
}

/**
 * The largest outcome an ingress message may have on `store`, by its `jsonSize`: on a store
 * with pages, its item limit less a page's {@link pageBytes}, the limit a reply has always had
 * there. An outcome whose entry does not fit the open page beside the entries it holds is
 * written to the next page ({@link outgrowsPage}); see {@link outcomeTooLarge} for the rest.
 */
export function maxOutcomeBytes(store: TurnStore): number {
  const { maxItemBytes } = store.limits;
  return pagesOutcomes(store) ? maxItemBytes - pageBytes(store.limits) : maxItemBytes;
}

/**
 * Whether an ingress message's outcome is more than `store` keeps: its `jsonSize` (`json`, when
 * measured already) past {@link maxOutcomeBytes}, or, on a store with pages, its entry past
 * what a page item holds with no other entry (a key long beside a small page).
 */
export function outcomeTooLarge(
  store: TurnStore,
  outcome: IdempotencyRecord,
  json = jsonSize(outcome),
): boolean {
  if (json > maxOutcomeBytes(store)) return true;
  return (
    pagesOutcomes(store) && pageItemBytes(pageEntryBytes(outcome, json)) > store.limits.maxItemBytes
  );
}

/**
 * Whether a page holding entries of `held` bytes is what keeps entries of `bytes` more out of
 * an item of `maxItemBytes`: they fit a page of their own. The page is then closed
 * ({@link closePage}) and they go to the next.
 */
export function outgrowsPage(held: number, bytes: number, maxItemBytes: number): boolean {
  return (
    held > 0 && pageItemBytes(held + bytes) > maxItemBytes && pageItemBytes(bytes) <= maxItemBytes
  );
}

/**
 * The page state after closing the open page `state` with no outcome more (one the next
 * outcome's entry does not fit beside: {@link outgrowsPage}). Its entries are all written, so
 * the closed pages' latest `sentAt` takes in theirs, as when a commit fills a page.
 */
export function closePage(state: OutcomePageState): OutcomePageState {
  return closed(state, latest(state.closedSentAt, state.sentAt) ?? 0);
}

/**
 * The page write of a commit's outcomes, appended to the current page, and the record's page
 * state after it. A page that reaches {@link pageBytes} is closed by the commit that fills it,
 * so the record always tells which pages are closed before a turn admits its messages: a
 * message of a page closed while a turn ran would otherwise be looked up in neither.
 * `measured` is the outcomes' summed `pageEntryBytes`, when the caller has it already.
 */
export function appendOutcomes(
  state: OutcomePageState,
  outcomes: readonly PagedOutcome[],
  limits: StoreLimits,
  measured?: number,
): { state: OutcomePageState; write: OutcomePageWrite } {
  let bytes = state.bytes + (measured ?? 0);
  let sentAt = state.sentAt;
  for (const outcome of outcomes) {
    if (measured === undefined) bytes += pageEntryBytes(outcome);
    sentAt = latest(sentAt, outcome.sentAt);
  }
  const upTo = latest(state.closedSentAt, sentAt) ?? 0;
  const write = { page: state.page, sentAt: upTo, records: outcomes, begins: state.bytes === 0 };
  if (bytes >= pageBytes(limits)) return { state: closed(state, upTo), write };
  // Built field by field, every field of OutcomePageState, not spread (every turn makes one;
  // see copyRecord).
  const next: Writable<OutcomePageState> = { page: state.page, bytes };
  if (sentAt !== undefined) next.sentAt = sentAt;
  if (state.closedSentAt !== undefined) next.closedSentAt = state.closedSentAt;
  if (state.itemsBefore !== undefined) next.itemsBefore = state.itemsBefore;
  return { state: next, write };
}

/** The state after `state`'s page is closed, the pages up to it holding messages sent up to `upTo`. */
function closed(state: OutcomePageState, upTo: number): OutcomePageState {
  const next: Writable<OutcomePageState> = { page: state.page + 1, bytes: 0, closedSentAt: upTo };
  if (state.itemsBefore !== undefined) next.itemsBefore = state.itemsBefore;
  return next;
}

function latest(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.max(a, b);
}

/** Outcome keys of closed pages a worker keeps in memory, over all actors. */
export const PAGE_KEYS_KEPT = 100_000;

/** What a worker knows of one actor's closed pages: they never change once closed. */
interface KnownPages {
  /** The actor's life whose pages these are (each life numbers its pages from its own start). */
  readonly life: string | undefined;
  /** The pages read hold every outcome of a message sent at or after this. */
  readonly from: number;
  /** Every page before this one was closed when read, so its keys are all known. */
  upTo: number;
  /** Key → when its outcome expires. */
  readonly keys: Map<string, number>;
}

/**
 * A warm worker's memory of the keys in its actors' closed outcome pages (least recently used
 * out first), so that a message that may be a copy costs a read of the pages closed since the
 * last look-up, not of every live page: a backlog, or a sender whose messages share one
 * `sentAt`, would otherwise read all of them in every turn.
 */
export class PageKeyCache {
  readonly #entries = new Map<string, KnownPages>();
  readonly #capacity: number;
  #size = 0;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  get(actorId: string): KnownPages | undefined {
    return recentlyUsed(this.#entries, actorId);
  }

  /** Keeps `known` for `actorId`, or adds `outcomes` to the entry it keeps already. */
  add(actorId: string, known: KnownPages, outcomes: readonly PagedOutcome[]): void {
    if (this.#entries.get(actorId) !== known) {
      this.delete(actorId);
      this.#entries.set(actorId, known);
      this.#size += known.keys.size;
    }
    for (const { key, expiresAt } of outcomes) {
      if (!known.keys.has(key)) this.#size++;
      known.keys.set(key, expiresAt);
    }
    while (this.#size > this.#capacity) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.delete(oldest);
    }
  }

  delete(actorId: string): void {
    const known = this.#entries.get(actorId);
    if (!known) return;
    this.#size -= known.keys.size;
    this.#entries.delete(actorId);
  }

  /** Keys kept, over all actors. */
  get size(): number {
    return this.#size;
  }
}

/**
 * Which ingress messages of a turn were applied already by an outcome kept where the commit's
 * condition does not look: a closed page, or (on a record older than pages) an item of its own.
 * Closed pages are read through the worker's {@link PageKeyCache}: only those closed since its
 * last read of the actor's pages.
 */
export class PagedLookup {
  readonly #store: TurnStore;
  readonly #cache: PageKeyCache;
  readonly #now: () => number;
  readonly #actorId: string;
  /** The earliest `sentAt` of the turn's ingress messages: the pages read cover them all. */
  readonly #earliest: number;
  /** The keys {@link applied} found in a closed page. */
  readonly #inClosedPages = new Set<string>();

  constructor(
    engine: { readonly store: TurnStore; readonly pageKeys: PageKeyCache; readonly clock: Clock },
    actorId: string,
    batch: readonly Inbound[],
  ) {
    this.#store = engine.store;
    this.#cache = engine.pageKeys;
    this.#now = () => engine.clock.now();
    this.#actorId = actorId;
    let earliest = Infinity;
    for (const { envelope } of batch) {
      if (envelope.from === INGRESS) earliest = Math.min(earliest, envelope.sentAt);
    }
    this.#earliest = earliest;
  }

  /** Whether ingress message `key`, sent at `sentAt`, was applied before by `record`'s actor. */
  async applied(record: ActorRecord, key: string, sentAt: number): Promise<boolean> {
    const state = record.outcomePage;
    if (!state || !this.#store.readPagedOutcomes) return false;
    if (state.itemsBefore !== undefined && sentAt <= state.itemsBefore) {
      const kept = await this.#store.readIdempotency(key);
      if (kept && kept.actorId === record.id) return true;
    }
    if (state.closedSentAt === undefined || sentAt > state.closedSentAt) return false;
    const expiresAt = (await this.#known(record, state.page)).keys.get(key);
    if (expiresAt === undefined) return false;
    if (expiresAt <= this.#now()) {
      // Expired as the worker last read it: the store decides (a redrive may have renewed it).
      this.#cache.delete(this.#actorId);
      if (!(await this.#known(record, state.page)).keys.has(key)) return false;
    }
    this.#inClosedPages.add(key);
    return true;
  }

  /**
   * Whether {@link applied} found ingress message `key` in a closed page: a copy (a retry, maybe
   * days after its send) whose outcome a client's read, bounded to the actor's newest pages,
   * may not reach (see outcomeKeptApart.ts).
   */
  inClosedPage(key: string): boolean {
    return this.#inClosedPages.has(key);
  }

  /**
   * Whether {@link applied} must look for a message sent at `sentAt`: false when no closed page
   * (nor an outcome item of before the pages) can hold it, as for most messages. Answers at once.
   */
  mayHold(record: ActorRecord, sentAt: number): boolean {
    const state = record.outcomePage;
    if (!state || !this.#store.readPagedOutcomes) return false;
    if (state.itemsBefore !== undefined && sentAt <= state.itemsBefore) return true;
    return state.closedSentAt !== undefined && sentAt <= state.closedSentAt;
  }

  /** The keys of the actor's pages before `page` (closed), read only where not known yet. */
  async #known(record: ActorRecord, page: number): Promise<KnownPages> {
    const read = this.#store.readPagedOutcomes as NonNullable<TurnStore['readPagedOutcomes']>;
    const cached = this.#cache.get(this.#actorId);
    if (cached && cached.life === record.life && cached.from <= this.#earliest) {
      if (cached.upTo < page) {
        const outcomes = await read.call(this.#store, this.#actorId, cached.from, cached.upTo);
        cached.upTo = page;
        this.#cache.add(this.#actorId, cached, outcomes);
      }
      return cached;
    }
    const outcomes = await read.call(this.#store, this.#actorId, this.#earliest);
    const known: KnownPages = {
      life: record.life,
      from: this.#earliest,
      upTo: page,
      keys: new Map(),
    };
    this.#cache.add(this.#actorId, known, outcomes);
    return known;
  }
}
