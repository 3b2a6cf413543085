/**
 * 9. Sweeper throughput (for reading): how fast one sweep retires the sends that idle actors'
 * records still hold — each actor's record loaded, its outbox items apart read, its sends sent
 * again (the queue drops the copies) and its record written without them. Every actor that sent
 * in its last turn costs the sweeper this once it is idle, so it bounds how many actors may go
 * idle a second (see docs/scale.md, "The sweeper"). Baseline: one actor after the other
 * (`sweepOutboxOf`), as the sweeper did before 2026-11-30; candidate: the sweeper, its default
 * `SWEEP_CONCURRENCY` groups of ten at a time, each group's sends in one call. Each round commits
 * a deposit to fresh accounts (untimed), then times one sweep of them all.
 */
import { DynamoStore, SqsQueue } from '@baton/aws';
import { silentLogger } from '@baton/core';
import {
  createEngine,
  runTurn,
  SWEEP_CONCURRENCY,
  SWEEP_GROUP,
  Sweeper,
  sweepOutboxOf,
} from '@baton/core/engine';
import { formatNs, interleave, median, quartiles, type Sample } from '../measure.ts';
import type { Row } from '../report.ts';
import { Account, ingress, Ledger } from './actors.ts';
import { formatCallTimes, formatPerOp, perOp, resetCounter } from './counting.ts';
import { benchResources, type Clients, type Target } from './target.ts';

export interface SweeperBenchOptions {
  readonly target: Target;
  /** Idle actors a sweep retires, per round. */
  readonly actors: number;
  readonly rounds: number;
  readonly warmup: number;
  readonly log: (line: string) => void;
}

export async function sweeperBench(options: SweeperBenchOptions): Promise<Row> {
  const { target, actors, log } = options;
  const resources = await benchResources(target, 'sweeper');
  const one = target.clients();
  const many = target.clients();
  let round = 0;
  const sweepRound = (side: Clients, oneByOne: boolean) => async (): Promise<Sample> => {
    const tag = `r${++round}`;
    await idleAccounts(resources.helper, resources, tag, actors);
    const store = new DynamoStore({ client: side.dynamodb, tableName: resources.tableName });
    const queue = new SqsQueue({ client: side.sqs, queueUrl: resources.queueUrl });
    const start = process.hrtime.bigint();
    let drained = 0;
    if (oneByOne) {
      for (const actorId of await store.listOutboxActors(Date.now())) {
        await sweepOutboxOf(store, queue, actorId);
        drained++;
      }
    } else {
      const engine = createEngine({
        actors: [Account, Ledger],
        store,
        queue,
        logger: silentLogger,
      });
      ({ drained } = await new Sweeper(engine, { minAgeMs: 0 }).sweep());
    }
    const ns = Number(process.hrtime.bigint() - start);
    if (drained !== actors) throw new Error(`a sweep retired ${drained} of ${actors} idle actors`);
    return { ns, ops: actors };
  };
  // Only the sweeps count: the first round's setup made calls on neither side's clients.
  resetCounter(one.counter);
  resetCounter(many.counter);
  const result = await interleave({
    baseline: sweepRound(one, true),
    candidate: sweepRound(many, false),
    rounds: options.rounds,
    warmup: options.warmup,
  });
  const retired = (options.rounds + options.warmup) * actors;
  const calls = { baton: perOp(many.counter, retired), baseline: perOp(one.counter, retired) };
  const baseline = median(result.baseline);
  const candidate = median(result.candidate);
  const rate = (ns: number) => `${Math.round(1e9 / ns).toLocaleString('en-US')} actors/s`;
  const groups = `${SWEEP_CONCURRENCY} groups of ${SWEEP_GROUP}`;
  log(
    `  one at a time ${formatNs(baseline)}/actor (${rate(baseline)}), ` +
      `${groups} at a time ${formatNs(candidate)}/actor (${rate(candidate)}); ` +
      `${actors} idle actors a sweep × ${options.rounds} rounds per side`,
  );
  log(
    `  calls per actor: one at a time ${formatPerOp(calls.baseline)}; ${groups} ${formatPerOp(calls.baton)}`,
  );
  log(
    `  time per call: one at a time ${formatCallTimes(one.counter)}; ` +
      `${groups} at a time ${formatCallTimes(many.counter)}`,
  );
  const gains = result.paired.map((ratio) => 1 / ratio);
  return {
    bench: `sweeper: idle actors retired a second, ${SWEEP_CONCURRENCY} groups of ${SWEEP_GROUP} at a time vs one at a time (${target.label})`,
    baseline: rate(baseline),
    candidate: rate(candidate),
    ratio: median(gains),
    spread: quartiles(gains),
    values: { baseline: 1e9 / baseline, candidate: 1e9 / candidate, unit: 'actors/s' },
    calls,
  };
}

/**
 * `count` accounts that each committed one deposit, which sends to their ledger: records
 * holding that send, as an idle actor's record does after its worker drained it.
 */
async function idleAccounts(
  helper: Clients,
  resources: { tableName: string },
  tag: string,
  count: number,
): Promise<void> {
  const engine = createEngine({
    actors: [Account, Ledger],
    store: new DynamoStore({ client: helper.dynamodb, tableName: resources.tableName }),
    queue: { send: unused, receive: unused, ack: unused, release: unused },
    logger: silentLogger,
  });
  for (let i = 0; i < count; i++) {
    const id = Account.ref(`${tag}-${i}`).id;
    const envelope = ingress(`dep-${tag}-${i}`, id, 'deposit', { amount: 1 });
    await runTurn(engine, id, [{ envelope, queueSeq: '1' }]);
  }
}

/** runTurn sends only what a turn before it left undrained: nothing here. */
const unused = () => Promise.reject(new Error('unused'));
