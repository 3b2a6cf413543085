import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness } from './fixtures/createHarness.ts';

let harness: ReturnType<typeof createHarness>;
afterEach(() => harness?.close());

describe('QueryEngine fan-out', () => {
  it('serves 10,000 subscribers of one instance with one re-run and 10,000 pushes', async () => {
    harness = createHarness();
    const request = { query: 'totalBalance', args: { accounts: ['a', 'b'] } };
    const received = new Array<unknown>(10_000);
    for (let i = 0; i < 10_000; i++) {
      harness.engine.subscribe(request, (update) => {
        received[i] = update;
      });
    }
    await harness.engine.flush();
    expect(harness.engine.stats()).toMatchObject({ instances: 1, runs: 1, pushes: 10_000 });

    const started = performance.now();
    await harness.deposit('a', 5);
    await harness.engine.flush();
    const elapsed = performance.now() - started;

    expect(harness.engine.stats()).toMatchObject({ runs: 2, pushes: 20_000 });
    expect(new Set(received).size).toBe(1); // one shared update object
    expect(received[9_999]).toMatchObject({ version: 2, value: { total: 5 } });
    console.log(
      `fan-out: commit → re-run → 10,000 pushes in ${elapsed.toFixed(2)} ms (${((elapsed * 1000) / 10_000).toFixed(2)} µs per subscriber)`,
    );
  });
});
