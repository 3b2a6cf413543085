import { ErrorCode } from '@baton/core';
import { canonicalJson } from '@baton/core/adapter';
import { afterEach, describe, expect, it } from 'vitest';
import { hashText } from './evaluation/hashText.ts';
import { createHarness } from './fixtures/createHarness.ts';

let harness: ReturnType<typeof createHarness>;
afterEach(() => harness?.close());

const request = { query: 'totalBalance', args: { accounts: ['a'] } };
const hashOf = (value: unknown) => hashText(canonicalJson(value));

describe('QueryEngine.resume', () => {
  it("answers 'unchanged' when the client's hash is the newest result's", async () => {
    harness = createHarness();
    await harness.deposit('a', 5);
    const w = harness.watch(request);
    await harness.engine.flush();
    const { version, hash } = w.updates[0] as { version: number; hash: string };
    expect(await harness.engine.resume({ ...request, lastVersion: version, hash })).toBe(
      'unchanged',
    );
    expect(harness.engine.stats()).toMatchObject({ instances: 1, subscriptions: 1, runs: 1 });
  });

  it('answers the full newest result when the client holds an older one', async () => {
    harness = createHarness();
    const w = harness.watch(request);
    await harness.engine.flush();
    const old = w.updates[0] as { version: number; hash: string };
    await harness.deposit('a', 5);
    await harness.engine.flush();
    const answer = await harness.engine.resume({ ...request, ...old, lastVersion: old.version });
    expect(answer).toEqual({
      kind: 'full',
      version: 2,
      hash: hashOf({ currency: 'EUR', total: 5 }),
      value: { total: 5, currency: 'EUR' },
    });
  });

  it('runs the query for a client resuming on a restarted server, then drops the instance', async () => {
    harness = createHarness();
    await harness.deposit('a', 5);
    const hash = hashOf({ total: 5, currency: 'EUR' });
    expect(await harness.engine.resume({ ...request, lastVersion: 7, hash })).toBe('unchanged');
    expect(harness.engine.stats()).toMatchObject({ instances: 0, runs: 1 });
  });

  it('keeps the versions a client sees increasing across a server restart', async () => {
    harness = createHarness();
    await harness.deposit('a', 5);
    const w = harness.watch(request); // a fresh instance: version 1
    await harness.engine.flush();
    const unchanged = hashOf({ total: 5, currency: 'EUR' });
    expect(await harness.engine.resume({ ...request, lastVersion: 7, hash: unchanged })).toBe(
      'unchanged',
    );
    await harness.deposit('a', 1);
    await harness.engine.flush();
    expect(w.updates.at(-1)).toMatchObject({ version: 8, value: { total: 6 } });

    const answer = await harness.engine.resume({ ...request, lastVersion: 20, hash: 'stale' });
    expect(answer).toMatchObject({ kind: 'full', version: 21, value: { total: 6 } });
  });

  it('answers the error the query now gives', async () => {
    harness = createHarness();
    const answer = await harness.engine.resume({
      query: 'myBalance',
      args: {},
      lastVersion: 3,
      hash: 'x',
    });
    expect(answer).toMatchObject({ kind: 'error', error: { code: ErrorCode.REJECTED } });
  });

  it('rejects an unknown query, bad args and a bad lastVersion before running anything', async () => {
    harness = createHarness();
    const base = { lastVersion: 1, hash: 'x' };
    await expect(harness.engine.resume({ ...base, query: 'nope', args: {} })).rejects.toMatchObject(
      { code: ErrorCode.NOT_FOUND },
    );
    await expect(
      harness.engine.resume({ ...base, query: 'totalBalance', args: {} }),
    ).rejects.toMatchObject({ code: ErrorCode.INVALID_PAYLOAD });
    await expect(
      harness.engine.resume({ ...request, lastVersion: -1, hash: 'x' }),
    ).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENT });
    expect(harness.engine.stats().runs).toBe(0);
  });

  it('fails a waiting resume when the engine closes', async () => {
    harness = createHarness({
      store: () => ({ load: () => new Promise(() => {}) }), // a read that never ends
    });
    const answer = harness.engine.resume({ ...request, lastVersion: 1, hash: 'x' });
    harness.engine.close();
    await expect(answer).rejects.toMatchObject({ code: ErrorCode.UNAVAILABLE });
  });
});
