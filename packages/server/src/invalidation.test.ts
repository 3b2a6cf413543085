import { query } from '@baton/core';
import type { ActorRecord } from '@baton/core/adapter';
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import { Account } from './fixtures/bank.ts';
import { createGate, createHarness } from './fixtures/createHarness.ts';

let harness: ReturnType<typeof createHarness>;
afterEach(() => {
  vi.useRealTimers();
  harness?.close();
});

/** A query that reads account `a`, then waits at the current gate: a run held in the middle. */
function gatedQuery() {
  let gate: ReturnType<typeof createGate> | undefined;
  const definition = query({
    name: 'gated',
    args: z.object({}),
    handler: async (ctx) => {
      const { balance } = await ctx.get(Account.ref('a'));
      await gate?.pass();
      return balance;
    },
  });
  const hold = () => {
    gate = createGate();
    return gate;
  };
  return { definition, hold };
}

describe('QueryEngine invalidation', () => {
  it('stops depending on an actor the query no longer reads', async () => {
    harness = createHarness();
    await harness.deposit('a', 1);
    await harness.deposit('b', 2);
    const w = harness.watch({ query: 'followPointer', args: {} });
    await harness.engine.flush();
    expect(w.values()).toEqual([{ use: 'a', balance: 1 }]);

    await harness.commit('pointer/main', { use: 'b' });
    await harness.engine.flush();
    expect(w.values()).toEqual([
      { use: 'a', balance: 1 },
      { use: 'b', balance: 2 },
    ]);
    expect(harness.engine.stats()).toMatchObject({ runs: 2, dependencies: 2 });

    await harness.deposit('a', 100); // the old dependency
    await harness.engine.flush();
    expect(harness.engine.stats().runs).toBe(2);

    await harness.deposit('b', 10);
    await harness.engine.flush();
    expect(harness.engine.stats().runs).toBe(3);
    expect(w.values().at(-1)).toEqual({ use: 'b', balance: 12 });
  });

  it('re-runs once for 50 commits that arrive within one batch', async () => {
    harness = createHarness();
    const w = harness.watch({ query: 'totalBalance', args: { accounts: ['a', 'b'] } });
    await harness.engine.flush();
    for (let i = 0; i < 25; i++) {
      await harness.deposit('a', 1);
      await harness.deposit('b', 1);
    }
    await harness.engine.flush();
    expect(harness.engine.stats().runs).toBe(2);
    expect(w.values()).toEqual([
      { total: 0, currency: 'EUR' },
      { total: 50, currency: 'EUR' },
    ]);
  });

  it('re-runs a change after a quiet batchMs at the end of its turn, without waiting', async () => {
    vi.useFakeTimers();
    harness = createHarness({ engine: { batchMs: 10 } });
    const w = harness.watch({ query: 'totalBalance', args: { accounts: ['a'] } });
    await vi.advanceTimersByTimeAsync(0);
    expect(w.updates).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(10);
    await harness.deposit('a', 1);
    await harness.deposit('a', 1);
    expect(harness.engine.stats().runs).toBe(1);
    await vi.advanceTimersByTimeAsync(0); // no time passes: the turn ends, the batch drains
    expect(harness.engine.stats().runs).toBe(2);
    expect(w.values().at(-1)).toEqual({ total: 2, currency: 'EUR' });
  });

  it('re-runs at most once per batchMs while changes keep coming, gathering them', async () => {
    vi.useFakeTimers();
    harness = createHarness({ engine: { batchMs: 10 } });
    const w = harness.watch({ query: 'totalBalance', args: { accounts: ['a'] } });
    await vi.advanceTimersByTimeAsync(10);
    await harness.deposit('a', 1);
    await vi.advanceTimersByTimeAsync(0);
    expect(harness.engine.stats().runs).toBe(2); // a quiet start: at once
    for (let i = 0; i < 50; i++) await harness.deposit('a', 1);
    await vi.advanceTimersByTimeAsync(9);
    expect(harness.engine.stats().runs).toBe(2); // 10 ms after the last batch, not before
    await vi.advanceTimersByTimeAsync(1);
    expect(harness.engine.stats().runs).toBe(3);
    expect(w.values().at(-1)).toEqual({ total: 51, currency: 'EUR' });
  });

  it('pushes nothing when a re-run gives an equal result', async () => {
    harness = createHarness();
    await harness.deposit('a', 10);
    const w = harness.watch({ query: 'totalBalance', args: { accounts: ['a', 'b'] } });
    await harness.engine.flush();
    await harness.deposit('a', -5); // a transfer of 5 from a to b, in two commits
    await harness.deposit('b', 5);
    await harness.commit('account/a', { balance: 5, owner: 'alice' }); // a field it ignores
    await harness.engine.flush();
    expect(harness.engine.stats()).toMatchObject({ runs: 2, pushes: 1 });
    expect(w.updates).toHaveLength(1);
    expect(w.subscription.current()).toMatchObject({ version: 1 });
  });

  it('skips a result made stale by a commit during its run and pushes the newer one', async () => {
    const gated = gatedQuery();
    harness = createHarness({ queries: [gated.definition] });
    await harness.deposit('a', 1);
    const w = harness.watch({ query: 'gated', args: {} });
    await harness.engine.flush();
    expect(w.values()).toEqual([1]);

    const gate = gated.hold();
    await harness.deposit('a', 1);
    const flushed = harness.engine.flush();
    await gate.arrived; // the re-run has read balance 2 and waits
    await harness.deposit('a', 1); // 3: the running result is now stale
    await harness.deposit('a', 1); // 4
    gate.open();
    await flushed;
    expect(w.values()).toEqual([1, 4]);
    expect(w.updates.map((u) => u.kind === 'result' && u.version)).toEqual([1, 2]);
    expect(harness.engine.stats()).toMatchObject({ runs: 3, skipped: 1 });
  });

  it('pushes the newest result anyway after three stale runs in a row (a hot actor)', async () => {
    const gated = gatedQuery();
    harness = createHarness({ queries: [gated.definition] });
    const w = harness.watch({ query: 'gated', args: {} });
    await harness.engine.flush();
    let gate = gated.hold();
    await harness.deposit('a', 1);
    const flushed = harness.engine.flush();
    for (let run = 1; run <= 4; run++) {
      await gate.arrived;
      await harness.deposit('a', 1); // a commit during every run
      const held = gate;
      gate = gated.hold();
      if (run === 4) gate.open();
      held.open();
    }
    await flushed;
    // Runs 2-4 were skipped as stale; run 5 pushed its (stale) 4 anyway; run 6 pushed the newest.
    expect(w.values()).toEqual([0, 4, 5]);
    expect(harness.engine.stats()).toMatchObject({ runs: 6, skipped: 3 });
  });

  it('re-runs when a commit lands while a read of that actor is in flight', async () => {
    let delay: ReturnType<typeof createGate> | undefined;
    harness = createHarness({
      store: (store) => ({
        load: async (id) => {
          const record = await store.load(id);
          await delay?.pass(); // returns the version read before the commit below
          return record;
        },
      }),
    });
    await harness.deposit('a', 1);
    const w = harness.watch({ query: 'totalBalance', args: { accounts: ['a'] } });
    await harness.engine.flush();
    delay = createGate();
    await harness.deposit('a', 1);
    const flushed = harness.engine.flush();
    await delay.arrived;
    await harness.deposit('a', 1);
    const gate = delay;
    delay = undefined;
    gate.open();
    await flushed;
    expect(w.values()).toEqual([
      { total: 1, currency: 'EUR' },
      { total: 3, currency: 'EUR' },
    ]);
    expect(harness.engine.stats().skipped).toBe(1);
  });

  it('ignores change records of versions it has already read (a stream delivering twice)', async () => {
    const listeners: ((record: ActorRecord) => void)[] = [];
    const feed = {
      subscribe: (listener: (record: ActorRecord) => void) => {
        listeners.push(listener);
        return () => {};
      },
    };
    harness = createHarness({ engine: { feed } }); // the engine hears only what the test emits
    await harness.deposit('a', 1);
    const record = (await harness.backend.store.load('account/a'))!;
    const emit = (ver: number) => {
      for (const listener of listeners) listener({ ...record, ver });
    };
    const w = harness.watch({ query: 'totalBalance', args: { accounts: ['a'] } });
    await harness.engine.flush();
    emit(1); // the version the run read
    emit(0);
    await harness.engine.flush();
    expect(harness.engine.stats().runs).toBe(1);
    emit(2);
    emit(2);
    await harness.engine.flush();
    expect(harness.engine.stats().runs).toBe(2);
    expect(w.updates).toHaveLength(1); // the store still holds ver 1: an equal result
  });
});
