import { describe, expect, it } from 'vitest';
import { jsonSize } from '../adapter/conflicts.ts';
import type { OverflowKey, OverflowMark, SenderMark } from '../adapter/marks.ts';
import type { Store } from '../adapter/ports.ts';
import type { ActorRecord } from '../adapter/storedRecords.ts';
import { RECORD_GAPS } from './channels.ts';
import { boundPeers, MOVES_PER_MESSAGE, OverflowLookup, RECORD_PEERS } from './overflow.ts';

const DAY = 86_400_000;
const now = 100 * DAY;
const options = { now, retentionMs: 28 * DAY, maxItemBytes: 400_000 };

/** A record listing `senders` sender marks and `targets` channels, the i-th one used at `i`. */
function recordWith(senders: number, targets = 0, extra: Partial<ActorRecord> = {}): ActorRecord {
  const peers = (n: number, prefix: string) =>
    Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}/${i}`, { seq: 1, at: i }]));
  return {
    id: 'fan/in',
    ver: 3,
    state: { n: 1 },
    inboxOffset: '9',
    marks: peers(senders, 's'),
    sentSeq: targets,
    channels: peers(targets, 't'),
    ...extra,
  };
}

describe('boundPeers', () => {
  it('leaves a record with few peers as it is', () => {
    const record = recordWith(RECORD_PEERS, RECORD_PEERS);
    const bounded = boundPeers(record, options);
    expect(bounded.record).toBe(record);
    expect(bounded.moved).toEqual([]);
    expect(bounded.bytes).toBe(jsonSize(record));
  });

  it('moves out the least recently used peers beyond the limit, stamping the record', () => {
    const bounded = boundPeers(recordWith(RECORD_PEERS + 2, RECORD_PEERS + 1), options);
    expect(bounded.moved).toEqual([
      { kind: 'sender', peer: 's/0', mark: { seq: 1, at: 0 }, expiresAt: now + 28 * DAY },
      { kind: 'sender', peer: 's/1', mark: { seq: 1, at: 1 }, expiresAt: now + 28 * DAY },
      { kind: 'channel', peer: 't/0', mark: { seq: 1, at: 0 }, expiresAt: now + 28 * DAY },
    ]);
    expect(Object.keys(bounded.record.marks)).toHaveLength(RECORD_PEERS);
    expect(bounded.record.marks['s/0']).toBeUndefined();
    expect(bounded.record.marks[`s/${RECORD_PEERS + 1}`]).toBeDefined();
    expect(Object.keys(bounded.record.channels ?? {})).toHaveLength(RECORD_PEERS);
    expect(bounded.record.overflowedAt).toBe(now);
  });

  it('moves at most a step per message for the count, the oldest first', () => {
    const bounded = boundPeers(recordWith(RECORD_PEERS + 3 * MOVES_PER_MESSAGE), options);
    expect(bounded.moved).toHaveLength(MOVES_PER_MESSAGE);
    expect(bounded.moved.map((m) => (m.mark as SenderMark).at)).toEqual(
      Array.from({ length: MOVES_PER_MESSAGE }, (_, i) => i),
    );
  });

  it('picks the least recently used by time, whatever the order the record lists them in', () => {
    for (const extra of [1, 10]) {
      const n = RECORD_PEERS + extra;
      // Listed newest first: s/0 was used last, s/<n-1> first.
      const marks = Object.fromEntries(
        Array.from({ length: n }, (_, i) => [`s/${i}`, { seq: 1, at: n - i }]),
      );
      const bounded = boundPeers({ ...recordWith(0), marks }, options);
      expect(bounded.moved.map((m) => m.peer).sort()).toEqual(
        Array.from({ length: extra }, (_, i) => `s/${n - 1 - i}`).sort(),
      );
    }
  });

  it('moves as many as it takes to fit the item limit', () => {
    const record = recordWith(40, 40, { state: { text: 'x'.repeat(2_000) } });
    const maxItemBytes = jsonSize(record) - 1_000;
    const bounded = boundPeers(record, { ...options, maxItemBytes });
    expect(bounded.bytes).toBe(jsonSize(bounded.record));
    expect(bounded.bytes).toBeLessThanOrEqual(maxItemBytes);
    // Only as many as needed: one fewer would not fit.
    const kept =
      Object.keys(bounded.record.marks).length + Object.keys(bounded.record.channels ?? {}).length;
    expect(kept).toBeGreaterThan(0);
    expect(kept + bounded.moved.length).toBe(80);
    const last = bounded.moved.at(-1)!;
    const field = last.kind === 'sender' ? 'marks' : 'channels';
    const restored = {
      ...bounded.record,
      [field]: { ...bounded.record[field], [last.peer]: last.mark },
    };
    expect(jsonSize(restored)).toBeGreaterThan(maxItemBytes);
  });

  it('moves every peer out when the state alone is too large, and says how large it is', () => {
    const record = recordWith(3, 3, { state: { text: 'x'.repeat(5_000) } });
    const bounded = boundPeers(record, { ...options, maxItemBytes: 4_000 });
    expect(bounded.moved).toHaveLength(6);
    expect(bounded.record.marks).toEqual({});
    expect(bounded.bytes).toBeGreaterThan(4_000);
  });

  it('keeps a recent overflow stamp and drops one older than the retention', () => {
    const recent = recordWith(1, 0, { overflowedAt: now - DAY });
    expect(boundPeers(recent, options).record.overflowedAt).toBe(now - DAY);
    const stale = recordWith(1, 0, { overflowedAt: now - 29 * DAY });
    expect(boundPeers(stale, options).record).not.toHaveProperty('overflowedAt');
    // Exactly the retention old: still kept.
    const edge = recordWith(1, 0, { overflowedAt: now - 28 * DAY });
    expect(boundPeers(edge, options).record.overflowedAt).toBe(now - 28 * DAY);
  });

  it('moves out a mark with more gaps than a record lists, alone, and keeps one with as many', () => {
    const gaps = (n: number) => Array.from({ length: n }, (_, i) => [2 * i, 2 * i + 1] as const);
    const record = recordWith(3, 1, {
      marks: {
        's/0': { seq: 1, at: 0 },
        's/1': { seq: 90, at: 1, missing: gaps(RECORD_GAPS) },
        's/2': { seq: 90, at: 2, missing: gaps(RECORD_GAPS + 1) },
      },
    });
    const bounded = boundPeers(record, options);
    expect(bounded.moved).toEqual([
      { kind: 'sender', peer: 's/2', mark: record.marks['s/2'], expiresAt: now + 28 * DAY },
    ]);
    expect(Object.keys(bounded.record.marks)).toEqual(['s/0', 's/1']);
    expect(bounded.record.channels).toEqual(record.channels);
    expect(bounded.bytes).toBe(jsonSize(bounded.record));
  });

  it('moves a mark with many gaps once, when it is also among the least recent', () => {
    const gaps = Array.from({ length: RECORD_GAPS + 1 }, (_, i) => [2 * i, 2 * i + 1] as const);
    const record = recordWith(RECORD_PEERS + 1);
    const oldest = { seq: 90, at: -1, missing: gaps };
    const bounded = boundPeers({ ...record, marks: { ...record.marks, 's/old': oldest } }, options);
    expect(bounded.moved.map((m) => m.peer)).toEqual(['s/old', 's/0']);
  });

  it('moves exactly as many marks as it takes to fit an item, counting the limit as fitting', () => {
    const record = recordWith(20, 10);
    // The record's size with its `k` least recent senders moved out (sender `at`s are 0…19,
    // as are the channels'; ties go to the senders, listed first).
    const order = [...Array(10).keys()].flatMap((i) => [`s/${i}`, `t/${i}`]);
    const sizeWith = (k: number) => {
      const gone = new Set(order.slice(0, k));
      const keep = (of: Record<string, SenderMark>, prefix: string) =>
        Object.fromEntries(
          Object.entries(of).filter(([peer]) => !gone.has(peer) || !peer.startsWith(prefix)),
        );
      return jsonSize({
        ...record,
        marks: keep(record.marks, 's'),
        channels: keep(record.channels!, 't'),
        overflowedAt: now,
      });
    };
    expect(boundPeers(record, { ...options, maxItemBytes: jsonSize(record) }).moved).toEqual([]);
    // Moving one mark out adds the `overflowedAt` stamp, more than the mark takes: from 3 on, the record shrinks.
    for (const k of [3, 4, 7, 11]) {
      expect(sizeWith(k)).toBeLessThan(Math.min(jsonSize(record), sizeWith(k - 1)));
      const exact = boundPeers(record, { ...options, maxItemBytes: sizeWith(k) });
      expect(
        exact.moved.map((m) => m.peer),
        `k ${k}`,
      ).toEqual(order.slice(0, k));
      expect(exact.bytes).toBe(sizeWith(k));
      const tighter = boundPeers(record, { ...options, maxItemBytes: sizeWith(k) - 1 });
      expect(
        tighter.moved.map((m) => m.peer),
        `k ${k} - 1 byte`,
      ).toEqual(order.slice(0, k + 1));
    }
  });

  it('picks the same least recent marks whether it moves a few or many, ties in listed order', () => {
    const marks = Object.fromEntries(
      [5, 1, 3, 1, 4, 1, 5, 9, 2, 6].map((at, i) => [`s/${i}`, { seq: 1, at }]),
    );
    const byAge = Object.entries(marks)
      .map(([peer, m], i) => ({ peer, at: m.at, i }))
      .sort((a, b) => a.at - b.at || a.i - b.i)
      .map((e) => e.peer);
    for (let moves = 1; moves <= 8; moves++) {
      const bounded = boundPeers(recordWith(0, 0, { marks }), {
        ...options,
        recordPeers: 0,
        moves,
      });
      expect(
        bounded.moved.map((m) => m.peer),
        `moves ${moves}`,
      ).toEqual(byAge.slice(0, moves));
    }
  });
});

/** A store holding `marks`, counting its overflow reads. */
function storeOf(marks: readonly OverflowMark[]) {
  const reads: OverflowKey[][] = [];
  const store = {
    readOverflow: async (_actorId: string, keys: readonly OverflowKey[]) => {
      reads.push([...keys]);
      return marks.filter((m) => keys.some((k) => k.kind === m.kind && k.peer === m.peer));
    },
  } as unknown as Store;
  return { store, reads };
}

const mark = (at: number): SenderMark => ({ seq: 7, at });

describe('OverflowLookup', () => {
  it('reads nothing for a record that never moved marks out', async () => {
    const { store, reads } = storeOf([]);
    const lookup = new OverflowLookup(store, recordWith(1), now, 28 * DAY);
    expect(await lookup.sender(recordWith(1), 's/9')).toBeUndefined();
    expect(reads).toEqual([]);
  });

  it('reads nothing once the last move is older than the retention', async () => {
    const { store, reads } = storeOf([
      { kind: 'sender', peer: 's/9', mark: mark(0), expiresAt: now + DAY },
    ]);
    const base = recordWith(1, 0, { overflowedAt: now - 29 * DAY });
    const lookup = new OverflowLookup(store, base, now, 28 * DAY);
    expect(await lookup.sender(base, 's/9')).toBeUndefined();
    expect(reads).toEqual([]);
  });

  it('finds a moved-out mark, reading each peer once, and the listed ones without a read', async () => {
    const moved: OverflowMark = { kind: 'sender', peer: 's/9', mark: mark(now), expiresAt: now };
    const { store, reads } = storeOf([moved]);
    const base = recordWith(0, 0, { overflowedAt: now, marks: { 's/0': { seq: 1, at: now } } });
    const lookup = new OverflowLookup(store, base, now, 28 * DAY);
    await lookup.load(base, [
      { kind: 'sender', peer: 's/9' },
      { kind: 'sender', peer: 's/0' },
      { kind: 'sender', peer: 's/8' },
    ]);
    expect(await lookup.sender(base, 's/9')).toEqual(mark(now));
    expect(await lookup.sender(base, 's/8')).toBeUndefined();
    expect(await lookup.sender(base, 's/0')).toEqual({ seq: 1, at: now });
    expect(reads).toEqual([
      [
        { kind: 'sender', peer: 's/9' },
        { kind: 'sender', peer: 's/8' },
      ],
    ]);
  });

  it('forgets a sender mark idle past the retention, listed or moved out', async () => {
    const old = mark(now - 28 * DAY - 1);
    const moved: OverflowMark = { kind: 'sender', peer: 's/9', mark: old, expiresAt: now + DAY };
    const { store } = storeOf([moved]);
    const base = recordWith(0, 0, {
      overflowedAt: now,
      marks: { 's/1': old, 's/2': mark(now - 28 * DAY) },
    });
    const lookup = new OverflowLookup(store, base, now, 28 * DAY);
    expect(await lookup.sender(base, 's/1')).toBeUndefined();
    expect(await lookup.sender(base, 's/9')).toBeUndefined();
    expect(await lookup.sender(base, 's/2')).toEqual(mark(now - 28 * DAY));
  });

  it('finds the marks this turn moved out without the store', async () => {
    const { store, reads } = storeOf([]);
    const base = recordWith(1, 0, { overflowedAt: now });
    const lookup = new OverflowLookup(store, base, now, 28 * DAY);
    lookup.moved([{ kind: 'channel', peer: 't/5', mark: mark(now), expiresAt: now }]);
    expect(await lookup.channel(base, 't/5')).toEqual(mark(now));
    expect(reads).toEqual([]);
  });

  it('ignores a moved-out channel idle past half the retention, as the record would', async () => {
    const old: OverflowMark = {
      kind: 'channel',
      peer: 't/5',
      mark: mark(now - 15 * DAY),
      expiresAt: now,
    };
    const { store } = storeOf([old]);
    const base = recordWith(1, 0, { overflowedAt: now - DAY });
    const lookup = new OverflowLookup(store, base, now, 28 * DAY);
    expect(await lookup.channel(base, 't/5')).toBeUndefined();
  });

  it('reads the store while the last move is exactly the retention old', async () => {
    const moved: OverflowMark = { kind: 'sender', peer: 's/9', mark: mark(now), expiresAt: now };
    const { store, reads } = storeOf([moved]);
    const base = recordWith(1, 0, { overflowedAt: now - 28 * DAY });
    const lookup = new OverflowLookup(store, base, now, 28 * DAY);
    expect(await lookup.sender(base, 's/9')).toEqual(mark(now));
    expect(reads).toHaveLength(1);
  });

  it('finds a channel used exactly half the retention ago, and one of a record with no channels', async () => {
    const edge = mark(now - 14 * DAY);
    const moved: OverflowMark = { kind: 'channel', peer: 't/5', mark: edge, expiresAt: now };
    const { store } = storeOf([moved]);
    const { channels: _, ...base } = recordWith(1, 0, { overflowedAt: now });
    const lookup = new OverflowLookup(store, base, now, 28 * DAY);
    expect(await lookup.channel(base, 't/5')).toEqual(edge);
    expect(await lookup.channel(base, 't/6')).toBeUndefined();
  });

  it("reads state pages once, this turn's own without the store, and a page named like a listed peer", async () => {
    const page = (peer: string, value: unknown): OverflowMark => ({
      kind: 'page',
      peer,
      mark: value,
      expiresAt: now,
    });
    const { store, reads } = storeOf([page('p1', 'one'), page('t/0', 'zero')]);
    const base = recordWith(1, 1, { overflowedAt: now });
    const lookup = new OverflowLookup(store, base, now, 28 * DAY);
    lookup.moved([page('mine', 'new')]);
    // A page key is never the record's: one named like a listed channel is read all the same.
    await lookup.load(base, [{ kind: 'page', peer: 't/0' }]);
    expect(await lookup.pages(['p1', 'mine', 'gone', 't/0'])).toEqual(
      new Map<string, unknown>([
        ['p1', 'one'],
        ['mine', 'new'],
        ['t/0', 'zero'],
      ]),
    );
    expect(await lookup.pages(['p1', 'gone'])).toEqual(new Map([['p1', 'one']]));
    expect(reads).toEqual([
      [{ kind: 'page', peer: 't/0' }],
      [
        { kind: 'page', peer: 'p1' },
        { kind: 'page', peer: 'gone' },
      ],
    ]);
  });
});
