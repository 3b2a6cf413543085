/**
 * The benchmark suite: its steps and their sizes, the AWS target opened once for the steps that
 * need it, and the rows they return. `run.ts` is the command line around it; the smoke test
 * calls it in-process against the test setup's emulators.
 */
import { awsBackend, embeddedBackend, type OpenBackend, STREAM_POLL_MS } from './aws/backends.ts';
import { costPerMessage } from './aws/cost.ts';
import { gatewayFanOut } from './aws/gatewayFanOut.ts';
import { type HotActorAwsOptions, hotActorAws } from './aws/hot-actor.ts';
import { pingPongAws, pingPongClientsAws } from './aws/ping-pong.ts';
import { propagation } from './aws/propagation.ts';
import { sweeperBench } from './aws/sweeper.ts';
import { openTarget, type Target } from './aws/target.ts';
import { turnOverhead } from './aws/turn-overhead.ts';
import { warmUp } from './aws/warmUp.ts';
import { workflowBench } from './aws/workflow.ts';
import { embeddedTurns } from './embedded-turns.ts';
import { hotActor } from './hot-actor.ts';
import { timeNs } from './measure.ts';
import { endStep, startStep } from './output/progress.ts';
import { pingPong } from './ping-pong.ts';
import type { Row } from './report.ts';
import { turnCommit } from './turn-commit.ts';
import { workerBundle } from './worker-bundle.ts';

export interface SuiteOptions {
  /** Fewer rounds and smaller sizes: a smoke run (under a minute). */
  readonly quick: boolean;
  /** Only the steps listed, by id (`1` selects 1a, 1b…). */
  readonly only?: readonly string[];
  /** Running emulators to use instead of starting them (or the environment's target). */
  readonly endpoints?: { readonly dynamodb: string; readonly sqs: string };
  readonly log: (line: string) => void;
}

export interface SuiteResult {
  readonly rows: Row[];
  /** What the AWS steps ran on, e.g. `DynamoDB Local + ElasticMQ`; undefined if none ran. */
  readonly target?: string;
  /** Steps that threw: their error messages. */
  readonly errors: string[];
}

interface Context {
  target(): Promise<Target>;
  log: (line: string) => void;
  /** Full size, or the quick one. */
  size(full: number, quick: number): number;
}

export interface Step {
  readonly id: string;
  readonly title: string;
  /**
   * Ids of rows it prints besides its own (`2d`; a numbered step's lettered rows, `8a`…): asking
   * for one of them runs the step.
   */
  readonly prints?: readonly string[];
  readonly run: (c: Context) => Promise<Row | Row[]>;
}

/** A propagation step on a backend opened for it and closed after. */
async function onBackend(open: () => Promise<OpenBackend>, run: (b: OpenBackend) => Promise<Row>) {
  const backend = await open();
  try {
    return await run(backend);
  } finally {
    await backend.close();
  }
}

/**
 * A hot-actor step on the emulators: 100 ingress messages for one actor per round. With
 * `ceiling`, the id of a second row: the hand-written batch loop on the same rounds.
 */
function hotActorStep(
  id: string,
  title: string,
  /** Rounds per side: in a full run, in smoke mode. */
  rounds: readonly [number, number],
  baseline: HotActorAwsOptions['baseline'],
  /** The ids of the ceiling's row and of the Worker's share of it. */
  ceiling?: readonly [string, string],
): Step {
  return {
    id,
    title: `hot actor — ${title}`,
    ...(ceiling ? { prints: ceiling } : {}),
    run: async (c) => {
      const [worker, hand, share] = await hotActorAws({
        target: await c.target(),
        messages: c.size(100, 20),
        rounds: c.size(...rounds),
        warmup: 1,
        baseline,
        ceiling: ceiling !== undefined,
        log: c.log,
      });
      if (!ceiling) return [worker!];
      return [
        worker!,
        { ...hand!, bench: `${ceiling[0]}. ${hand!.bench}` },
        { ...share!, bench: `${ceiling[1]}. ${share!.bench}` },
      ];
    },
  };
}

const STEPS: readonly Step[] = [
  {
    id: '1a',
    title: 'turn overhead — runTurn on DynamoStore vs a raw TransactWriteItems of the same items',
    run: (c) =>
      c.target().then((target) =>
        turnOverhead({
          target,
          ops: c.size(40, 10),
          rounds: c.size(25, 3),
          warmup: 1,
          log: c.log,
        }),
      ),
  },
  {
    id: '1b',
    title: 'turn overhead — embedded backend: runTurn vs raw store.commit of the same items',
    run: (c) =>
      turnCommit({
        ops: c.size(2_000, 300),
        rounds: c.size(21, 3),
        warmup: 2,
        latencyNs: 0,
        log: c.log,
      }),
  },
  hotActorStep(
    '2a',
    'Worker batch 10 vs a raw SDK loop, one message per transaction (2d: a hand-written batch-10 loop on the same rounds, the ceiling; 2e: the Worker against it, round by round)',
    [7, 2],
    'raw',
    ['2d', '2e'],
  ),
  hotActorStep(
    '2b',
    'Worker batch 10 vs Worker batch 1 (batching alone; 2a is the stricter reading)',
    [5, 1],
    'engine',
  ),
  {
    id: '2c',
    title: 'hot actor — embedded backend: Worker batch 10 vs 1',
    run: (c) =>
      hotActor({
        messages: c.size(2_000, 300),
        rounds: c.size(15, 3),
        warmup: 1,
        latencyNs: 0,
        log: c.log,
      }),
  },
  {
    id: '3a',
    title: 'actor→actor ping-pong — engine vs hand-written PutItem + SQS send/receive/delete',
    run: (c) =>
      c.target().then((target) =>
        pingPongAws({
          target,
          roundTrips: c.size(20, 5),
          rounds: c.size(21, 2),
          warmup: 1,
          log: c.log,
        }),
      ),
  },
  {
    id: '3b',
    title: 'actor→actor ping-pong — embedded backend: engine vs hand-written pipeline',
    run: (c) =>
      pingPong({
        roundTrips: c.size(500, 100),
        rounds: c.size(21, 3),
        warmup: 2,
        latencyNs: 0,
        log: c.log,
      }),
  },
  {
    id: '3c',
    title:
      "actor→actor ping-pong — the engine on createAwsClients' clients (cacheMiddleware) vs the SDK's default",
    run: (c) =>
      c.target().then((target) =>
        pingPongClientsAws({
          target,
          roundTrips: c.size(20, 5),
          rounds: c.size(11, 2),
          warmup: 1,
          log: c.log,
        }),
      ),
  },
  {
    id: '4a',
    title: `query propagation — Baton's WebSocket host vs a hand-written push (stream feed, ${STREAM_POLL_MS} ms poll)`,
    run: async (c) => {
      const target = await c.target();
      return onBackend(
        () => awsBackend(target, 'prop'),
        (backend) =>
          propagation({
            backend,
            changes: c.size(15, 5),
            rounds: c.size(9, 2),
            warmup: 1,
            subscribers: 1,
            budget: 1.2,
            log: c.log,
          }),
      );
    },
  },
  {
    id: '4b',
    title:
      "query propagation — embedded backend (in-process feed): Baton's host vs a hand-written push",
    run: (c) =>
      onBackend(
        async () => embeddedBackend(),
        (backend) =>
          propagation({
            backend,
            changes: c.size(40, 10),
            rounds: c.size(9, 2),
            warmup: 1,
            subscribers: 1,
            log: c.log,
          }),
      ),
  },
  {
    id: '4e',
    title:
      "query propagation — embedded backend, the QueryEngine's batchMs set to 0 (no gathering window)",
    run: (c) =>
      onBackend(
        async () => embeddedBackend(),
        (backend) =>
          propagation({
            backend,
            changes: c.size(40, 10),
            rounds: c.size(9, 2),
            warmup: 1,
            subscribers: 1,
            batchMs: 0,
            log: c.log,
          }),
      ),
  },
  {
    id: '4c',
    title: 'fan-out — one instance, 1,000 subscriptions over 100 sockets',
    run: async (c) => {
      const target = await c.target();
      return onBackend(
        () => awsBackend(target, 'fan1k'),
        (backend) =>
          propagation({
            backend,
            changes: c.size(5, 2),
            rounds: c.size(5, 1),
            warmup: 1,
            subscribers: 1_000,
            log: c.log,
          }),
      );
    },
  },
  {
    id: '4d',
    title: 'fan-out — one instance, 10,000 subscriptions over 100 sockets',
    run: async (c) => {
      const target = await c.target();
      return onBackend(
        () => awsBackend(target, 'fan10k'),
        (backend) =>
          propagation({
            backend,
            changes: c.size(3, 1),
            // Rounds vary by a third on a shared host: nine make the median worth reading.
            rounds: c.size(9, 1),
            warmup: 1,
            subscribers: 10_000,
            budget: 1.2,
            log: c.log,
          }),
      );
    },
  },
  {
    id: '4f',
    title:
      'fan-out through API Gateway — 1,000 connections on the local gateway, the stream handler vs a hand-written one',
    run: async (c) =>
      gatewayFanOut({
        target: await c.target(),
        id: '4f',
        subscribers: c.size(1_000, 50),
        changes: c.size(3, 1),
        rounds: c.size(5, 1),
        warmup: 1,
        budget: 1.2,
        log: c.log,
      }),
  },
  {
    id: '4g',
    title:
      'fan-out through API Gateway — 10,000 connections on the local gateway, the stream handler vs a hand-written one',
    run: async (c) =>
      gatewayFanOut({
        target: await c.target(),
        id: '4g',
        subscribers: c.size(10_000, 100),
        // A change takes seconds on each side: three rounds of one.
        changes: 1,
        rounds: c.size(3, 1),
        warmup: 1,
        budget: 1.2,
        log: c.log,
      }),
  },
  {
    id: '5',
    prints: ['5a', '5b', '5c', '5d'],
    title: 'cost per message — item writes (WCU) and SQS requests, counted on the SDK clients',
    run: (c) =>
      c.target().then((target) =>
        costPerMessage({
          target,
          messages: c.size(100, 20),
          roundTrips: c.size(20, 5),
          log: c.log,
        }),
      ),
  },
  {
    id: '6',
    title: 'embedded turns/s — one Worker, messages spread over many actors',
    run: (c) =>
      embeddedTurns({
        messages: c.size(20_000, 5_000),
        actors: c.size(1_000, 500),
        rounds: c.size(5, 2),
        // V8 is still compiling the turn path through the second round of 20,000 turns
        // (rounds run at about 60%, 80%, then 100% of the steady rate): the budget is the latter.
        warmup: c.size(2, 1),
        log: c.log,
      }),
  },
  {
    id: '7',
    prints: ['7a', '7g', '7b', '7c', '7d', '7e', '7f'],
    title: 'worker Lambda bundle — size against the budget, load time against the SDK alone',
    run: (c) => workerBundle({ rounds: c.size(15, 3), log: c.log }),
  },
  {
    id: '8',
    prints: ['8a', '8b', '8c', '8d', '8e', '8f', '8g'],
    title:
      'workflows — steps of one instance and of many vs a hand-written actor state machine, item writes per step',
    run: (c) =>
      c.target().then((target) =>
        workflowBench({
          target,
          steps: c.size(20, 5),
          instances: c.size(10, 4),
          outsideSteps: c.size(200, 20),
          outsideRounds: c.size(9, 2),
          longSteps: c.size(1_000, 60),
          rounds: c.size(5, 2),
          warmup: 1,
          log: c.log,
        }),
      ),
  },
  {
    id: '9',
    title:
      'sweeper — idle actors whose held sends one sweep retires a second, in groups (its default) vs one at a time',
    run: (c) =>
      c.target().then((target) =>
        sweeperBench({
          target,
          actors: c.size(200, 20),
          rounds: c.size(5, 1),
          warmup: 1,
          log: c.log,
        }),
      ),
  },
];

export const STEP_IDS = STEPS.map((s) => s.id);

/**
 * The steps `only` asks for: a step by its id (`3a`), all steps of a number (`2`: 2a, 2b, 2c),
 * the step that prints a row (`2d`, `7a`: its `prints`). An id no step answers to is refused, naming
 * those there are: a run that measured nothing would pass for a clean one.
 */
export function selectSteps(only: readonly string[]): Step[] {
  const asks = (s: Step, o: string) =>
    o === s.id || o === s.id.replace(/[a-z]$/, '') || s.prints?.includes(o) === true;
  const unknown = only.filter((o) => !STEPS.some((s) => asks(s, o)));
  if (unknown.length > 0) {
    throw new Error(
      `BENCH_ONLY: no benchmark has the id ${unknown.join(', ')}; the ids are ${STEP_IDS.join(', ')} (a number alone runs all its rows, a row's id such as 7a or 2d the step that prints it)`,
    );
  }
  return STEPS.filter((s) => only.some((o) => asks(s, o)));
}

/**
 * Runs the selected steps in order; a step that throws is reported and the rest go on.
 */
export async function runSuite(options: SuiteOptions): Promise<SuiteResult> {
  const { log, quick, only } = options;
  const selected = only ? selectSteps(only) : STEPS;
  let target: Promise<Target> | undefined;
  const context: Context = {
    log,
    size: (full, small) => (quick ? small : full),
    target: () => {
      target ??= openTarget({
        log,
        ...(options.endpoints ? { endpoints: options.endpoints } : {}),
      }).then(async (opened) => {
        if (opened.kind === 'emulators') await warmUp(opened, quick ? 20 : 300, log);
        return opened;
      });
      return target;
    },
  };
  const rows: Row[] = [];
  const errors: string[] = [];
  try {
    for (const [i, step] of selected.entries()) {
      log(`${step.id}. ${step.title}`);
      startStep(i + 1, selected.length, `${step.id}. ${step.title}`);
      const ns = await timeNs(async () => {
        try {
          const made = [await step.run(context)].flat();
          for (const [n, row] of made.entries()) {
            // Several rows of one step are told apart by a letter: 5a, 5b…
            const id =
              made.length > 1 && /^\d+$/.test(step.id) ? `${step.id}${'abcdefgh'[n]}` : step.id;
            rows.push(/^\d/.test(row.bench) ? row : { ...row, bench: `${id}. ${row.bench}` });
          }
        } catch (error) {
          const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
          errors.push(`${step.id}: ${message}`);
          log(`  FAILED: ${message}`);
          rows.push({
            bench: `${step.id}. ${step.title.split(' — ')[0]} (failed)`,
            baseline: '—',
            candidate: '—',
            ratio: Number.NaN,
          });
        }
      });
      // The step's tables and queues go with it, so that no row reads what ran before it there.
      if (target) await (await target.catch(() => undefined))?.release();
      endStep();
      log(`  (${(ns / 1e9).toFixed(1)} s)\n`);
    }
  } finally {
    if (target) await (await target.catch(() => undefined))?.close();
  }
  const label = target ? (await target.catch(() => undefined))?.label : undefined;
  return { rows, errors, ...(label ? { target: label } : {}) };
}
