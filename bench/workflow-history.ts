/**
 * Opt-in: one workflow instance of 10,000 steps with 10 MB of step results, on the embedded
 * backend (`pnpm tsx bench/workflow-history.ts [steps] [bytesPerStep]`). Prints how long the
 * steps took on one warm worker, how large the record stayed and how many pages its history
 * moved into, and the cold resume: a worker with no run in memory takes the instance's next
 * message, reads every page back and replays the whole history.
 */
import { Client, defineApp, silentLogger, type WorkflowState, workflow } from '@baton/core';
import { Worker } from '@baton/core/engine';
import { createEmbeddedBackend } from '@baton/embedded';
import { z } from 'zod';

const steps = Number(process.argv[2] ?? 10_000);
const bytesPerStep = Number(process.argv[3] ?? 1_000);

const Big = workflow({
  name: 'big',
  input: z.object({ steps: z.number(), bytes: z.number() }),
  run: async (ctx, { steps, bytes }) => {
    let total = 0;
    for (let i = 0; i < steps; i++) {
      const value = await ctx.step(`s${i}`, () => `${i}:${'x'.repeat(bytes)}`);
      total += value.length;
    }
    const last = await ctx.waitForEvent<string>('last');
    return { total, last };
  },
});

const app = defineApp({ workflows: [Big] });
const backend = createEmbeddedBackend();
const options = { actors: app.actors, store: backend.store, queue: backend.queue };
const worker = () => new Worker({ ...options, logger: silentLogger });
const client = new Client(options).asSystem();

/** Polls until nothing is received, `idle` times in a row. */
async function drain(w: Worker, idle = 3): Promise<void> {
  for (let empty = 0; empty < idle; ) empty = (await w.poll()) > 0 ? 0 : empty + 1;
}

const warm = worker();
const ref = await client.start(Big, 'one', { steps, bytes: bytesPerStep });
let t = performance.now();
await drain(warm);
const runMs = performance.now() - t;
const record = await backend.store.load(ref.id);
const state = record?.state as WorkflowState;
if (state.status !== 'waiting') throw new Error(`expected a waiting instance, got ${state.status}`);

await client.signal(ref, 'last', 'done');
const cold = worker();
t = performance.now();
await drain(cold, 1);
const coldMs = performance.now() - t;
const output = (await client.result(ref)) as { total: number; last: string };
const expected = Array.from({ length: steps }, (_, i) => `${i}:`.length + bytesPerStep).reduce(
  (a, b) => a + b,
  0,
);
if (output.total !== expected) throw new Error(`wrong output: ${output.total} ≠ ${expected}`);

const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
console.log(`workflow history: ${steps} steps, ${mb(expected)} of step results (embedded)`);
console.log(
  `  warm run: ${(runMs / 1000).toFixed(1)} s (${((runMs * 1000) / steps).toFixed(0)} µs/step)`,
);
console.log(
  `  record: ${mb(JSON.stringify(record).length)}, ${state.journal.length} entries kept; ` +
    `${state.sealed?.entries ?? 0} entries in ${state.sealed?.pages ?? 0} pages`,
);
console.log(`  cold resume (read the pages, replay, finish): ${coldMs.toFixed(0)} ms`);
