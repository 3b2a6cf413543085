/**
 * Opt-in: one workflow instance of 10,000 steps with 10 MB of step results, on the embedded
 * backend or with `--dynamodb` on DynamoDB Local + ElasticMQ (started for the run, or the
 * `BENCH_DYNAMODB_ENDPOINT` / `BENCH_SQS_ENDPOINT` ones):
 * `pnpm tsx bench/workflow-history.ts [--dynamodb] [steps] [bytesPerStep]`. Prints how long the
 * steps took on one warm worker, how large the record stayed and how many pages its history
 * moved into, and the cold resume: a worker with no run in memory takes the instance's next
 * message, reads every page back and replays the whole history.
 */
import { DynamoStore, SqsQueue } from '@baton/aws';
import { defineApp, silentLogger, type WorkflowState, workflow } from '@baton/core';
import type { Queue, Store } from '@baton/core/adapter';
import { Client } from '@baton/core/client';
import { Worker } from '@baton/core/engine';
import { createEmbeddedBackend } from '@baton/embedded';
import * as z from 'zod';
import { benchResources, openTarget } from './aws/target.ts';

const args = process.argv.slice(2);
const dynamodb = args.includes('--dynamodb');
const [steps = 10_000, bytesPerStep = 1_000] = args.filter((a) => !a.startsWith('--')).map(Number);
/** Instances whose run reached its last wait, and whose run ended. */
const waiting = new Set<string>();
const ended = new Set<string>();

const Big = workflow({
  name: 'big',
  input: z.object({ steps: z.number(), bytes: z.number() }),
  run: async (ctx, { steps, bytes }) => {
    let total = 0;
    for (let i = 0; i < steps; i++) {
      const value = await ctx.step(`s${i}`, () => `${i}:${'x'.repeat(bytes)}`);
      total += value.length;
    }
    waiting.add(ctx.id);
    const last = await ctx.waitForEvent<string>('last');
    ended.add(ctx.id);
    return { total, last };
  },
});

const app = defineApp({ workflows: [Big] });

async function open(): Promise<{
  store: Store;
  queue: Queue;
  label: string;
  close(): Promise<void>;
}> {
  if (!dynamodb) {
    const backend = createEmbeddedBackend();
    return { ...backend, label: 'embedded', close: async () => {} };
  }
  const target = await openTarget({ log: (line) => console.log(line) });
  const setup = await benchResources(target, 'history');
  const clients = target.clients();
  return {
    store: new DynamoStore({ client: clients.dynamodb, tableName: setup.tableName }),
    queue: new SqsQueue({ client: clients.sqs, queueUrl: setup.queueUrl }),
    label: target.label,
    close: () => target.close(),
  };
}

const backend = await open();
const options = { actors: app.actors, store: backend.store, queue: backend.queue };
const worker = () => new Worker({ ...options, logger: silentLogger });
const client = new Client(options).asSystem();

/** Polls until `done()`, and gives up after 200 empty polls in a row. */
async function drive(w: Worker, done: () => boolean): Promise<void> {
  for (let empty = 0; !done(); ) {
    empty = (await w.poll()) > 0 ? 0 : empty + 1;
    if (empty > 200) throw new Error('the instance stopped before it was done');
  }
}

const warm = worker();
const id = `one-${Date.now().toString(36)}`;
const ref = await client.start(Big, id, { steps, bytes: bytesPerStep });
let t = performance.now();
await drive(warm, () => waiting.has(id));
const runMs = performance.now() - t;
const record = await backend.store.load(ref.id);
const state = record?.state as WorkflowState;
if (state.status !== 'waiting') throw new Error(`expected a waiting instance, got ${state.status}`);

await client.signal(ref, 'last', 'done');
const cold = worker();
waiting.clear();
t = performance.now();
await drive(cold, () => ended.has(id));
const coldMs = performance.now() - t;
const output = (await client.result(ref)) as { total: number; last: string };
const expected = Array.from({ length: steps }, (_, i) => `${i}:`.length + bytesPerStep).reduce(
  (a, b) => a + b,
  0,
);
if (output.total !== expected) throw new Error(`wrong output: ${output.total} ≠ ${expected}`);

const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
console.log(`workflow history: ${steps} steps, ${mb(expected)} of step results (${backend.label})`);
console.log(
  `  warm run: ${(runMs / 1000).toFixed(1)} s (${((runMs * 1000) / steps).toFixed(0)} µs/step)`,
);
console.log(
  `  record: ${(JSON.stringify(record).length / 1e3).toFixed(1)} KB, ${state.journal.length} entries kept; ` +
    `${state.sealed?.entries ?? 0} entries in ${state.sealed?.pages ?? 0} pages`,
);
console.log(`  cold resume (read the pages, replay, finish): ${coldMs.toFixed(0)} ms`);
await backend.close();
