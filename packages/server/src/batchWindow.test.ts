import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHarness } from './fixtures/createHarness.ts';

let harness: ReturnType<typeof createHarness>;
afterEach(() => {
  vi.useRealTimers();
  harness?.close();
});

/** Lets the event loop turn once, on the real `setImmediate` (fake timers leave it alone). */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('QueryEngine with batchMs 0', () => {
  it('re-runs after the current turn without waiting for any timer', async () => {
    // Timers are faked and never advanced: a re-run armed with setTimeout(0) would never come.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    harness = createHarness({ engine: { batchMs: 0 } });
    const w = harness.watch({ query: 'totalBalance', args: { accounts: ['a'] } });
    await nextTurn();
    expect(w.values()).toEqual([{ total: 0, currency: 'EUR' }]);
    await harness.deposit('a', 5);
    await nextTurn();
    await nextTurn(); // the run itself awaits the store
    expect(harness.engine.stats().runs).toBe(2);
    expect(w.values().at(-1)).toEqual({ total: 5, currency: 'EUR' });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('still re-runs once for the commits of one turn', async () => {
    harness = createHarness({ engine: { batchMs: 0 } });
    const w = harness.watch({ query: 'totalBalance', args: { accounts: ['a', 'b'] } });
    await harness.engine.flush();
    await Promise.all([harness.deposit('a', 1), harness.deposit('b', 2)]);
    await nextTurn();
    await nextTurn();
    expect(harness.engine.stats().runs).toBe(2);
    expect(w.values().at(-1)).toEqual({ total: 3, currency: 'EUR' });
  });
});
