import {
  type BatonError,
  ErrorCode,
  isBatonError,
  jsonLogger,
  query,
  TerminalError,
} from '@baton/core';
import { MAX_SCHEMA_ISSUES } from '@baton/core/shared';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { Account, bankQueries } from './fixtures/bank.ts';
import { createHarness } from './fixtures/createHarness.ts';

let harness: ReturnType<typeof createHarness>;
afterEach(() => harness?.close());

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('QueryEngine subscriptions', () => {
  it('gives a new subscriber the result computed from committed state', async () => {
    harness = createHarness();
    await harness.deposit('a', 5);
    const w = harness.watch({ query: 'totalBalance', args: { accounts: ['a', 'b'] } });
    await harness.engine.flush();
    expect(w.values()).toEqual([{ total: 5, currency: 'EUR' }]);
    expect(w.updates[0]).toMatchObject({ kind: 'result', version: 1 });
    expect(w.subscription.current()).toBe(w.updates[0]);
  });

  it('shares one instance between equal args written in a different key order', async () => {
    harness = createHarness();
    const one = harness.watch({
      query: 'totalBalance',
      args: { accounts: ['a'], currency: 'EUR' },
    });
    const two = harness.watch({
      query: 'totalBalance',
      args: { currency: 'EUR', accounts: ['a'] },
    });
    // The default currency makes these the same parsed args.
    const three = harness.watch({ query: 'totalBalance', args: { accounts: ['a'] } });
    await harness.engine.flush();
    expect(one.subscription.instance).toBe(two.subscription.instance);
    expect(three.subscription.instance).toBe(one.subscription.instance);
    expect(harness.engine.stats()).toMatchObject({ instances: 1, subscriptions: 3, runs: 1 });
    expect(two.updates[0]).toBe(one.updates[0]);
  });

  it('gives a late subscriber the current result without running the query again', async () => {
    harness = createHarness();
    const first = harness.watch({ query: 'totalBalance', args: { accounts: ['a'] } });
    await harness.engine.flush();
    const late = harness.watch({ query: 'totalBalance', args: { accounts: ['a'] } });
    expect(late.updates).toEqual([]); // never called back before subscribe returns
    await Promise.resolve();
    expect(late.updates).toEqual(first.updates);
    expect(harness.engine.stats().runs).toBe(1);
  });

  it('gives different identity scopes different instances, and equal identities one', async () => {
    harness = createHarness();
    await harness.deposit('alice', 3);
    await harness.deposit('bob', 4);
    const alice = harness.watch({ query: 'myBalance', args: {}, identity: { userId: 'alice' } });
    const bob = harness.watch({ query: 'myBalance', args: {}, identity: { userId: 'bob' } });
    const aliceAgain = harness.watch({
      query: 'myBalance',
      args: {},
      identity: { userId: 'alice' },
    });
    await harness.engine.flush();
    expect([alice.values(), bob.values()]).toEqual([[3], [4]]);
    expect(aliceAgain.subscription.instance).toBe(alice.subscription.instance);
    expect(harness.engine.stats().instances).toBe(2);
  });

  it('lets a scope function put identities that see the same thing into one instance', async () => {
    harness = createHarness();
    const request = { query: 'totalBalance', args: { accounts: ['a'] }, scope: () => 'public' };
    const one = harness.watch({ ...request, identity: { userId: 'u1' } });
    const two = harness.watch({ ...request, identity: { userId: 'u2' } });
    expect(one.subscription.instance).toBe(two.subscription.instance);
  });

  it('errors a refused subscription only, while the same query serves others', async () => {
    harness = createHarness();
    await harness.deposit('alice', 3);
    const anonymous = harness.watch({ query: 'myBalance', args: {} });
    const alice = harness.watch({ query: 'myBalance', args: {}, identity: { userId: 'alice' } });
    await harness.engine.flush();
    expect(anonymous.updates).toEqual([
      {
        kind: 'error',
        error: { code: ErrorCode.REJECTED, message: 'sign in to see your balance', details: {} },
      },
    ]);
    expect(alice.values()).toEqual([3]);
  });

  it('throws NOT_FOUND for an unknown query, naming the known ones', () => {
    harness = createHarness();
    const error = thrown(() => harness.engine.subscribe({ query: 'nope', args: {} }, () => {}));
    expect(isBatonError(error) && error.code).toBe(ErrorCode.NOT_FOUND);
    expect((error as Error).message).toBe(
      'unknown query "nope": register it with the engine (known: totalBalance, followPointer, myBalance, share)',
    );
    expect(harness.engine.stats().instances).toBe(0);
  });

  it('throws INVALID_PAYLOAD for bad args, naming the field', () => {
    harness = createHarness();
    const error = thrown(() =>
      harness.engine.subscribe({ query: 'totalBalance', args: { accounts: [1] } }, () => {}),
    );
    expect(isBatonError(error) && error.code).toBe(ErrorCode.INVALID_PAYLOAD);
    expect((error as Error).message).toMatch(
      /^invalid args for query "totalBalance": args\.accounts\.0: /,
    );
  });

  it('names at most MAX_SCHEMA_ISSUES bad args: a refusal is not many times its request', () => {
    harness = createHarness();
    const accounts = new Array(5000).fill(0);
    const error = thrown(() =>
      harness.engine.subscribe({ query: 'totalBalance', args: { accounts } }, () => {}),
    ) as BatonError;
    expect(error.code).toBe(ErrorCode.INVALID_PAYLOAD);
    expect(error.details.issues).toHaveLength(MAX_SCHEMA_ISSUES);
    expect(error.message).toMatch(/args\.accounts\.19: [^;]+; and 4980 more$/);
    expect(JSON.stringify(error.toJSON()).length).toBeLessThan(JSON.stringify(accounts).length);
  });

  it.each([
    ['send', (ctx: any) => ctx.send(Account.ref('a'), 'deposit', { amount: 1 })],
    ['now', (ctx: any) => ctx.now()],
    ['random', (ctx: any) => ctx.random()],
  ])('errors a query that calls ctx.%s with a clear message', async (name, call) => {
    const bad = query({ name: 'bad', args: z.object({}), handler: async (ctx) => call(ctx) });
    harness = createHarness({ queries: [bad] });
    const w = harness.watch({ query: 'bad', args: {} });
    await harness.engine.flush();
    expect(w.updates[0]).toMatchObject({
      kind: 'error',
      error: { code: ErrorCode.INVALID_ARGUMENT },
    });
    const { message } = (w.updates[0] as { error: { message: string } }).error;
    expect(message).toContain(
      `queries are read-only and deterministic: ctx.${name} is not available`,
    );
  });

  it('errors the subscribers of a throwing instance only, and recovers on a later success', async () => {
    harness = createHarness();
    await harness.deposit('b', 50);
    const a = harness.watch({ query: 'share', args: { of: 'a' } });
    const b = harness.watch({ query: 'share', args: { of: 'b' } });
    await harness.engine.flush();
    expect(a.values()).toEqual([`error:${ErrorCode.REJECTED}`]);
    expect(b.values()).toEqual([2]);
    await harness.deposit('a', 25);
    await harness.engine.flush();
    expect(a.values()).toEqual([`error:${ErrorCode.REJECTED}`, 4]);
    expect(b.values()).toEqual([2]);
  });

  it('errors the subscribers of a query that throws by surprise without its text, which is logged with its stack', async () => {
    const lines: string[] = [];
    const leaky = query({
      name: 'leaky',
      args: z.object({}),
      handler: () => {
        throw new Error('connect ECONNREFUSED postgres://admin:hunter2@db');
      },
    });
    harness = createHarness({
      queries: [leaky],
      engine: { logger: jsonLogger({ write: (line) => lines.push(line) }) },
    });
    const w = harness.watch({ query: 'leaky', args: {} });
    await harness.engine.flush();
    expect(w.updates).toEqual([
      {
        kind: 'error',
        error: {
          code: ErrorCode.RETRYABLE,
          message: "an unexpected error; its text is in the server's log",
          details: {},
        },
      },
    ]);
    expect(lines.join('\n')).toContain('hunter2');
    // With where it came from: the query's own code.
    const failed = lines.map((line) => JSON.parse(line)).find((l) => l.message === 'query failed');
    expect(failed?.stack).toMatch(/QueryEngine\.test\.ts/);
  });

  it('errors a query whose result is not JSON', async () => {
    const big = query({ name: 'big', args: z.object({}), handler: () => 1n });
    harness = createHarness({ queries: [big] });
    const w = harness.watch({ query: 'big', args: {} });
    await harness.engine.flush();
    expect(w.values()).toEqual([`error:${ErrorCode.INVALID_ARGUMENT}`]);
  });

  it('keeps pushing to the other subscribers when one listener throws', async () => {
    harness = createHarness();
    harness.engine.subscribe({ query: 'totalBalance', args: { accounts: ['a'] } }, () => {
      throw new Error('listener bug');
    });
    const w = harness.watch({ query: 'totalBalance', args: { accounts: ['a'] } });
    await harness.engine.flush();
    expect(w.values()).toEqual([{ total: 0, currency: 'EUR' }]);
  });

  it('refuses a second query of the same name and a subscribe after close', () => {
    harness = createHarness();
    const error = thrown(() => createHarness({ queries: [...bankQueries, bankQueries[0]!] }));
    expect((error as Error).message).toContain('two queries are named "totalBalance"');
    harness.engine.close();
    const closed = thrown(() =>
      harness.engine.subscribe({ query: 'share', args: { of: 'a' } }, () => {}),
    );
    expect(isBatonError(closed) && closed.code).toBe(ErrorCode.UNAVAILABLE);
  });

  it('turns a TerminalError with details into an error update carrying them', async () => {
    const picky = query({
      name: 'picky',
      args: z.object({}),
      handler: () => {
        throw new TerminalError('no', { details: { reason: 'picky' } });
      },
    });
    harness = createHarness({ queries: [picky] });
    const w = harness.watch({ query: 'picky', args: {} });
    await harness.engine.flush();
    expect(w.updates).toEqual([
      {
        kind: 'error',
        error: { code: ErrorCode.REJECTED, message: 'no', details: { reason: 'picky' } },
      },
    ]);
  });
});
