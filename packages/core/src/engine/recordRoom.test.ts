import { describe, expect, it } from 'vitest';
import type { OverflowMark } from '../adapter/marks.ts';
import type { StoreLimits } from '../adapter/ports.ts';
import type { ActorRecord, OutboxItem } from '../adapter/storedRecords.ts';
import { jsonSize } from '../shared/jsonSize.ts';
import type { MessageEffects } from './commitParts.ts';
import { apartMarkGrowth, placeSends } from './commitPlacement.ts';
import type { Engine } from './createEngine.ts';
import { pageStateGrowth } from './pageStateGrowth.ts';
import { roomFirst, withRecord } from './recordRoom.ts';

const limits: StoreLimits = {
  maxTransactionItems: 100,
  maxTransactionBytes: 4_000_000,
  maxItemBytes: 1_000,
};

/** What `withRecord` reads of an engine. */
const engine = {
  store: { limits },
  markRetentionMs: 24 * 60 * 60 * 1000,
  recordPeers: 1_000,
  clock: { now: () => 0 },
} as unknown as Engine;

/** A record whose outcome page state is at its widest: it leaves no room for that. */
const recordWith = (pad: string, ver = 3): ActorRecord => ({
  id: 'tally/a',
  ver,
  state: { pad },
  inboxOffset: '7',
  marks: {},
  sentSeq: 1,
  outcomePage: {
    page: 999_999,
    bytes: 99_999,
    sentAt: 9_999_999_999_999,
    closedSentAt: 9_999_999_999_999,
  },
});

/** A send too large to be held in a record near the limit: it goes into an item apart. */
const sends: OutboxItem[] = [
  {
    actorId: 'tally/a',
    seq: 1,
    envelopes: [
      {
        id: 'tally/a:1',
        from: 'tally/a',
        seq: 1,
        to: 'sink/s',
        name: 'take',
        payload: 'z'.repeat(400),
        sentAt: 1,
      },
    ],
    createdAt: 1,
  },
];

describe('withRecord', () => {
  it("keeps room for what its commit adds when the sends go apart: a record that passes a turn's size check stays within the item limit", () => {
    const empty = withRecord(engine, recordWith(''));
    const pad = 'x'.repeat(limits.maxItemBytes - empty.recordBytes - empty.recordGrowth);
    const largest = withRecord(engine, recordWith(pad));
    // The largest record a turn lets a message commit (see applyMessage's STATE_TOO_LARGE).
    expect(largest.recordBytes + largest.recordGrowth).toBe(limits.maxItemBytes);

    const placed = placeSends(largest.record, sends, limits, largest.recordBytes);
    expect(placed.apart).toHaveLength(1);
    expect(placed.record.outboxApart).toBe(true);
    expect(jsonSize(placed.record)).toBeLessThanOrEqual(limits.maxItemBytes);
  });

  it('keeps room for a version number that gains a digit at the commit (9 to 10)', () => {
    const empty = withRecord(engine, recordWith('', 9));
    // A version that keeps its digits (3 to 4) needs no room; 9 to 10 needs one byte.
    const kept = recordWith('', 3);
    const commitMarks = pageStateGrowth(kept) + apartMarkGrowth(kept);
    expect(withRecord(engine, kept).recordGrowth).toBe(commitMarks);
    expect(empty.recordGrowth).toBe(commitMarks + 1);
    const pad = 'x'.repeat(limits.maxItemBytes - empty.recordBytes - empty.recordGrowth);
    const largest = withRecord(engine, recordWith(pad, 9));
    expect(largest.recordBytes + largest.recordGrowth).toBe(limits.maxItemBytes);

    // The commit writes version 10, and its sends apart.
    const committed = { ...largest.record, ver: 10 };
    const placed = placeSends(committed, sends, limits);
    expect(placed.apart).toHaveLength(1);
    expect(jsonSize(placed.record)).toBeLessThanOrEqual(limits.maxItemBytes);
  });

  it('keeps that room for the version after a commit that moves marks out first (8 to 9, then 10)', () => {
    // Ten peers' marks, more than the item limit holds with the state: some must move out.
    const marks = Object.fromEntries(
      Array.from({ length: 10 }, (_, i) => [`peer/p${i}`, { seq: 1, at: i + 1 }]),
    );
    const current: ActorRecord = { ...recordWith('x'.repeat(700), 8), marks };
    const effects = { ...withRecord(engine, current), envelopes: [], idempotency: undefined };
    expect(effects.overflow.length).toBeGreaterThan(0);

    const first = roomFirst(engine, current, effects, 1, () => false);
    expect(first).toBeDefined();
    // The room's commit writes version 9, the message's then 10: a digit more than measured.
    const kept = recordWith('', 3);
    const commitMarks = pageStateGrowth(kept) + apartMarkGrowth(kept);
    expect(first!.effects.recordGrowth).toBe(commitMarks + 1);
  });
});

describe('roomFirst: pages of state written ahead of their message', () => {
  const current = recordWith('');
  const page = (n: number): OverflowMark => ({
    kind: 'page',
    peer: `p${n}`,
    mark: { entries: ['e'.repeat(50)] },
    expiresAt: 1,
  });
  // A page the message forgets: the record still counts it until the message's commit.
  const drop: OverflowMark = { kind: 'page', peer: 'p0', mark: null, expiresAt: 1 };
  // A peer's mark the message itself moves out: it is not in `current`, so it cannot go first.
  const sender: OverflowMark = {
    kind: 'sender',
    peer: 'peer/q',
    mark: { seq: 1, at: 1 },
    expiresAt: 1,
  };
  const effectsWith = (overflow: OverflowMark[]): MessageEffects => ({
    ...withRecord(engine, current),
    envelopes: [],
    idempotency: undefined,
    overflow,
  });
  const withBytes = (maxTransactionBytes: number) =>
    ({ ...engine, store: { limits: { ...limits, maxTransactionBytes } } }) as unknown as Engine;
  const fits = () => true;

  it('writes ahead only the pages the message puts, not its marks or the pages it drops, and asks whether the message fits with those but without its pages', () => {
    const effects = effectsWith([sender, page(1), drop, page(2)]);
    const asked: (readonly OverflowMark[] | undefined)[] = [];
    const first = roomFirst(engine, current, effects, 10, (without) => {
      asked.push(without.overflow);
      return true;
    });
    expect(asked).toEqual([[sender, drop]]);
    expect(first?.room.overflow).toEqual([page(1), page(2)]);
    expect(first?.room.record).toBe(current);
    // The message commits the rest: its drop, and no page again.
    expect(first?.effects.overflow).toContainEqual(drop);
    expect(
      first?.effects.overflow?.filter((mark) => mark.mark !== null && mark.kind === 'page'),
    ).toEqual([]);
  });

  it('writes at most `most` pages ahead', () => {
    const first = roomFirst(engine, current, effectsWith([page(1), page(2), page(3)]), 2, fits);
    expect(first?.room.overflow).toEqual([page(1), page(2)]);
    expect(first?.effects.overflow).toEqual([page(3)]);
  });

  it("writes ahead only the pages that fit in the transaction's bytes beside the record", () => {
    // The room's record, a digit more for its version, and two pages: exactly the limit.
    const two = jsonSize(current) + 1 + 2 * jsonSize(page(1));
    const overflow = [page(1), page(2), page(3)];
    expect(
      roomFirst(withBytes(two), current, effectsWith(overflow), 10, fits)?.room.overflow,
    ).toEqual([page(1), page(2)]);
    expect(
      roomFirst(withBytes(two - 1), current, effectsWith(overflow), 10, fits)?.room.overflow,
    ).toEqual([page(1)]);
  });

  it('writes none ahead when the message would not fit without its pages, or puts none', () => {
    expect(roomFirst(engine, current, effectsWith([page(1)]), 10, () => false)).toBeUndefined();
    expect(roomFirst(engine, current, effectsWith([sender, drop]), 10, fits)).toBeUndefined();
  });
});
