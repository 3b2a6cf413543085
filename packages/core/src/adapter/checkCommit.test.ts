import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../errors.ts';
import { jsonSize } from '../shared/jsonSize.ts';
import { checkCommit } from './checkCommit.ts';
import {
  PAGE_ENTRY_BYTES,
  PAGE_ITEM_BYTES,
  pageEntryBytes,
  pageItemBytes,
} from './outcomePageBytes.ts';
import type { Commit, StoreLimits } from './ports.ts';
import type { DeadLetter, IdempotencyRecord, OutboxItem, Timer } from './storedRecords.ts';

const limits: StoreLimits = {
  maxTransactionItems: 100,
  maxTransactionBytes: 4_000_000,
  maxItemBytes: 400_000,
};
const id = 'tally/a';
const base: Commit = {
  expectedVer: 1,
  record: { id, ver: 2, inboxOffset: '3', marks: {}, sentSeq: 0, state: { n: 1 } },
  outbox: [],
  idempotency: [],
};
const outcome = (key: string): IdempotencyRecord => ({
  key,
  actorId: id,
  outcome: { ok: true, value: null },
  expiresAt: 1_000,
});
const timer = (timerId: string): Timer => ({
  actorId: id,
  id: timerId,
  gen: 'g',
  at: 5,
  name: 'tick',
  payload: null,
  createdAt: 1,
});
const letter = (messageId: string): DeadLetter => ({
  actorId: id,
  messageId,
  envelope: { id: messageId, from: 'ingress', seq: 0, to: id, name: 'add', payload: {}, sentAt: 1 },
  redrivable: true,
  error: { code: 'REJECTED', message: 'no', details: {} },
  attempts: 1,
  at: 2,
});
const item = (seq: number): OutboxItem => ({ actorId: id, seq, envelopes: [], createdAt: 1 });
const mark = (peer: string) => ({
  kind: 'sender' as const,
  peer,
  mark: { seq: 1, at: 1 },
  expiresAt: 9,
});

/** The error `checkCommit` throws for `commit`, or undefined. */
function refusal(commit: Commit): { code: string; message: string; details?: unknown } | undefined {
  try {
    checkCommit(commit, limits);
    return undefined;
  } catch (error) {
    return error as { code: string; message: string; details?: unknown };
  }
}

describe('checkCommit', () => {
  it('takes a commit of distinct writes, one of each or several', () => {
    expect(refusal(base)).toBeUndefined();
    expect(refusal({ ...base, outbox: [item(0)] })).toBeUndefined();
    expect(
      refusal({
        ...base,
        idempotency: [outcome('k1')],
        replaceIdempotency: [outcome('k2')],
        outcomes: { page: 0, sentAt: 1, records: [{ ...outcome('k3'), sentAt: 1 }] },
        deadLetters: { put: [letter('m1')], remove: ['m2'] },
        overflow: [mark('p1'), mark('p2')],
        timers: { put: [timer('t1')], remove: ['t2'] },
      }),
    ).toBeUndefined();
  });

  it.each<[string, Partial<Commit>, string, Record<string, unknown>]>([
    [
      'an idempotency key put and replaced',
      { idempotency: [outcome('k1')], replaceIdempotency: [outcome('k1')] },
      'holds the idempotency key k1 twice',
      { key: 'k1' },
    ],
    [
      'an idempotency key put and paged',
      {
        idempotency: [outcome('k0'), outcome('k1')],
        outcomes: { page: 0, sentAt: 1, records: [{ ...outcome('k1'), sentAt: 1 }] },
      },
      'holds the idempotency key k1 twice',
      { key: 'k1' },
    ],
    [
      'an outbox item put twice',
      { outbox: [item(1), item(2), item(1)] },
      'holds outbox item 1 of tally/a twice or with a bad seq',
      { seq: 1 },
    ],
    [
      'an outbox item both held in the record and put apart',
      { record: { ...base.record, outbox: [item(4)] }, outbox: [item(4)] },
      'holds outbox item 4 of tally/a twice',
      { seq: 4 },
    ],
    [
      'an outbox item with a negative seq',
      { outbox: [item(1), item(-1)] },
      'holds outbox item -1 of tally/a twice or with a bad seq',
      { seq: -1 },
    ],
    [
      'an outbox item of another actor held in the record',
      { record: { ...base.record, outbox: [{ ...item(1), actorId: 'other/b' }] } },
      'commit for tally/a holds an outbox item of other/b: an actor keeps only its own',
      { actorId: 'tally/a' },
    ],
    [
      'an outbox item with a negative seq held in the record',
      { record: { ...base.record, outbox: [item(-2)] } },
      'holds outbox item -2 of tally/a twice or with a bad seq',
      { seq: -2 },
    ],
    [
      'a dead letter of another actor',
      { deadLetters: { put: [{ ...letter('m1'), actorId: 'other/b' }], remove: [] } },
      'holds a dead letter or timer of other/b: an actor keeps only its own',
      { actorId: 'tally/a' },
    ],
    [
      'a timer of another actor',
      { timers: { put: [{ ...timer('t1'), actorId: 'other/b' }], remove: [] } },
      'holds a dead letter or timer of other/b: an actor keeps only its own',
      { actorId: 'tally/a' },
    ],
    [
      'outcomes appended to a negative page',
      { outcomes: { page: -1, sentAt: 1, records: [{ ...outcome('k1'), sentAt: 1 }] } },
      'appends outcomes to page -1: a page is a non-negative integer',
      { actorId: 'tally/a' },
    ],
    [
      'an outbox item with a fractional seq',
      { outbox: [item(1.5)] },
      'holds outbox item 1.5 of tally/a',
      { seq: 1.5 },
    ],
    [
      'a dead letter put and removed',
      { deadLetters: { put: [letter('m1')], remove: ['m1'] } },
      'writes dead letter m1 twice',
      { messageId: 'm1' },
    ],
    [
      'a dead letter removed twice',
      { deadLetters: { put: [], remove: ['m1', 'm1'] } },
      'writes dead letter m1 twice',
      { messageId: 'm1' },
    ],
    [
      'a mark moved out twice',
      { overflow: [mark('p1'), mark('p2'), mark('p1')] },
      'moves the sender mark of p1 out twice',
      { peer: 'p1' },
    ],
    [
      'a timer put and removed',
      { timers: { put: [timer('t1')], remove: ['t1'] } },
      'writes timer t1 twice',
      { timer: 't1' },
    ],
    [
      'a timer put twice',
      { timers: { put: [timer('t1'), timer('t1')], remove: [] } },
      'writes timer t1 twice',
      { timer: 't1' },
    ],
  ])('refuses %s, naming it', (_, parts, message, details) => {
    const error = refusal({ ...base, ...parts });
    expect(error?.code).toBe(ErrorCode.INVALID_ARGUMENT);
    expect(error?.message).toContain(message);
    expect(error?.details).toMatchObject(details);
  });

  it('counts a page of outcomes as one item', () => {
    const records = [outcome('k1'), outcome('k2')].map((o) => ({ ...o, sentAt: 1 }));
    const commit = { ...base, outcomes: { page: 0, sentAt: 1, records } };
    expect(() => checkCommit(commit, { ...limits, maxTransactionItems: 2 })).not.toThrow();
    expect(() => checkCommit(commit, { ...limits, maxTransactionItems: 1 })).toThrow(
      expect.objectContaining({
        code: ErrorCode.TRANSACTION_TOO_LARGE,
        details: { what: 'maxTransactionItems', limit: 1, actual: 2 },
      }),
    );
  });

  it('counts each timer put or removed as an item', () => {
    const timers = { put: [timer('t1'), timer('t2')], remove: ['t3'] };
    // The record and three timers.
    expect(refusal({ ...base, timers })).toBeUndefined();
    const tight = { ...limits, maxTransactionItems: 3 };
    expect(() => checkCommit({ ...base, timers }, tight)).toThrow(
      expect.objectContaining({
        code: ErrorCode.TRANSACTION_TOO_LARGE,
        details: { what: 'maxTransactionItems', limit: 3, actual: 4 },
      }),
    );
  });

  it('measures items exactly, non-ASCII text too: takes one at the limit, refuses one a byte over', () => {
    const text = 'é'.repeat(1_000);
    const commit = { ...base, record: { ...base.record, state: { text } } };
    const size = jsonSize(commit.record);
    expect(size).toBe(new TextEncoder().encode(JSON.stringify(commit.record)).length);
    for (const [what, tight] of [
      ['maxItemBytes', { ...limits, maxItemBytes: size }],
      ['maxTransactionBytes', { ...limits, maxTransactionBytes: size }],
    ] as const) {
      expect(() => checkCommit(commit, tight)).not.toThrow();
      const over = { ...tight, [what]: size - 1 };
      expect(() => checkCommit(commit, over)).toThrow(
        expect.objectContaining({
          code: ErrorCode.TRANSACTION_TOO_LARGE,
          details: { what, limit: size - 1, actual: size },
        }),
      );
    }
  });

  it('measures the outcomes of a page together, as its entries, against the item limit', () => {
    const outcomes = [outcome('é-1'), outcome('é-2')].map((o) => ({ ...o, sentAt: 1 }));
    const commit = { ...base, outcomes: { page: 0, sentAt: 1, records: outcomes } };
    // Each outcome's JSON, its key again (UTF-8: é is 2 bytes) and an entry's overhead, and the
    // page item's own part.
    const page = pageItemBytes(pageEntryBytes(outcomes[0]!) + pageEntryBytes(outcomes[1]!));
    expect(pageEntryBytes(outcomes[0]!)).toBe(jsonSize(outcomes[0]) + 4 + PAGE_ENTRY_BYTES);
    expect(page).toBe(PAGE_ITEM_BYTES + jsonSize(outcomes) - 3 + 8 + 2 * PAGE_ENTRY_BYTES);
    const record = jsonSize(base.record);
    const fits = { ...limits, maxItemBytes: page, maxTransactionBytes: page + record };
    expect(() => checkCommit(commit, fits)).not.toThrow();
    expect(() => checkCommit(commit, { ...fits, maxItemBytes: page - 1 })).toThrow(
      expect.objectContaining({ details: { what: 'maxItemBytes', limit: page - 1, actual: page } }),
    );
    // The page counts toward the transaction's bytes too, beside the record.
    const short = { ...fits, maxTransactionBytes: page + record - 1 };
    expect(() => checkCommit(commit, short)).toThrow(
      expect.objectContaining({
        details: { what: 'maxTransactionBytes', limit: page + record - 1, actual: page + record },
      }),
    );
  });

  it('takes the sizes the engine measured, or measures them all and compares when told to verify', () => {
    const outcomes = [{ ...outcome('k'), sentAt: 1 }];
    const commit = { ...base, outcomes: { page: 0, sentAt: 1, records: outcomes } };
    const sizes = { record: jsonSize(base.record), outcomes: pageEntryBytes(outcomes[0]!) };
    const small = { ...limits, maxItemBytes: sizes.record + pageItemBytes(sizes.outcomes) };
    expect(() => checkCommit({ ...commit, measured: sizes }, small)).not.toThrow();
    expect(() =>
      checkCommit({ ...commit, measured: sizes }, small, { verifyMeasured: true }),
    ).not.toThrow();
    // Taken as they are: a size said to pass the item limit is refused without a walk.
    for (const [part, over] of [
      ['record', { record: small.maxItemBytes + 1 }],
      ['outcomes', { outcomes: small.maxItemBytes + 1 }],
    ] as const) {
      // The page item is its entries and its own part.
      const actual = part === 'record' ? over.record : pageItemBytes(over.outcomes);
      expect(() => checkCommit({ ...commit, measured: over }, small), part).toThrow(
        expect.objectContaining({
          details: { what: 'maxItemBytes', limit: small.maxItemBytes, actual },
        }),
      );
      // Verified, a size that is not the part's own is a bug in whoever measured it.
      expect(() =>
        checkCommit({ ...commit, measured: over }, small, { verifyMeasured: true }),
      ).toThrow(/was measured as .* but its record takes \d+ bytes and its outcomes \d+/);
    }
  });
});
