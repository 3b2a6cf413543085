import { RetryableError, silentLogger } from '@baton/core';
import { Client } from '@baton/core/client';
import { createEngine, Worker } from '@baton/core/engine';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Account, Pointer } from './fixtures/bank.ts';
import { createHarness } from './fixtures/createHarness.ts';

let harness: ReturnType<typeof createHarness>;
afterEach(() => {
  vi.useRealTimers();
  harness?.close();
});

describe('QueryEngine reads', () => {
  it('never shows a query what a failed handler wrote to its draft (committed reads, I8)', async () => {
    harness = createHarness();
    const { backend, clock } = harness;
    const engine = createEngine({
      actors: [Account, Pointer],
      store: backend.store,
      queue: backend.queue,
      clock,
      logger: silentLogger,
    });
    const client = new Client({
      actors: [Account],
      store: backend.store,
      queue: backend.queue,
      clock,
    });
    const worker = new Worker(engine);
    const w = harness.watch({ query: 'totalBalance', args: { accounts: ['a'] } });
    await harness.engine.flush();

    await client.send(Account.ref('a'), 'depositThenFail', { amount: 1_000 });
    await worker.poll();
    await harness.engine.flush();
    expect(w.values()).toEqual([{ total: 0, currency: 'EUR' }]);

    await client.send(Account.ref('a'), 'deposit', { amount: 7 });
    await worker.poll();
    await harness.engine.flush();
    expect(w.values()).toEqual([
      { total: 0, currency: 'EUR' },
      { total: 7, currency: 'EUR' },
    ]);
  });

  it('retries after a store outage without waiting for a change', async () => {
    vi.useFakeTimers();
    let failures = 1;
    harness = createHarness({
      engine: { retryMs: 1_000 },
      store: (store) => ({
        load: async (id) => {
          if (failures-- > 0) throw new RetryableError('store down');
          return store.load(id);
        },
      }),
    });
    const w = harness.watch({ query: 'totalBalance', args: { accounts: ['a'] } });
    await vi.advanceTimersByTimeAsync(0);
    expect(w.values()).toEqual(['error:RETRYABLE']);
    await vi.advanceTimersByTimeAsync(1_000 + 10);
    expect(w.values()).toEqual(['error:RETRYABLE', { total: 0, currency: 'EUR' }]);
  });
});
