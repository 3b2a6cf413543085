import { describe, expect, it } from 'vitest';
import { jsonSize } from '../adapter/conflicts.ts';
import { type Envelope, INGRESS } from '../adapter/envelope.ts';
import { PAGE_ENTRY_BYTES, PAGE_ITEM_BYTES, pageEntryBytes } from '../adapter/outcomePageBytes.ts';
import type { Store } from '../adapter/ports.ts';
import type { ActorRecord, OutcomePageState, PagedOutcome } from '../adapter/storedRecords.ts';
import type { Inbound } from './Inbound.ts';
import {
  appendOutcomes,
  closePage,
  maxOutcomeBytes,
  outcomeTooLarge,
  outgrowsPage,
  PAGE_BYTES,
  PagedLookup,
  PageKeyCache,
  pageBytes,
  pagesOutcomes,
  withOutcomePages,
} from './outcomePages.ts';

const outcome = (key: string, sentAt: number, pad = 0): PagedOutcome => ({
  key,
  actorId: 'counter/c',
  outcome: { ok: true, value: 'x'.repeat(pad) },
  expiresAt: 1e12,
  sentAt,
});

const limits = { maxTransactionItems: 100, maxTransactionBytes: 4_000_000, maxItemBytes: 400_000 };
const paged = { limits, readPagedOutcomes: async () => [] } as unknown as Store;
const unpaged = { limits } as unknown as Store;

describe('outcome pages', () => {
  it('are kept by a store that reads them back, and leave an outcome the item less a page', () => {
    expect(pagesOutcomes(paged)).toBe(true);
    expect(pagesOutcomes(unpaged)).toBe(false);
    expect(pageBytes(limits)).toBe(PAGE_BYTES);
    expect(pageBytes({ ...limits, maxItemBytes: 2_000 })).toBe(500);
    expect(maxOutcomeBytes(paged)).toBe(400_000 - PAGE_BYTES);
    expect(maxOutcomeBytes(unpaged)).toBe(400_000);
  });

  it("begin on a life's first turn numbered from its time, and refuse a store that cannot read them back", () => {
    const record: ActorRecord = {
      id: 'counter/c',
      ver: 0,
      state: {},
      inboxOffset: '0',
      marks: {},
      sentSeq: 0,
    };
    const begun = withOutcomePages(paged, record, 1_700_000_000_000);
    expect(begun.outcomePage).toEqual({ page: 1_700_000_000_000, bytes: 0 });
    expect(withOutcomePages(paged, begun, 1_800_000_000_000)).toBe(begun);
    expect(withOutcomePages(unpaged, record, 5)).toBe(record);
    // Its outcomes would be looked for nowhere: a copy of one would be applied again.
    expect(() => withOutcomePages(unpaged, begun, 5)).toThrow(/must pass on readPagedOutcomes/);
  });

  it('close at the size the store sets, as one that bills a write by its item does', () => {
    const billed = { ...limits, outcomePageBytes: 1024 };
    expect(pageBytes(billed)).toBe(1024);
    expect(pageBytes({ ...billed, maxItemBytes: 2_000 })).toBe(500);
    const state = { page: 0, bytes: 1000 };
    expect(appendOutcomes(state, [outcome('a', 1)], limits).state.page).toBe(0);
    expect(appendOutcomes(state, [outcome('a', 1)], billed).state.page).toBe(1);
  });

  it('append to the open page, tracking its bytes and latest sentAt', () => {
    const first = outcome('a', 30);
    const { state, write } = appendOutcomes(
      { page: 0, bytes: 0 },
      [first, outcome('b', 10)],
      limits,
    );
    expect(state).toEqual({ page: 0, bytes: pageEntryBytes(first) * 2, sentAt: 30 });
    // The page held nothing: this write begins it (a store may put it whole).
    expect(write).toMatchObject({ page: 0, sentAt: 30, begins: true });
    expect(write.records.map((r) => r.key)).toEqual(['a', 'b']);
    // Bytes the caller measured are taken as they are; a page holding some is appended to.
    const appended = appendOutcomes({ page: 0, bytes: 5 }, [first], limits, 7);
    expect(appended.state.bytes).toBe(12);
    expect(appended.write.begins).toBe(false);
    // An empty commit's page state stays without a sentAt.
    expect(appendOutcomes({ page: 2, bytes: 0 }, [], limits).state).toEqual({ page: 2, bytes: 0 });
  });

  it('close a page that reaches its size exactly, and keep what an empty commit knows', () => {
    const a = outcome('a', 20);
    const exact = appendOutcomes({ page: 0, bytes: PAGE_BYTES - pageEntryBytes(a) }, [a], limits);
    expect(exact.state).toEqual({ page: 1, bytes: 0, closedSentAt: 20 });
    // No outcome: the write still carries the closed pages' latest sentAt, and no sentAt of its own.
    const empty = appendOutcomes({ page: 2, bytes: 0, closedSentAt: 50 }, [], limits);
    expect(empty.write.sentAt).toBe(50);
    expect(empty.state).not.toHaveProperty('sentAt');
  });

  it('close a full page: the next begins, and the closed pages’ latest sentAt only grows', () => {
    const state = { page: 3, bytes: 0, closedSentAt: 50, itemsBefore: 7 };
    const small = { ...limits, maxItemBytes: 2_000 };
    const closed = appendOutcomes(state, [outcome('a', 20, 600)], small);
    // Written to the page it fills; the record moves on, keeping what it knew of earlier items.
    expect(closed.write).toMatchObject({ page: 3, sentAt: 50 });
    expect(closed.state).toEqual({ page: 4, bytes: 0, closedSentAt: 50, itemsBefore: 7 });
    const later = appendOutcomes({ page: 4, bytes: 0 }, [outcome('b', 90, 600)], small);
    expect(later.state).toEqual({ page: 5, bytes: 0, closedSentAt: 90 });
  });
});

describe('the measure of a page', () => {
  // Idempotency keys as long as a client may give them, and longer ingress ids.
  const long = (i: number, sentAt = i) => outcome(`${i}${'k'.repeat(249)}`, sentAt);

  it('counts each outcome as its entry: its JSON, its key again and an entry’s overhead', () => {
    const a = long(1);
    expect(pageEntryBytes(a)).toBe(jsonSize(a) + 250 + PAGE_ENTRY_BYTES);
    // Non-ASCII keys count their UTF-8 bytes.
    const wide = outcome('é'.repeat(10), 1);
    expect(pageEntryBytes(wide)).toBe(jsonSize(wide) + 20 + PAGE_ENTRY_BYTES);
    // A page of long keys holds their bytes twice: it closes at fewer outcomes than their JSON.
    const billed = { ...limits, outcomePageBytes: 1024 };
    let state: OutcomePageState = { page: 0, bytes: 0 };
    let count = 0;
    while (state.page === 0) {
      state = appendOutcomes(state, [long(count)], billed).state;
      count++;
    }
    expect(count).toBe(Math.ceil(1024 / pageEntryBytes(a)));
    expect(count).toBeLessThan(Math.ceil(1024 / jsonSize(a)));
  });

  it('holds a page and an outcome beside it only if the page item, its entries and its own part, fits', () => {
    const held = 3 * pageEntryBytes(long(1));
    const room = limits.maxItemBytes - PAGE_ITEM_BYTES - held;
    expect(outgrowsPage(held, room, limits.maxItemBytes)).toBe(false);
    expect(outgrowsPage(held, room + 1, limits.maxItemBytes)).toBe(true);
    // An empty page keeps nothing out; entries too large for a page of their own stay out.
    expect(outgrowsPage(0, room + 1, limits.maxItemBytes)).toBe(false);
    const alone = limits.maxItemBytes - PAGE_ITEM_BYTES;
    expect(outgrowsPage(held, alone, limits.maxItemBytes)).toBe(true);
    expect(outgrowsPage(held, alone + 1, limits.maxItemBytes)).toBe(false);
  });

  it('refuses an outcome past the item less a page, or whose entry no page item holds alone', () => {
    const reply = (key: string, json: number) => {
      const empty = outcome(key, 1);
      return outcome(key, 1, json - jsonSize(empty));
    };
    const most = maxOutcomeBytes(paged);
    expect(outcomeTooLarge(paged, reply('a', most))).toBe(false);
    expect(outcomeTooLarge(paged, reply('a', most + 1))).toBe(true);
    expect(outcomeTooLarge(unpaged, reply('a', most + 1))).toBe(false);
    // A key long beside a small page: the entry passes what a page item holds with no other.
    const small = { limits: { ...limits, maxItemBytes: 2_000 }, readPagedOutcomes: async () => [] };
    const key = 'k'.repeat(600);
    const fits = 2_000 - PAGE_ITEM_BYTES - 600 - PAGE_ENTRY_BYTES;
    expect(outcomeTooLarge(small as unknown as Store, reply(key, fits))).toBe(false);
    expect(outcomeTooLarge(small as unknown as Store, reply(key, fits + 1))).toBe(true);
    expect(fits + 1).toBeLessThan(maxOutcomeBytes(small as unknown as Store));
  });

  it('closes a page with no outcome more, as a commit that fills it would', () => {
    expect(
      closePage({ page: 2, bytes: 900, sentAt: 70, closedSentAt: 50, itemsBefore: 7 }),
    ).toEqual({ page: 3, bytes: 0, closedSentAt: 70, itemsBefore: 7 });
    expect(closePage({ page: 0, bytes: 900, sentAt: 70 })).toEqual({
      page: 1,
      bytes: 0,
      closedSentAt: 70,
    });
  });
});

/**
 * A store of pages in memory: `pages[n]` holds page n's outcomes, each page's `sentAt` the latest
 * of it and the pages before it. It records each read's arguments.
 */
function pagedStore(pages: PagedOutcome[][]) {
  const reads: { sentAt: number; fromPage: number | undefined }[] = [];
  const store = {
    limits,
    readIdempotency: async () => undefined,
    readPagedOutcomes: async (_actorId: string, sentAt: number, fromPage?: number) => {
      reads.push({ sentAt, fromPage });
      let upTo = Number.NEGATIVE_INFINITY;
      const found: PagedOutcome[] = [];
      pages.forEach((page, n) => {
        for (const o of page) upTo = Math.max(upTo, o.sentAt);
        if (n >= (fromPage ?? 0) && upTo >= sentAt) found.push(...page);
      });
      return found;
    },
  } as unknown as Store;
  return { store, reads };
}

const record = (outcomePage: OutcomePageState, life = 'l1') =>
  ({ id: 'counter/c', ver: 1, life, outcomePage }) as unknown as ActorRecord;

const batchSentAt = (...sentAts: number[]): Inbound[] =>
  sentAts.map((sentAt, i) => ({
    envelope: { id: `m${i}`, from: INGRESS, sentAt } as Envelope,
    queueSeq: String(i),
  }));

describe('the look-up of closed outcome pages', () => {
  function start(pages: PagedOutcome[][], capacity = 1_000) {
    const { store, reads } = pagedStore(pages);
    const clock = { now: () => 1_000 };
    const engine = { store, clock, pageKeys: new PageKeyCache(capacity) };
    const lookup = (...sentAts: number[]) =>
      new PagedLookup(engine, 'counter/c', batchSentAt(...sentAts));
    return { reads, engine, lookup, clock };
  }

  it('reads the pages once, then only those closed since, across turns', async () => {
    const pages = [[outcome('a', 5)], [outcome('b', 5)], [] as PagedOutcome[]];
    const { reads, lookup } = start(pages);
    const closedTwo = record({ page: 2, bytes: 0, closedSentAt: 5 });
    // A backlog sent at one instant: every message may be a copy of one in a closed page.
    expect(await lookup(5).applied(closedTwo, 'a', 5)).toBe(true);
    expect(await lookup(5).applied(closedTwo, 'b', 5)).toBe(true);
    expect(await lookup(5).applied(closedTwo, 'c', 5)).toBe(false);
    expect(reads).toEqual([{ sentAt: 5, fromPage: undefined }]);

    // Page 2, open when read, gets 'c' and closes: the next turn reads from it on.
    pages[2] = [outcome('c', 5)];
    const closedThree = record({ page: 3, bytes: 0, closedSentAt: 5 });
    expect(await lookup(5).applied(closedThree, 'c', 5)).toBe(true);
    expect(reads.at(-1)).toEqual({ sentAt: 5, fromPage: 2 });
    expect(reads).toHaveLength(2);
  });

  it('needs to look only for a message sent before a closed page closed, or before the pages began', () => {
    const { lookup } = start([]);
    const closed = record({ page: 2, bytes: 0, closedSentAt: 5 });
    expect(lookup(5).mayHold(closed, 5)).toBe(true);
    expect(lookup(5).mayHold(closed, 6)).toBe(false);
    expect(lookup(5).mayHold(record({ page: 0, bytes: 0 }), 1)).toBe(false);
    const begun = record({ page: 0, bytes: 0, itemsBefore: 3 });
    expect(lookup(5).mayHold(begun, 3)).toBe(true);
    expect(lookup(5).mayHold(begun, 4)).toBe(false);
    expect(lookup(5).mayHold({ id: 'counter/c', ver: 1 } as unknown as ActorRecord, 1)).toBe(false);
  });

  it('reads again for a message sent before the pages it knows, and for a new life of the actor', async () => {
    const pages = [[outcome('a', 1)], [outcome('b', 5)]];
    const { reads, lookup } = start(pages);
    const closed = record({ page: 2, bytes: 0, closedSentAt: 5 });
    expect(await lookup(5).applied(closed, 'b', 5)).toBe(true);
    // The first read skipped page 0 (sent before 5): a message sent at 1 reads it.
    expect(await lookup(1).applied(closed, 'a', 1)).toBe(true);
    expect(reads.map((r) => r.sentAt)).toEqual([5, 1]);
    // Another life numbers its pages from 0 again: what the worker knew is not its.
    expect(
      await lookup(1).applied(record({ page: 2, bytes: 0, closedSentAt: 5 }, 'l2'), 'a', 1),
    ).toBe(true);
    expect(reads).toHaveLength(3);
  });

  it('asks the store again about a key whose outcome expired as read, and needs no read for a message sent after every closed page', async () => {
    const pages = [[{ ...outcome('a', 5), expiresAt: 2_000 }]];
    const { reads, lookup, clock } = start(pages);
    const closed = record({ page: 1, bytes: 0, closedSentAt: 5 });
    expect(await lookup(5).applied(closed, 'a', 5)).toBe(true);
    expect(await lookup(6).applied(closed, 'x', 6)).toBe(false);
    expect(reads).toHaveLength(1);

    // Past its expiry the store is asked; here it still holds the outcome (a redrive renewed it).
    clock.now = () => 3_000;
    pages[0] = [{ ...outcome('a', 5), expiresAt: 9_000 }];
    expect(await lookup(5).applied(closed, 'a', 5)).toBe(true);
    expect(reads).toHaveLength(2);
    pages[0] = [];
    clock.now = () => 10_000;
    expect(await lookup(5).applied(closed, 'a', 5)).toBe(false);
  });

  it('keeps at most its capacity of keys, dropping the least recently used actor first', () => {
    const cache = new PageKeyCache(3);
    const known = (life: string) => ({ life, from: 0, upTo: 1, keys: new Map<string, number>() });
    const one = known('1');
    cache.add('one', one, [outcome('a', 0), outcome('b', 0)]);
    cache.add('two', known('2'), [outcome('c', 0)]);
    expect(cache.size).toBe(3);
    cache.get('one');
    cache.add('three', known('3'), [outcome('d', 0)]);
    expect(cache.get('two')).toBeUndefined();
    expect(cache.get('one')).toBe(one);
    expect(cache.size).toBe(3);
    // Adding to a kept entry counts only new keys.
    cache.add('one', one, [outcome('a', 0)]);
    expect(cache.size).toBe(3);
  });
});
