/**
 * Hot actor batching (DESIGN "Budgets": ≥ 8x; 10x is the ceiling).
 *
 * N ingress messages wait in the inbox for ONE actor; a single Worker polls until the inbox is
 * empty. Candidate: batchSize 10 (up to 10 messages per receive, per turn, per commit).
 * Baseline: batchSize 1 (one message per transaction). The figure is messages per second.
 *
 * The embedded backend answers in microseconds, so batching only saves CPU here. A second
 * variant adds a modelled round-trip latency to every store and queue call, which is where
 * batching pays on DynamoDB + SQS.
 */
import { actor, silentLogger } from '@baton/core';
import {
  type ActorRecord,
  type Envelope,
  encodeEnvelope,
  INGRESS,
  type Queue,
} from '@baton/core/adapter';
import { Worker } from '@baton/core/engine';
import { createEmbeddedBackend } from '@baton/embedded';
import * as z from 'zod';
import { formatNs, formatRate, interleave, median, type Sample, timeNs } from './measure.ts';
import { formatCalls, instrument } from './ports.ts';
import { pairedFigures, type Row } from './report.ts';

const Counter = actor({
  name: 'counter',
  state: z.object({ count: z.number().int(), total: z.number().int() }),
  initial: () => ({ count: 0, total: 0 }),
  handlers: {
    add: {
      payload: z.object({ amount: z.number().int() }),
      handle: (ctx, { amount }) => {
        ctx.state.count++;
        ctx.state.total += amount;
        return ctx.state.count;
      },
    },
  },
});

const ACTOR = Counter.ref('hot').id;

export interface HotActorOptions {
  /** Messages per round. */
  readonly messages: number;
  readonly rounds: number;
  readonly warmup: number;
  /** Modelled round trip per store/queue call; 0 for the plain embedded backend. */
  readonly latencyNs: number;
  readonly log: (line: string) => void;
}

export async function hotActor(options: HotActorOptions): Promise<Row> {
  const { messages, latencyNs, log } = options;
  const label =
    latencyNs > 0
      ? `hot actor batching (modelled ${formatNs(latencyNs)}/call)`
      : 'hot actor batching';
  const result = await interleave({
    baseline: () => round(1, messages, latencyNs),
    candidate: () => round(10, messages, latencyNs),
    rounds: options.rounds,
    warmup: options.warmup,
  });
  const baseline = median(result.baseline);
  const candidate = median(result.candidate);
  log(
    `  batchSize 1: ${formatRate(baseline)} (${formatNs(baseline)}/msg); ` +
      `batchSize 10: ${formatRate(candidate)} (${formatNs(candidate)}/msg); ${messages} messages × ${options.rounds} rounds`,
  );
  for (const batchSize of [1, 10]) {
    const calls = await countCalls(batchSize, messages);
    log(`  batchSize ${batchSize} calls per message: ${calls}`);
  }
  // A gain: baseline time per message / candidate time per message, per pair of rounds.
  const gains = result.paired.map((ratio) => 1 / ratio);
  return {
    bench: label,
    baseline: formatRate(baseline),
    candidate: formatRate(candidate),
    ...pairedFigures(gains, baseline / candidate),
    // No budget: DESIGN's (≥ 8x) is measured on the emulators (2b). In memory a call costs
    // nearly nothing, so batching has little to save: a figure to read.
  };
}

async function round(batchSize: number, messages: number, latencyNs: number): Promise<Sample> {
  const backend = createEmbeddedBackend();
  await enqueue(backend.queue, messages);
  const ports = instrument(backend.store, backend.queue, latencyNs);
  const worker = new Worker({
    actors: [Counter],
    store: latencyNs > 0 ? ports.store : backend.store,
    queue: latencyNs > 0 ? ports.queue : backend.queue,
    batchSize,
    logger: silentLogger,
  });
  const ns = await timeNs(async () => {
    while ((await worker.poll()) > 0) {}
  });
  await check(backend.store.load(ACTOR), messages);
  backend.close();
  return { ns, ops: messages };
}

/** Store and queue calls per message for one untimed run (no latency). */
async function countCalls(batchSize: number, messages: number): Promise<string> {
  const backend = createEmbeddedBackend();
  await enqueue(backend.queue, messages);
  const ports = instrument(backend.store, backend.queue);
  const worker = new Worker({ actors: [Counter], ...ports, batchSize, logger: silentLogger });
  while ((await worker.poll()) > 0) {}
  await check(backend.store.load(ACTOR), messages);
  backend.close();
  return formatCalls(ports.calls, messages);
}

/** Ingress messages, as `Client.send` would enqueue them (setup: not timed). */
async function enqueue(queue: Queue, messages: number): Promise<void> {
  const now = Date.now();
  const batch = [];
  for (let i = 1; i <= messages; i++) {
    const envelope: Envelope = {
      id: `add-${i}`,
      from: INGRESS,
      seq: 0,
      to: ACTOR,
      name: 'add',
      payload: { amount: i },
      sentAt: now,
    };
    batch.push({ group: ACTOR, dedupeId: envelope.id, body: encodeEnvelope(envelope) });
  }
  await queue.send(batch);
}

async function check(loaded: Promise<ActorRecord | undefined>, messages: number): Promise<void> {
  const state = (await loaded)?.state as { count: number } | undefined;
  if (state?.count !== messages) {
    throw new Error(`hot actor: expected ${messages} messages applied, got ${state?.count}`);
  }
}
