import { describe, expect, it } from 'vitest';
import { jsonSize } from '../adapter/conflicts.ts';
import type {
  ActorRecord,
  OverflowKey,
  OverflowMark,
  SenderMark,
  Store,
} from '../adapter/ports.ts';
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
});
