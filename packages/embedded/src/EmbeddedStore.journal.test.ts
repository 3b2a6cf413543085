import { ErrorCode } from '@baton/core';
import type {
  ActorRecord,
  Commit,
  DeadLetter,
  IdempotencyRecord,
  OutboxItem,
  OverflowKey,
  OverflowMark,
  Timer,
} from '@baton/core/adapter';
import { describe, expect, it } from 'vitest';
import { EmbeddedStore } from './EmbeddedStore.ts';
import { MemoryJournal } from './Journal.ts';

const ACTORS = ['a/1', 'b/1', 'c/1', 'gone/1'];
const PEERS: OverflowKey[] = ['a/1', 'b/1', 'x/1'].flatMap((peer) => [
  { kind: 'sender' as const, peer },
  { kind: 'channel' as const, peer },
]);

function record(id: string, ver: number, parts: Partial<ActorRecord> = {}): ActorRecord {
  return { id, ver, state: { n: ver }, inboxOffset: String(ver), marks: {}, sentSeq: 0, ...parts };
}

function commitOf(id: string, ver: number, parts: Partial<Commit> = {}): Commit {
  return { expectedVer: ver - 1, record: record(id, ver), outbox: [], idempotency: [], ...parts };
}

function item(actorId: string, seq: number): OutboxItem {
  return { actorId, seq, createdAt: seq, envelopes: [] };
}

function outcome(key: string, actorId: string, expiresAt: number): IdempotencyRecord {
  return { key, actorId, outcome: { ok: true, value: key }, expiresAt };
}

function letter(actorId: string, messageId: string, at: number): DeadLetter {
  const envelope = { id: messageId, from: 'ingress', seq: 0, to: actorId, name: 'm', payload: at };
  return {
    actorId,
    messageId,
    envelope: { ...envelope, sentAt: at },
    redrivable: true,
    error: { code: ErrorCode.DEAD_LETTERED, message: `failed at ${at}`, details: {} },
    attempts: 3,
    at,
  };
}

function mark(kind: 'sender' | 'channel', peer: string, seq: number, expiresAt: number) {
  return { kind, peer, mark: { seq, at: seq }, expiresAt } as OverflowMark;
}

function timer(actorId: string, id: string, at: number): Timer {
  return { actorId, id, gen: `${id}@${at}`, at, name: 'tick', payload: { at }, createdAt: 0 };
}

/** Everything a reader can observe of a store, over the actors of these tests. */
async function contents(store: EmbeddedStore) {
  const byId = <T extends { id: string }>(list: T[]) =>
    list.sort((a, b) => a.id.localeCompare(b.id));
  const perActor = async <T>(read: (actorId: string) => Promise<T>) =>
    Object.fromEntries(await Promise.all(ACTORS.map(async (id) => [id, await read(id)])));
  return {
    records: byId(store.records()),
    outbox: await perActor((id) => store.readOutbox(id)),
    outboxSize: store.outboxSize(),
    idempotency: store.idempotencyRecords().sort((a, b) => a.key.localeCompare(b.key)),
    deadLetters: await store.listDeadLetters(),
    overflow: await perActor((id) => store.readOverflow(id, PEERS)),
    timers: await perActor((id) => store.listTimers(id)),
    nextTimerAt: store.nextTimerAt(),
  };
}

/** A journal holding `entries` as they would be read back from disk. */
function journalOf(entries: ReturnType<EmbeddedStore['snapshot']>): MemoryJournal {
  const journal = new MemoryJournal();
  journal.append(entries);
  return journal;
}

/**
 * Every kind of store write, each undoing part of an earlier one: outbox items put and deleted
 * (some actors left with none), held sends drained and retired, dead letters kept, kept again
 * and redriven, overflow marks put and replaced, timers scheduled, replaced and removed, and a
 * halted actor whose record expires while its outbox item and outcome remain.
 */
async function workload(store: EmbeddedStore): Promise<void> {
  await store.commit(
    commitOf('a/1', 1, {
      record: record('a/1', 1, { life: 'L' }),
      outbox: [item('a/1', 1), item('a/1', 2), item('a/1', 3)],
      idempotency: [outcome('ka1', 'a/1', 5_000), outcome('ka-old', 'a/1', 50)],
      deadLetters: { put: [letter('a/1', 'm1', 10), letter('a/1', 'm2', 10)], remove: [] },
      overflow: [mark('sender', 'b/1', 1, 5_000), mark('channel', 'b/1', 2, 5_000)],
      timers: { put: [timer('a/1', 't1', 300), timer('a/1', 't2', 200)], remove: [] },
    }),
  );
  await store.deleteOutbox('a/1', [2, 2, 9], undefined);
  await store.commit(
    commitOf('a/1', 2, {
      record: record('a/1', 2, { life: 'L', outbox: [item('a/1', 4)] }),
      // m1 is kept again, after m2: the order of keeping stands for letters of one time.
      deadLetters: { put: [letter('a/1', 'm1', 10)], remove: [] },
      overflow: [mark('sender', 'b/1', 7, 6_000), mark('sender', 'x/1', 3, 10)],
      timers: { put: [timer('a/1', 't1', 100)], remove: ['t2'] },
    }),
  );
  await store.heldDrained('a/1', 2, 'L');

  await store.commit(
    commitOf('b/1', 1, {
      record: record('b/1', 1, { life: 'M', outbox: [item('b/1', 1)] }),
      outbox: [item('b/1', 2)],
      replaceIdempotency: [outcome('kb1', 'b/1', 5_000)],
      deadLetters: { put: [letter('b/1', 'n1', 5)], remove: [] },
      timers: { put: [timer('b/1', 'u1', 400)], remove: [] },
    }),
  );
  await store.retireHeldOutbox('b/1', 1, 'M', undefined);
  await store.deleteOutbox('b/1', [2], undefined);
  await store.commit(
    commitOf('b/1', 3, {
      record: record('b/1', 3, { life: 'M' }),
      deadLetters: { put: [], remove: ['n1'] },
      timers: { put: [], remove: ['u1'] },
    }),
  );

  await store.commit(commitOf('c/1', 1, { outbox: [item('c/1', 1)] }));
  await store.commit(
    commitOf('gone/1', 1, {
      record: record('gone/1', 1, { expiresAt: 1_000 }),
      outbox: [item('gone/1', 1)],
      idempotency: [outcome('kg1', 'gone/1', 5_000)],
    }),
  );
}

describe('EmbeddedStore with a journal', () => {
  it('holds after a restart everything the store held: records, outbox, outcomes, dead letters, overflow marks and timers', async () => {
    const clock = { now: () => 100 };
    const journal = new MemoryJournal();
    const live = new EmbeddedStore({ journal, clock });
    await workload(live);
    const expected = await contents(live);
    expect(expected.deadLetters.map((l) => `${l.actorId}:${l.messageId}`)).toEqual([
      'a/1:m2',
      'a/1:m1',
    ]);
    expect(expected.timers).toMatchObject({
      'a/1': [{ id: 't1', at: 100 }],
      'b/1': [],
    });
    expect(expected.outbox).toMatchObject({
      'a/1': [{ seq: 1 }, { seq: 3 }],
      'b/1': [],
      'c/1': [{ seq: 1 }],
    });
    expect(expected.records.find((r) => r.id === 'b/1')).toMatchObject({ ver: 3 });
    expect(expected.records.find((r) => r.id === 'a/1')).not.toHaveProperty('outbox');

    const restarted = new EmbeddedStore({ journal, clock });
    expect(await contents(restarted)).toEqual(expected);
  });

  it('rebuilds from its snapshot what it held, without the halted records past their expiry or expired outcomes and marks', async () => {
    let now = 100;
    const clock = { now: () => now };
    const live = new EmbeddedStore({ clock });
    await workload(live);
    now = 1_000; // gone/1 expires, ka-old and the mark on x/1 long since
    const snapshot = live.snapshot();
    const expected = await contents(live);
    // a/1, b/1 and c/1; then the outbox item and outcome gone/1 left behind, with no record.
    expect(snapshot.map((entry) => (entry.record as ActorRecord | undefined)?.id)).toEqual([
      'a/1',
      'b/1',
      'c/1',
      undefined,
    ]);
    expect(expected.records.map((r) => r.id)).toEqual(['a/1', 'b/1', 'c/1']);
    expect(expected.idempotency.map((r) => r.key)).toEqual(['ka1', 'kb1', 'kg1']);
    expect(expected.overflow['a/1']).toEqual([
      mark('sender', 'b/1', 7, 6_000),
      mark('channel', 'b/1', 2, 5_000),
    ]);
    expect(expected.deadLetters).toHaveLength(2);
    expect(expected.timers['a/1']).toHaveLength(1);
    expect(expected.outbox['gone/1']).toMatchObject([{ seq: 1 }]);

    const rebuilt = new EmbeddedStore({ journal: journalOf(snapshot), clock });
    expect(await contents(rebuilt)).toEqual(expected);
    expect(rebuilt.snapshot()).toEqual(journalOf(snapshot).replay());
  });

  it('snapshots one entry per record, with no empty lists nor anything expired, when no outbox item or outcome is left without one', async () => {
    let now = 0;
    const store = new EmbeddedStore({ clock: { now: () => now } });
    await store.commit(
      commitOf('a/1', 1, { idempotency: [outcome('k', 'a/1', 10), outcome('k-due', 'a/1', 5)] }),
    );
    await store.commit(
      commitOf('b/1', 1, {
        outbox: [item('b/1', 1)],
        deadLetters: { put: [letter('b/1', 'm', 1)], remove: [] },
        timers: { put: [timer('b/1', 't', 9)], remove: [] },
      }),
    );
    await store.commit(
      commitOf('b/1', 2, {
        deadLetters: { put: [], remove: ['m'] },
        timers: { put: [], remove: ['t'] },
        overflow: [mark('sender', 'c/1', 1, 5)],
      }),
    );
    await store.commit(
      commitOf('c/1', 1, {
        deadLetters: { put: [letter('c/1', 'n', 2)], remove: [] },
        timers: { put: [timer('c/1', 'u', 7)], remove: [] },
        overflow: [mark('channel', 'd/1', 1, 50)],
      }),
    );
    now = 5; // k-due and the mark on c/1 expire now
    expect(store.snapshot()).toEqual([
      {
        t: 'store.commit',
        record: record('a/1', 1),
        outbox: [],
        idempotency: [outcome('k', 'a/1', 10)],
      },
      { t: 'store.commit', record: record('b/1', 2), outbox: [item('b/1', 1)], idempotency: [] },
      {
        t: 'store.commit',
        record: record('c/1', 1),
        outbox: [],
        idempotency: [],
        deadLetters: { put: [letter('c/1', 'n', 2)], remove: [] },
        overflow: [mark('channel', 'd/1', 1, 50)],
        timers: { put: [timer('c/1', 'u', 7)], remove: [] },
      },
    ]);
    expect(store.idempotencyRecords().map((r) => r.key)).toEqual(['k']);
    expect(new EmbeddedStore().snapshot()).toEqual([]);
  });

  it('forgets a halted record past its expiry within a thousand commits, as a TTL would', async () => {
    let now = 0;
    const store = new EmbeddedStore({ clock: { now: () => now } });
    await store.commit(commitOf('gone/1', 1, { record: record('gone/1', 1, { expiresAt: 10 }) }));
    await store.commit(commitOf('kept/1', 1, { record: record('kept/1', 1, { expiresAt: 500 }) }));
    now = 10;
    // 999 commits: an expired halted record reads as it was until a purge drops it.
    for (let ver = 1; ver <= 997; ver++) await store.commit(commitOf('busy/1', ver));
    expect(await store.load('gone/1')).toMatchObject({ ver: 1 });
    await store.commit(commitOf('busy/1', 998));
    expect(await store.load('gone/1')).toBeUndefined();
    expect(await store.load('kept/1')).toMatchObject({ ver: 1 });
    now = 500;
    for (let ver = 999; ver <= 1997; ver++) await store.commit(commitOf('busy/1', ver));
    expect(await store.load('kept/1')).toMatchObject({ ver: 1 });
    await store.commit(commitOf('busy/1', 1998));
    expect(await store.load('kept/1')).toBeUndefined();
  });
});
