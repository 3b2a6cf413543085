import { describe, expect, it } from 'vitest';
import type { StoreLimits } from '../adapter/ports.ts';
import type { ActorRecord, PagedOutcome } from '../adapter/storedRecords.ts';
import { jsonSize } from '../shared/jsonSize.ts';
import type { PendingWrites } from './commitParts.ts';
import { PENDING_FIELDS, placedBytes, placeOutcomes, placeSends } from './commitPlacement.ts';

const limits: StoreLimits = {
  maxTransactionItems: 100,
  maxTransactionBytes: 4_000_000,
  maxItemBytes: 400_000,
};

const record: ActorRecord = {
  id: 'tally/a',
  ver: 3,
  state: { n: 1 },
  inboxOffset: '7',
  marks: {},
  sentSeq: 0,
};

const outcome = (key: string): PagedOutcome => ({
  key,
  actorId: 'tally/a',
  outcome: { ok: true, value: null },
  expiresAt: 1_000,
  sentAt: 5,
});
const { sentAt: _, ...unpaged } = outcome('k');

/** Writes with every field set, each to a value of its own. */
const every: PendingWrites = {
  outbox: [{ actorId: 'tally/a', seq: 1, envelopes: [], createdAt: 1 }],
  idempotency: [outcome('k')],
  replaceIdempotency: [unpaged],
  outcomes: { page: 9, sentAt: 1, records: [] },
  deadLetters: { put: [], remove: ['m1'] },
  overflow: [{ kind: 'sender', peer: 'b/1', mark: { seq: 1, at: 1 }, expiresAt: 2 }],
  timers: { put: [], remove: ['t1'] },
};

describe('placeOutcomes', () => {
  it('appends the outcomes to the current page and keeps every other write', () => {
    expect(Object.keys(every).sort()).toEqual(Object.keys(PENDING_FIELDS).sort());
    const current = { ...record, outcomePage: { page: 2, bytes: 10 } };
    const { record: placed, writes } = placeOutcomes(current, 4, every, limits, 100);
    expect(placed).toStrictEqual({
      ...current,
      ver: 4,
      outcomePage: { page: 2, bytes: 110, sentAt: 5 },
    });
    expect(writes).toStrictEqual({
      ...every,
      idempotency: [],
      outcomes: { page: 2, sentAt: 5, records: [outcome('k')], begins: false },
    });
    expect(current.ver).toBe(3);
  });

  it('adds no part a commit does not have, and no page write without outcomes', () => {
    const bare: PendingWrites = { outbox: [], idempotency: [outcome('k')] };
    const current = { ...record, outcomePage: { page: 0, bytes: 0 } };
    expect(placeOutcomes(current, 4, bare, limits).writes).toStrictEqual({
      outbox: [],
      idempotency: [],
      outcomes: { page: 0, sentAt: 5, records: [outcome('k')], begins: true },
    });
    const none: PendingWrites = { outbox: [], idempotency: [] };
    const placed = placeOutcomes(current, 4, none, limits);
    expect(placed.writes).toStrictEqual(none);
    expect(placed.record).toStrictEqual({ ...current, ver: 4 });
    expect(placeOutcomes(record, 4, bare, limits).writes).toStrictEqual({
      outbox: [],
      idempotency: [unpaged],
    });
  });

  it('puts each outcome in an item of its own, without its sentAt, when the record keeps no pages', () => {
    const { record: placed, writes } = placeOutcomes(record, 4, every, limits);
    expect(placed).toStrictEqual({ ...record, ver: 4 });
    expect(writes).toStrictEqual({ ...every, idempotency: [unpaged] });
  });
});

describe('placedBytes', () => {
  it('counts the placed record from the size before, its ver and its page state changed', () => {
    const paged = { ...record, ver: 9, outcomePage: { page: 0, bytes: 0 } };
    const writes: PendingWrites = { outbox: [], idempotency: [outcome('k')] };
    for (const before of [record, { ...record, ver: 9 }, paged, { ...paged, ver: 99 }]) {
      const { record: placed } = placeOutcomes(before, before.ver + 1, writes, limits);
      expect(placedBytes(before, placed, jsonSize(before))).toBe(jsonSize(placed));
    }
  });
});

describe('placeSends', () => {
  const outbox = [{ actorId: 'tally/a', seq: 1, envelopes: [], createdAt: 1 }];

  it('gives the size of a record that holds its sends, and none when they go apart', () => {
    const held = placeSends(record, outbox, limits);
    expect(held.apart).toStrictEqual([]);
    expect(held.bytes).toBe(jsonSize(held.record));
    // Held right up to the item limit.
    const full = placeSends(record, outbox, { ...limits, maxItemBytes: jsonSize(held.record) });
    expect(full.bytes).toBe(jsonSize(held.record));
    const tight = { ...limits, maxItemBytes: jsonSize(held.record) - 1 };
    const apart = placeSends(record, outbox, tight);
    expect(apart.apart).toStrictEqual(outbox);
    expect(apart.record).toStrictEqual({ ...record, outboxApart: true });
    expect(apart.bytes).toBeUndefined();
    expect(placeSends(record, [], limits)).toStrictEqual({ record, apart: [] });
  });

  it('measures only the sends when told the size of the record, which may hold sends already', () => {
    const envelope = {
      id: 'tally/a:l.2',
      from: 'tally/a',
      seq: 2,
      to: 'tally/b',
      name: 'add',
      payload: { n: 'é"' },
      sentAt: 3,
    };
    const sends = [{ actorId: 'tally/a', seq: 2, envelopes: [envelope], createdAt: 12 }];
    const holdingAlready = { ...record, outbox };
    const unset = { ...record, outbox: undefined };
    for (const before of [record, holdingAlready, unset]) {
      for (const next of [outbox, sends]) {
        const told = placeSends(before, next, limits, jsonSize(before));
        expect(told).toStrictEqual(placeSends(before, next, limits));
        expect(told.bytes).toBe(jsonSize(told.record));
      }
    }
    const tight = { ...limits, maxItemBytes: jsonSize({ ...record, outbox: sends }) - 1 };
    expect(placeSends(record, sends, tight, jsonSize(record)).apart).toStrictEqual(sends);
  });
});
