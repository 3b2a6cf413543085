/**
 * The engine's memory is bounded by the dependencies its live instances keep (one per actor a
 * run read): `maxDependencies` in all, `maxDependenciesPerScope` for one identity scope (every
 * anonymous subscriber shares one). A run that would read past either fails with LIMIT_EXCEEDED.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness } from './fixtures/createHarness.ts';

let harness: ReturnType<typeof createHarness>;
afterEach(() => harness?.close());

const balances = (...accounts: string[]) => ({ query: 'totalBalance', args: { accounts } });

describe("the query engine's dependency budget", () => {
  it('refuses a scope a read past its share, naming the query, the actor and what to do, and leaves other scopes their own', async () => {
    harness = createHarness({ engine: { maxDependenciesPerScope: 5 } });
    const first = harness.watch(balances('a', 'b', 'c'));
    const second = harness.watch(balances('d', 'e', 'f'));
    const signedIn = harness.watch({ ...balances('g', 'h'), identity: { userId: 'u' } });
    await harness.engine.flush();

    expect(first.values()).toEqual([{ total: 0, currency: 'EUR' }]);
    expect(second.values()).toEqual(['error:LIMIT_EXCEEDED']);
    const [refused] = second.updates;
    expect(refused?.kind === 'error' && refused.error.message).toMatch(
      /^query "totalBalance" cannot read account\/f: this caller's live queries hold 5 actors' reads, the most this server keeps \(5\); it runs again as room frees\. Unsubscribe from views no longer shown, or read fewer actors per query$/,
    );
    expect(signedIn.values()).toEqual([{ total: 0, currency: 'EUR' }]);
  });

  it('refuses any scope a read past the engine-wide budget', async () => {
    harness = createHarness({ engine: { maxDependencies: 4 } });
    const anonymous = harness.watch(balances('a', 'b', 'c'));
    await harness.engine.flush();
    const signedIn = harness.watch({ ...balances('d', 'e'), identity: { userId: 'u' } });
    await harness.engine.flush();

    expect(anonymous.values()).toEqual([{ total: 0, currency: 'EUR' }]);
    expect(signedIn.values()).toEqual(['error:LIMIT_EXCEEDED']);
    const [refused] = signedIn.updates;
    expect(refused?.kind === 'error' && refused.error.message).toMatch(
      /cannot read account\/e: all live queries here hold 4 actors' reads, the most this server keeps \(4\)/,
    );
    expect(harness.engine.stats().dependencies).toBe(4);
  });

  it('runs an instance at the budget again over the actors it holds, and frees its room when it ends', async () => {
    harness = createHarness({ engine: { maxDependenciesPerScope: 3 } });
    const full = harness.watch(balances('a', 'b', 'c'));
    await harness.engine.flush();
    await harness.deposit('a', 5);
    await harness.engine.flush();
    expect(full.values()).toEqual([
      { total: 0, currency: 'EUR' },
      { total: 5, currency: 'EUR' },
    ]);

    const refused = harness.watch(balances('d'));
    await harness.engine.flush();
    expect(refused.values()).toEqual(['error:LIMIT_EXCEEDED']);
    // Not the mark of a subscribe refused, held by none, which a client subscribes again after.
    expect(refused.updates[0]?.kind === 'error' && refused.updates[0].error.details).toEqual({
      query: 'totalBalance',
      held: 3,
      most: 3,
    });
    refused.subscription.unsubscribe();
    full.subscription.unsubscribe();
    const later = harness.watch(balances('d', 'e', 'f'));
    await harness.engine.flush();
    expect(later.values()).toEqual([{ total: 0, currency: 'EUR' }]);
  });

  it('runs a refused instance again as room frees: its subscribers, and one who joins it, get its result', async () => {
    harness = createHarness({ engine: { maxDependenciesPerScope: 3, retryMs: 5 } });
    const full = harness.watch(balances('a', 'b', 'c'));
    const refused = harness.watch(balances('d', 'e'));
    await harness.engine.flush();
    expect(refused.values()).toEqual(['error:LIMIT_EXCEEDED']);

    full.subscription.unsubscribe();
    await expect.poll(() => refused.values().length, { timeout: 5_000 }).toBe(2);
    expect(refused.values()).toEqual(['error:LIMIT_EXCEEDED', { total: 0, currency: 'EUR' }]);
    const joined = harness.watch(balances('d', 'e'));
    await harness.engine.flush();
    expect(joined.values()).toEqual([{ total: 0, currency: 'EUR' }]);
  });

  it('runs an instance at its share again when its reads move to other actors', async () => {
    harness = createHarness({ engine: { maxDependenciesPerScope: 2 } });
    const followed = harness.watch({ query: 'followPointer', args: {} });
    await harness.engine.flush();
    // The pointer now names account b: the run leaves a for b, and keeps two reads.
    await harness.commit('pointer/main', { use: 'b' });
    await harness.engine.flush();
    await harness.deposit('b', 7);
    await harness.engine.flush();

    expect(followed.values()).toEqual([
      { use: 'a', balance: 0 },
      { use: 'b', balance: 0 },
      { use: 'b', balance: 7 },
    ]);
    expect(harness.engine.stats().dependencies).toBe(2);
    // A third actor is past the share still.
    const refused = harness.watch(balances('c'));
    await harness.engine.flush();
    expect(refused.values()).toEqual(['error:LIMIT_EXCEEDED']);
  });

  it('refuses a budget that is not a number ≥ 0', () => {
    expect(() => createHarness({ engine: { maxDependencies: -1 } })).toThrow(
      /maxDependencies must be a number ≥ 0, got -1/,
    );
  });
});
