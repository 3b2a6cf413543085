import { ErrorCode, isBatonError } from '@baton/core';
import type {
  ActorRecord,
  Commit,
  DeadLetter,
  IdempotencyRecord,
  OutboxItem,
} from '@baton/core/adapter';
import { readConflict } from '@baton/core/adapter';
import { describe, expect, it, vi } from 'vitest';
import { EmbeddedStore } from './EmbeddedStore.ts';
import { MemoryJournal } from './Journal.ts';

function record(id: string, ver: number, state: unknown = { n: ver }): ActorRecord {
  return { id, ver, state, inboxOffset: String(ver), marks: {}, sentSeq: 0 };
}

function commitOf(id: string, ver: number, parts: Partial<Commit> = {}): Commit {
  return { expectedVer: ver - 1, record: record(id, ver), outbox: [], idempotency: [], ...parts };
}

function outbox(actorId: string, seq: number, createdAt = 0): OutboxItem {
  return { actorId, seq, createdAt, envelopes: [] };
}

function outcome(key: string, actorId: string, expiresAt: number): IdempotencyRecord {
  return { key, actorId, outcome: { ok: true, value: key }, expiresAt };
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject');
}

describe('EmbeddedStore', () => {
  it('loads what was committed, and undefined for an actor never committed', async () => {
    const store = new EmbeddedStore();
    await store.commit(commitOf('a/1', 1));
    expect(await store.load('a/1')).toEqual(record('a/1', 1));
    expect(await store.load('a/2')).toBeUndefined();
  });

  it('hands out copies: a reader changing what it loaded changes nothing committed', async () => {
    const store = new EmbeddedStore();
    await store.commit(commitOf('a/1', 1));
    const loaded = await store.load('a/1');
    (loaded!.state as { n: number }).n = 42;
    expect((await store.load('a/1'))!.state).toEqual({ n: 1 });
  });

  it('freezes what a commit passes in with freezeCommits: a later change throws', async () => {
    const store = new EmbeddedStore({ freezeCommits: true });
    const commit = commitOf('a/1', 1, { idempotency: [outcome('k1', 'a/1', 1000)] });
    await store.commit(commit);
    expect(() => {
      (commit.record.state as { n: number }).n = 99;
    }).toThrow(TypeError);
    expect(Object.isFrozen(commit.idempotency[0])).toBe(true);
    expect((await store.load('a/1'))!.state).toEqual({ n: 1 });
  });

  it('keeps a commit as it is without freezeCommits, and takes the default from BATON_FREEZE_COMMITS', async () => {
    const kept = commitOf('a/1', 1);
    await new EmbeddedStore({ freezeCommits: false }).commit(kept);
    expect(Object.isFrozen(kept.record)).toBe(false);
    const before = process.env.BATON_FREEZE_COMMITS;
    try {
      for (const [env, frozen] of [
        ['1', true],
        ['0', false],
      ] as const) {
        process.env.BATON_FREEZE_COMMITS = env;
        const commit = commitOf('a/1', 1);
        await new EmbeddedStore().commit(commit);
        expect(Object.isFrozen(commit.record.state)).toBe(frozen);
      }
    } finally {
      process.env.BATON_FREEZE_COMMITS = before;
    }
  });

  it('writes nothing when an idempotency key is already used', async () => {
    const store = new EmbeddedStore({ clock: { now: () => 0 } });
    await store.commit(commitOf('a/1', 1, { idempotency: [outcome('k1', 'a/1', 1000)] }));
    const error = await failure(
      store.commit(
        commitOf('a/1', 2, {
          outbox: [outbox('a/1', 1)],
          idempotency: [outcome('k2', 'a/1', 1000), outcome('k1', 'a/1', 1000)],
        }),
      ),
    );
    expect(readConflict(error)).toEqual({ kind: 'duplicate', keys: ['k1'] });
    expect((await store.load('a/1'))!.ver).toBe(1);
    expect(await store.readOutbox('a/1')).toEqual([]);
    expect(await store.readIdempotency('k2')).toBeUndefined();
  });

  it('names every used key in a duplicate error', async () => {
    const store = new EmbeddedStore({ clock: { now: () => 0 } });
    const keys = ['k1', 'k2', 'k3'].map((k) => outcome(k, 'a/1', 1000));
    await store.commit(commitOf('a/1', 1, { idempotency: keys.slice(0, 2) }));
    const error = await failure(store.commit(commitOf('a/1', 2, { idempotency: keys })));
    expect(readConflict(error)).toEqual({ kind: 'duplicate', keys: ['k1', 'k2'] });
  });

  it('rejects a stale version with a conflict that carries the current record', async () => {
    const store = new EmbeddedStore();
    await store.commit(commitOf('a/1', 1));
    await store.commit(commitOf('a/1', 2));
    const error = await failure(store.commit(commitOf('a/1', 2)));
    expect(readConflict(error)).toEqual({ kind: 'version', current: record('a/1', 2) });
    expect((await store.load('a/1'))!.ver).toBe(2);
  });

  it('tells lives apart: a commit, a retire or a drained note for another life at the same version does nothing', async () => {
    const store = new EmbeddedStore();
    const life = (ver: number, id: string | undefined, parts: Partial<ActorRecord> = {}) => ({
      ...record('a/1', ver),
      ...(id === undefined ? {} : { life: id }),
      ...parts,
    });
    await store.commit(
      commitOf('a/1', 1, { record: life(1, 'new', { outbox: [outbox('a/1', 1)] }) }),
    );
    for (const other of ['old', undefined]) {
      const error = await failure(store.commit(commitOf('a/1', 2, { record: life(2, other) })));
      expect(readConflict(error)).toMatchObject({ kind: 'version', current: { life: 'new' } });
      await store.retireHeldOutbox('a/1', 1, other, undefined);
      await store.heldDrained('a/1', 1, other);
      expect(await store.load('a/1')).toMatchObject({ ver: 1, outbox: [{ seq: 1 }] });
    }
    await store.heldDrained('a/1', 1, 'new');
    expect(await store.load('a/1')).not.toHaveProperty('outbox');
    await store.commit(commitOf('a/1', 2, { record: life(2, 'new') }));
    expect(await store.load('a/1')).toMatchObject({ ver: 2, life: 'new' });
  });

  it('treats an absent record as version 0', async () => {
    const store = new EmbeddedStore();
    const error = await failure(store.commit(commitOf('a/1', 3)));
    expect(readConflict(error)).toEqual({ kind: 'version', current: undefined });
  });

  it('checks the version before the idempotency keys', async () => {
    const store = new EmbeddedStore({ clock: { now: () => 0 } });
    await store.commit(commitOf('a/1', 1, { idempotency: [outcome('k1', 'a/1', 1000)] }));
    const error = await failure(
      store.commit(commitOf('a/1', 1, { idempotency: [outcome('k1', 'a/1', 1000)] })),
    );
    expect(readConflict(error)?.kind).toBe('version');
  });

  it('throws TRANSACTION_TOO_LARGE naming maxTransactionItems past the item count', async () => {
    const store = new EmbeddedStore({ limits: { maxTransactionItems: 3 } });
    const items = [outbox('a/1', 1), outbox('a/1', 2), outbox('a/1', 3)];
    const error = await failure(store.commit(commitOf('a/1', 1, { outbox: items })));
    expect(error).toMatchObject({
      code: ErrorCode.TRANSACTION_TOO_LARGE,
      details: { what: 'maxTransactionItems', limit: 3, actual: 4 },
    });
    await store.commit(commitOf('a/1', 1, { outbox: items.slice(0, 2) }));
    expect(store.outboxSize()).toBe(2);
  });

  it('uses DynamoDB limits by default', () => {
    expect(new EmbeddedStore().limits).toEqual({
      maxTransactionItems: 100,
      maxTransactionBytes: 4_000_000,
      maxItemBytes: 400_000,
    });
  });

  it('throws TRANSACTION_TOO_LARGE naming maxItemBytes for one item too large', async () => {
    const store = new EmbeddedStore();
    const big = { ...record('a/1', 1), state: 'x'.repeat(400_000) };
    const error = await failure(store.commit(commitOf('a/1', 1, { record: big })));
    expect(error).toMatchObject({
      code: ErrorCode.TRANSACTION_TOO_LARGE,
      details: { what: 'maxItemBytes', limit: 400_000 },
    });
    expect(await store.load('a/1')).toBeUndefined();
  });

  it('throws TRANSACTION_TOO_LARGE naming maxTransactionBytes for a commit too large', async () => {
    const store = new EmbeddedStore({ limits: { maxTransactionBytes: 1_000 } });
    const items = [1, 2, 3].map((seq) => ({
      ...outbox('a/1', seq),
      envelopes: [],
      pad: 'x'.repeat(300),
    }));
    const error = await failure(store.commit(commitOf('a/1', 1, { outbox: items })));
    expect(error).toMatchObject({
      code: ErrorCode.TRANSACTION_TOO_LARGE,
      details: { what: 'maxTransactionBytes', limit: 1_000 },
    });
    expect(store.outboxSize()).toBe(0);
  });

  it('rejects a record whose ver is not expectedVer + 1 as an invalid argument', async () => {
    const store = new EmbeddedStore();
    const error = await failure(store.commit({ ...commitOf('a/1', 1), expectedVer: 1 }));
    expect(isBatonError(error) && error.code).toBe(ErrorCode.INVALID_ARGUMENT);
  });

  it('reads the outbox in seq order and ignores deletes of missing items', async () => {
    const store = new EmbeddedStore();
    await store.commit(commitOf('a/1', 1, { outbox: [outbox('a/1', 5), outbox('a/1', 2)] }));
    await store.commit(commitOf('a/1', 2, { outbox: [outbox('a/1', 3)] }));
    expect((await store.readOutbox('a/1')).map((item) => item.seq)).toEqual([2, 3, 5]);
    await store.deleteOutbox('a/1', [3, 7], undefined);
    await store.deleteOutbox('b/1', [1], undefined);
    expect((await store.readOutbox('a/1')).map((item) => item.seq)).toEqual([2, 5]);
  });

  it('lists the actors with outbox items older than a time', async () => {
    const store = new EmbeddedStore();
    await store.commit(commitOf('a/1', 1, { outbox: [outbox('a/1', 1, 100)] }));
    await store.commit(commitOf('b/1', 1, { outbox: [outbox('b/1', 1, 500)] }));
    await store.commit(commitOf('c/1', 1));
    expect(await store.listOutboxActors(100)).toEqual([]);
    expect(await store.listOutboxActors(101)).toEqual(['a/1']);
    expect((await store.listOutboxActors(Number.MAX_SAFE_INTEGER)).sort()).toEqual(['a/1', 'b/1']);
    await store.deleteOutbox('a/1', [1], undefined);
    expect(await store.listOutboxActors(Number.MAX_SAFE_INTEGER)).toEqual(['b/1']);
  });

  it('lists the actors with outbox items oldest first, by the oldest item each holds', async () => {
    const store = new EmbeddedStore();
    // Committed in another order than their age; b's sends are held in its record.
    await store.commit(commitOf('a/1', 1, { outbox: [outbox('a/1', 1, 300)] }));
    const held = {
      ...commitOf('b/1', 1),
      record: { ...record('b/1', 1), outbox: [outbox('b/1', 1, 100)] },
    };
    await store.commit(held);
    await store.commit(
      commitOf('c/1', 1, { outbox: [outbox('c/1', 1, 500), outbox('c/1', 2, 200)] }),
    );
    expect(await store.listOutboxActors(Number.MAX_SAFE_INTEGER)).toEqual(['b/1', 'c/1', 'a/1']);
  });

  it('keeps effect done-marks through a replay and a compaction, until they expire', async () => {
    let now = 0;
    const clock = { now: () => now };
    const journal = new MemoryJournal();
    const store = new EmbeddedStore({ clock, journal });
    await store.markEffectsDone(['order/o-1:l.1', 'order/o-1:l.2'], 1000);
    await store.markEffectsDone(['order/o-2:l.1'], 2000);
    expect(await store.readEffectsDone(['order/o-1:l.2', 'order/o-1:l.3'])).toEqual(
      new Set(['order/o-1:l.2']),
    );
    const replayed = new EmbeddedStore({ clock, journal });
    const compacted = new MemoryJournal();
    compacted.append(replayed.snapshot());
    const restarted = new EmbeddedStore({ clock, journal: compacted });
    const keys = ['order/o-1:l.1', 'order/o-1:l.2', 'order/o-2:l.1'];
    expect(await restarted.readEffectsDone(keys)).toEqual(new Set(keys));
    now = 1000;
    expect(await restarted.readEffectsDone(keys)).toEqual(new Set(['order/o-2:l.1']));
  });

  it('treats an idempotency record as absent once it expires', async () => {
    let now = 0;
    const store = new EmbeddedStore({ clock: { now: () => now } });
    await store.commit(commitOf('a/1', 1, { idempotency: [outcome('k1', 'a/1', 1000)] }));
    now = 999;
    expect(await store.readIdempotency('k1')).toMatchObject({ key: 'k1' });
    now = 1000;
    expect(await store.readIdempotency('k1')).toBeUndefined();
    await store.commit(commitOf('a/1', 2, { idempotency: [outcome('k1', 'a/1', 5000)] }));
    expect(await store.readIdempotency('k1')).toMatchObject({ expiresAt: 5000 });
  });

  it('feeds committed records to subscribers in commit order, before commit returns', async () => {
    const store = new EmbeddedStore();
    const seen: string[] = [];
    const stop = store.subscribe((r) => seen.push(`${r.id}@${r.ver}`));
    store.subscribe((r) => {
      // A listener that commits: its record must still reach every listener after this one.
      if (r.id === 'a/1' && r.ver === 1) void store.commit(commitOf('b/1', 1));
    });
    const late: string[] = [];
    store.subscribe((r) => late.push(`${r.id}@${r.ver}`));
    const pending = store.commit(commitOf('a/1', 1));
    expect(seen).toEqual(['a/1@1', 'b/1@1']);
    expect(late).toEqual(['a/1@1', 'b/1@1']);
    await pending;
    stop();
    await store.commit(commitOf('a/1', 2));
    expect(seen).toEqual(['a/1@1', 'b/1@1']);
    expect(late).toEqual(['a/1@1', 'b/1@1', 'a/1@2']);
  });

  it('does not feed failed commits', async () => {
    const store = new EmbeddedStore();
    const seen: number[] = [];
    store.subscribe((r) => seen.push(r.ver));
    await failure(store.commit(commitOf('a/1', 2)));
    expect(seen).toEqual([]);
  });

  it('pushes committed idempotency records to outcome watchers', async () => {
    const store = new EmbeddedStore({ clock: { now: () => 0 } });
    const keys: string[] = [];
    store.watchOutcomes((r) => keys.push(r.key));
    await store.commit(
      commitOf('a/1', 1, { idempotency: [outcome('k1', 'a/1', 9), outcome('k2', 'a/1', 9)] }),
    );
    expect(keys).toEqual(['k1', 'k2']);
  });

  it('keeps a commit done when a listener throws', async () => {
    const errors: unknown[] = [];
    const store = new EmbeddedStore({ onListenerError: (error) => errors.push(error) });
    store.subscribe(() => {
      throw new Error('boom');
    });
    await store.commit(commitOf('a/1', 1));
    expect(errors).toHaveLength(1);
    expect((await store.load('a/1'))!.ver).toBe(1);
  });

  it('lists due timers soonest first, up to a limit, and tells when the soonest of all is due', async () => {
    const store = new EmbeddedStore();
    const timer = (actorId: string, id: string, at: number) => ({
      ...{ actorId, id, gen: `${id}@${at}`, at, name: 'tick' },
      ...{ payload: null, createdAt: 0 },
    });
    expect(store.nextTimerAt()).toBeUndefined();
    const put = [timer('a/1', 't1', 300), timer('a/1', 't2', 100), timer('a/1', 't3', 500)];
    await store.commit(commitOf('a/1', 1, { timers: { put, remove: [] } }));
    await store.commit(
      commitOf('b/1', 1, { timers: { put: [timer('b/1', 'u', 200)], remove: [] } }),
    );
    const due = async (before: number, limit: number) =>
      (await store.listDueTimers(before, limit)).map((t) => `${t.actorId}:${t.id}`);
    expect(await due(300, 10)).toEqual(['a/1:t2', 'b/1:u', 'a/1:t1']);
    expect(await due(299, 10)).toEqual(['a/1:t2', 'b/1:u']);
    expect(await due(1_000, 2)).toEqual(['a/1:t2', 'b/1:u']);
    expect((await store.listTimers('a/1')).map((t) => t.id)).toEqual(['t2', 't1', 't3']);
    expect(store.nextTimerAt()).toBe(100);
    await store.commit(commitOf('a/1', 2, { timers: { put: [], remove: ['t2'] } }));
    expect(store.nextTimerAt()).toBe(200);
    // Leaving some out: the soonest of the others.
    expect(store.nextTimerAt((t) => t.actorId === 'b/1')).toBe(300);
    expect(store.nextTimerAt(() => true)).toBeUndefined();
  });

  it('lists dead letters oldest first, of one actor or of all', async () => {
    const store = new EmbeddedStore();
    const letter = (actorId: string, messageId: string, at: number) =>
      ({ actorId, messageId, at, attempts: 3, redrivable: true }) as unknown as DeadLetter;
    const put = [letter('a/1', 'late', 30), letter('a/1', 'early', 10)];
    await store.commit(commitOf('a/1', 1, { deadLetters: { put, remove: [] } }));
    await store.commit(
      commitOf('b/1', 1, { deadLetters: { put: [letter('b/1', 'mid', 20)], remove: [] } }),
    );
    const ids = (letters: DeadLetter[]) => letters.map((l) => l.messageId);
    expect(ids(await store.listDeadLetters())).toEqual(['early', 'mid', 'late']);
    expect(ids(await store.listDeadLetters('a/1'))).toEqual(['early', 'late']);
    expect(await store.listDeadLetters('c/1')).toEqual([]);
    expect(await store.readDeadLetter('a/1', 'late')).toMatchObject({ at: 30 });
    expect(await store.readDeadLetter('b/1', 'late')).toBeUndefined();
    expect(await store.readDeadLetter('z/1', 'late')).toBeUndefined();
  });

  it('reads an overflow mark until it expires', async () => {
    let now = 0;
    const store = new EmbeddedStore({ clock: { now: () => now } });
    const overflow = [
      { kind: 'sender', peer: 'b/1', mark: { seq: 4, at: 0 }, expiresAt: 100 },
      { kind: 'channel', peer: 'b/1', mark: { seq: 9, at: 0 }, expiresAt: 200 },
    ] as const;
    await store.commit(commitOf('a/1', 1, { overflow }));
    const keys = [
      { kind: 'sender', peer: 'b/1' },
      { kind: 'channel', peer: 'b/1' },
      { kind: 'sender', peer: 'c/1' },
    ] as const;
    expect(await store.readOverflow('a/1', keys)).toEqual(overflow);
    now = 100;
    expect(await store.readOverflow('a/1', keys)).toEqual([overflow[1]]);
    expect(await store.readOverflow('z/1', keys)).toEqual([]);
  });

  it('retires held sends as a new version that feeds subscribers and outlives a restart, only at the version and life that hold them', async () => {
    const journal = new MemoryJournal();
    const store = new EmbeddedStore({ journal });
    const seen: string[] = [];
    store.subscribe((r) => seen.push(`${r.ver}:${r.outbox ? 'held' : 'none'}`));
    const items = [outbox('a/1', 1, 5), outbox('a/1', 2, 50)];
    const held = { ...record('a/1', 1), life: 'L', outbox: items };
    await store.commit(commitOf('a/1', 1, { record: held }));
    expect(store.outboxSize()).toBe(2);
    expect(await store.listOutboxActors(5)).toEqual([]);
    expect(await store.listOutboxActors(6)).toEqual(['a/1']);
    await store.retireHeldOutbox('a/1', 2, 'L', undefined);
    await store.retireHeldOutbox('a/1', 1, 'M', undefined);
    await store.retireHeldOutbox('b/1', 1, 'L', undefined);
    expect(await store.load('a/1')).toMatchObject({ ver: 1, outbox: [{ seq: 1 }, { seq: 2 }] });
    await store.retireHeldOutbox('a/1', 1, 'L', undefined);
    const retired = { ...record('a/1', 1), life: 'L', ver: 2 };
    expect(await store.load('a/1')).toEqual(retired);
    expect(store.outboxSize()).toBe(0);
    expect(store.idempotencyRecords()).toEqual([]);
    expect(store.snapshot()).toEqual([
      { t: 'store.commit', record: retired, outbox: [], idempotency: [] },
    ]);
    await store.retireHeldOutbox('a/1', 2, 'L', undefined); // nothing held: no new version
    expect(await store.load('a/1')).toMatchObject({ ver: 2 });
    expect(seen).toEqual(['1:held', '2:none']);
    const restarted = new EmbeddedStore({ journal });
    expect(await restarted.load('a/1')).toEqual(retired);
    expect(restarted.outboxSize()).toBe(0);
  });

  it('writes nothing to its journal for a retire, a delete or a drained note that changes nothing', async () => {
    const journal = new MemoryJournal();
    const store = new EmbeddedStore({ journal });
    const held = { ...record('a/1', 1), life: 'L', outbox: [outbox('a/1', 1)] };
    await store.commit(commitOf('a/1', 1, { record: held, outbox: [outbox('a/1', 2)] }));
    await store.commit(commitOf('c/1', 1));
    const written = journal.length;
    await store.deleteOutbox('a/1', [3], undefined);
    await store.deleteOutbox('b/1', [1], undefined);
    for (const [actorId, ver, life] of [
      ['a/1', 1, 'M'],
      ['a/1', 1, undefined],
      ['a/1', 2, 'L'],
      ['b/1', 1, 'L'],
      ['c/1', 1, undefined], // holds no sends
    ] as const) {
      await store.heldDrained(actorId, ver, life);
      await store.retireHeldOutbox(actorId, ver, life, undefined);
    }
    expect(journal.length).toBe(written);
    expect(await store.load('a/1')).toEqual(held);
    await store.deleteOutbox('a/1', [2, 2], undefined);
    expect(journal.length).toBe(written + 1);
  });

  it("reads an outcome appended to a page without the page's sentAt, but from the page with it", async () => {
    const store = new EmbeddedStore({ clock: { now: () => 0 } });
    const kept = outcome('k', 'a/1', 10);
    await store.commit(
      commitOf('a/1', 1, { outcomes: { page: 0, sentAt: 7, records: [{ ...kept, sentAt: 7 }] } }),
    );
    expect(await store.readIdempotency('k')).toStrictEqual(kept);
    expect(store.idempotencyRecords()).toStrictEqual([kept]);
    expect(await store.readPagedOutcomes('a/1', 0)).toStrictEqual([{ ...kept, sentAt: 7 }]);
    const snapshot = store.snapshot();
    expect(JSON.stringify(snapshot)).toContain('"key":"k"');
    const journal = new MemoryJournal();
    journal.replace(snapshot);
    const replayed = new EmbeddedStore({ clock: { now: () => 0 }, journal });
    expect(await replayed.readIdempotency('k')).toStrictEqual(kept);
  });

  it('hands out copies: changing what a read returned changes nothing stored', async () => {
    const store = new EmbeddedStore({ clock: { now: () => 0 } });
    const timer = { actorId: 'a/1', id: 't', gen: 'g', at: 5, name: 'tick', payload: { n: 1 } };
    const letter = { actorId: 'a/1', messageId: 'm', at: 1, attempts: 3, redrivable: true };
    await store.commit(
      commitOf('a/1', 1, {
        idempotency: [outcome('k', 'a/1', 10)],
        timers: { put: [{ ...timer, createdAt: 0 }], remove: [] },
        deadLetters: { put: [letter as unknown as DeadLetter], remove: [] },
        overflow: [{ kind: 'sender', peer: 'b/1', mark: { seq: 1, at: 0 }, expiresAt: 10 }],
      }),
    );
    const spoil = (value: unknown) => Object.assign(value as object, { spoiled: true });
    spoil(await store.readIdempotency('k'));
    spoil(await store.readTimer('a/1', 't'));
    spoil((await store.listTimers('a/1'))[0]);
    spoil((await store.listDueTimers(10, 10))[0]);
    spoil(await store.readDeadLetter('a/1', 'm'));
    spoil((await store.listDeadLetters())[0]);
    spoil((await store.readOverflow('a/1', [{ kind: 'sender', peer: 'b/1' }]))[0]);
    const conflict = readConflict(await failure(store.commit(commitOf('a/1', 1))));
    if (conflict?.kind === 'version') spoil(conflict.current);
    expect(JSON.stringify(await store.readIdempotency('k'))).not.toMatch(/spoiled/);
    expect(JSON.stringify(await store.listTimers('a/1'))).not.toMatch(/spoiled/);
    expect(JSON.stringify(await store.listDeadLetters())).not.toMatch(/spoiled/);
    expect(
      JSON.stringify(await store.readOverflow('a/1', [{ kind: 'sender', peer: 'b/1' }])),
    ).not.toMatch(/spoiled/);
    expect(JSON.stringify(await store.load('a/1'))).not.toMatch(/spoiled/);
    expect(await store.readTimer('a/1', 'x')).toBeUndefined();
    expect(await store.readTimer('z/1', 't')).toBeUndefined();
  });

  it('tells timer watchers of exactly the timers a commit puts', async () => {
    const store = new EmbeddedStore();
    const seen: unknown[] = [];
    store.watchTimers((timer) => seen.push(timer.id));
    await store.commit(commitOf('a/1', 1));
    const timer = { actorId: 'a/1', id: 't', gen: 'g', at: 5, name: 'tick', payload: null };
    await store.commit(
      commitOf('a/1', 2, { timers: { put: [{ ...timer, createdAt: 0 }], remove: ['u'] } }),
    );
    await store.commit(commitOf('a/1', 3, { timers: { put: [], remove: ['t'] } }));
    expect(seen).toEqual(['t']);
  });

  it('lists only the unexpired outcomes', async () => {
    let now = 0;
    const store = new EmbeddedStore({ clock: { now: () => now } });
    await store.commit(
      commitOf('a/1', 1, { idempotency: [outcome('k1', 'a/1', 10), outcome('k2', 'a/1', 11)] }),
    );
    now = 10;
    expect(store.idempotencyRecords().map((r) => r.key)).toEqual(['k2']);
  });

  it('writes nothing to its journal for a delete or a drained note that changes nothing', async () => {
    const journal = new MemoryJournal();
    const store = new EmbeddedStore({ journal });
    await store.commit(commitOf('a/1', 1, { outbox: [outbox('a/1', 1)] }));
    const written = journal.length;
    await store.deleteOutbox('a/1', [2], undefined);
    await store.deleteOutbox('b/1', [1], undefined);
    await store.heldDrained('a/1', 1, undefined); // the record holds no sends
    await store.heldDrained('a/1', 2, undefined);
    expect(journal.length).toBe(written);
    await store.deleteOutbox('a/1', [1, 1], undefined);
    expect(journal.length).toBe(written + 1);
  });

  it('reports a throwing listener on the console when no onListenerError is given', async () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const store = new EmbeddedStore();
      store.subscribe(() => {
        throw new Error('boom');
      });
      await store.commit(commitOf('a/1', 1));
      expect(error).toHaveBeenCalledWith(
        expect.stringMatching(/a store listener threw/),
        expect.objectContaining({ message: 'boom' }),
      );
    } finally {
      error.mockRestore();
    }
  });

  it('rejects every call with UNAVAILABLE once closed', async () => {
    const store = new EmbeddedStore();
    store.close();
    const error = await failure(store.load('a/1'));
    expect(isBatonError(error) && error.code).toBe(ErrorCode.UNAVAILABLE);
    expect(error).toMatchObject({ message: 'the embedded store is closed' });
  });
});
