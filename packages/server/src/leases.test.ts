import { afterEach, describe, expect, it } from 'vitest';
import { createHarness } from './fixtures/createHarness.ts';

let harness: ReturnType<typeof createHarness>;
afterEach(() => harness?.close());

const request = { query: 'totalBalance', args: { accounts: ['a', 'b'] } };

describe('QueryEngine leases and clean-up', () => {
  it('drops a subscription whose lease lapsed, and its instance with it', async () => {
    harness = createHarness();
    const w = harness.watch({ ...request, leaseMs: 30_000 });
    await harness.engine.flush();
    expect(harness.engine.stats()).toMatchObject({ instances: 1, dependencies: 2 });

    harness.clock.advance(29_999);
    expect(harness.engine.collect()).toBe(0);
    harness.clock.advance(1);
    expect(harness.engine.collect()).toBe(1);
    expect(harness.engine.stats()).toMatchObject({
      instances: 0,
      subscriptions: 0,
      dependencies: 0,
    });
    expect(w.subscription.current()).toBeUndefined();
    expect(w.subscription.renew()).toBe(false);

    await harness.deposit('a', 5);
    await harness.engine.flush();
    expect(harness.engine.stats().runs).toBe(1);
    expect(w.updates).toHaveLength(1);
  });

  it('keeps a renewed lease and the subscriptions that have none', async () => {
    harness = createHarness();
    const leased = harness.watch({ ...request, leaseMs: 30_000 });
    const forever = harness.watch({ query: 'share', args: { of: 'a' } });
    await harness.engine.flush();
    harness.clock.advance(20_000);
    expect(leased.subscription.renew()).toBe(true);
    harness.clock.advance(20_000);
    expect(harness.engine.collect()).toBe(0);
    harness.clock.advance(10_000);
    expect(harness.engine.collect()).toBe(1);
    expect(harness.engine.collect(harness.clock.now() + 365 * 86_400_000)).toBe(0);
    expect(forever.subscription.current()).toBeDefined();
    expect(harness.engine.stats()).toMatchObject({ instances: 1, subscriptions: 1 });
  });

  it('keeps an instance while one of its subscribers has a live lease', async () => {
    harness = createHarness();
    const short = harness.watch({ ...request, leaseMs: 1_000 });
    const long = harness.watch({ ...request, leaseMs: 60_000 });
    await harness.engine.flush();
    harness.clock.advance(2_000);
    expect(harness.engine.collect()).toBe(1);
    await harness.deposit('b', 3);
    await harness.engine.flush();
    expect(long.values().at(-1)).toEqual({ total: 3, currency: 'EUR' });
    expect(short.updates).toHaveLength(1);
  });

  it('drops the instance and its index entries when its last subscriber unsubscribes', async () => {
    harness = createHarness();
    const one = harness.watch(request);
    const two = harness.watch(request);
    await harness.engine.flush();
    one.subscription.unsubscribe();
    one.subscription.unsubscribe(); // idempotent
    expect(harness.engine.stats()).toMatchObject({ instances: 1, subscriptions: 1 });
    two.subscription.unsubscribe();
    expect(harness.engine.stats()).toMatchObject({
      instances: 0,
      subscriptions: 0,
      dependencies: 0,
    });
    await harness.deposit('a', 1);
    await harness.engine.flush();
    expect(harness.engine.stats().runs).toBe(1);
  });

  it('discards the result of a run whose instance was dropped while it ran', async () => {
    harness = createHarness();
    const w = harness.watch(request);
    w.subscription.unsubscribe(); // the first run is already under way
    await harness.engine.flush();
    expect(w.updates).toEqual([]);
    expect(harness.engine.stats()).toMatchObject({ instances: 0, dependencies: 0, runs: 1 });
  });

  it('starts a fresh instance for a subscriber that comes back after the drop', async () => {
    harness = createHarness();
    harness.watch(request).subscription.unsubscribe();
    await harness.deposit('a', 2);
    const w = harness.watch(request);
    await harness.engine.flush();
    expect(w.updates).toEqual([
      expect.objectContaining({ version: 1, value: { total: 2, currency: 'EUR' } }),
    ]);
  });

  it('rejects a lease that is not a positive number', () => {
    harness = createHarness();
    expect(() => harness.watch({ ...request, leaseMs: 0 })).toThrow('leaseMs must be a number > 0');
  });
});
