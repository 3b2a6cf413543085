/**
 * 3. Actor→actor ping-pong on DynamoDB + SQS FIFO (DESIGN "Budgets": ≤ 1.2x the at-least-once
 * baseline).
 *
 * Two actors bounce a ball K round trips (2K + 1 hops, counting the serve from ingress).
 * Candidate: one `Worker` on `DynamoStore` + `SqsQueue`; per hop a receive, a turn (handler,
 * one conditional `PutItem` of the record holding its send), the drain (`SendMessage` into
 * the other actor's group; nothing to delete: the next turn's record leaves the send out) and
 * the ack.
 * Baseline: a hand-written at-least-once pipeline with the AWS SDK directly; per hop
 * `ReceiveMessage`, `PutItem` of the new state (on its version), `SendMessage` of the next
 * ball, `DeleteMessage`. No outbox, no dedupe: a crash between put and send loses the ball or,
 * between send and delete, plays it twice.
 */
import { randomUUID } from 'node:crypto';
import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import {
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { DynamoStore, SqsQueue } from '@baton/aws';
import { silentLogger } from '@baton/core';
import { Worker } from '@baton/core/engine';
import { formatNs, interleave, median, type Sample } from '../measure.ts';
import { pairedFigures, type Row } from '../report.ts';
import { hits, inboxMessage, ingress, Player } from './actors.ts';
import { callMs, formatCallTimes, formatGaps, formatPerOp, perOp } from './counting.ts';
import { type BenchResources, benchResources, type Clients, type Target } from './target.ts';

const MAX_EMPTY = 50;

export interface PingPongAwsOptions {
  readonly target: Target;
  readonly roundTrips: number;
  readonly rounds: number;
  readonly warmup: number;
  readonly log: (line: string) => void;
}

export async function pingPongAws(options: PingPongAwsOptions): Promise<Row> {
  const { target, roundTrips, log } = options;
  const hops = 2 * roundTrips + 1;
  const setup = await benchResources(target, 'ping');
  const batonSide = target.clients();
  const handSide = target.clients();
  const meters = { baton: new SideMeter(batonSide), baseline: new SideMeter(handSide) };
  const result = await interleave({
    baseline: () => meters.baseline.measure(() => handRound(handSide, setup, roundTrips)),
    candidate: () => meters.baton.measure(() => engineRound(batonSide, setup, roundTrips)),
    rounds: options.rounds,
    warmup: options.warmup,
  });
  const total = (options.rounds + options.warmup) * hops;
  const calls = {
    baton: perOp(batonSide.counter, total),
    baseline: perOp(handSide.counter, total),
  };
  const baseline = median(result.baseline);
  const candidate = median(result.candidate);
  log(
    `  hand-written ${formatNs(baseline)}/hop, engine ${formatNs(candidate)}/hop ` +
      `(${roundTrips} round trips = ${hops} hops × ${options.rounds} rounds per side)`,
  );
  log(
    `  calls per hop: baton ${formatPerOp(calls.baton)}; hand-written ${formatPerOp(calls.baseline)}`,
  );
  log(
    `  time per call: baton ${formatCallTimes(batonSide.counter)}; hand-written ${formatCallTimes(handSide.counter)}`,
  );
  log(
    `  Node CPU per hop (this process, all rounds): baton ${meters.baton.cpuPerOp()}; hand-written ${meters.baseline.cpuPerOp()}`,
  );
  log(
    `  time outside the calls per hop (the code between them): baton ${meters.baton.offCallPerOp()}; hand-written ${meters.baseline.offCallPerOp()}`,
  );
  // The pairs every hop makes (not a round's first and last calls): where that code runs.
  const everyHop = total / 2;
  log(
    `  time between calls, median: baton ${formatGaps(batonSide.counter, everyHop)}; hand-written ${formatGaps(handSide.counter, everyHop)}`,
  );
  return {
    bench: `actor→actor ping-pong (${target.label})`,
    baseline: `${formatNs(baseline)}/hop`,
    candidate: `${formatNs(candidate)}/hop`,
    ...pairedFigures(result.paired, candidate / baseline),
    budget: { kind: 'max', value: 1.2 },
    values: { baseline: baseline / 1e6, candidate: candidate / 1e6, unit: 'ms/hop' },
    calls,
    latencies: result.latencies,
  };
}

/**
 * 3c. The engine's ping-pong on the clients `createAwsClients` makes (the SDK's
 * `cacheMiddleware`: each command type's middleware resolved once per client) against the same
 * on clients with the SDK's default (resolved at every call, as in 3a on both sides). For
 * reading: what a deployed worker gains from its clients' configuration.
 */
export async function pingPongClientsAws(options: PingPongAwsOptions): Promise<Row> {
  const { target, roundTrips, log } = options;
  const hops = 2 * roundTrips + 1;
  const setup = await benchResources(target, 'clients');
  const plain = target.clients();
  const cached = target.clients({ cacheMiddleware: true });
  const meters = { plain: new SideMeter(plain), cached: new SideMeter(cached) };
  const result = await interleave({
    baseline: () => meters.plain.measure(() => engineRound(plain, setup, roundTrips)),
    candidate: () => meters.cached.measure(() => engineRound(cached, setup, roundTrips)),
    rounds: options.rounds,
    warmup: options.warmup,
  });
  const baseline = median(result.baseline);
  const candidate = median(result.candidate);
  log(
    `  default clients ${formatNs(baseline)}/hop, caching clients ${formatNs(candidate)}/hop (${hops} hops × ${options.rounds} rounds per side)`,
  );
  log(
    `  Node CPU per hop (this process, all rounds): default ${meters.plain.cpuPerOp()}; caching ${meters.cached.cpuPerOp()}`,
  );
  return {
    bench: `ping-pong hop, engine on clients caching their middleware vs the SDK's default (${target.label})`,
    baseline: `${formatNs(baseline)}/hop`,
    candidate: `${formatNs(candidate)}/hop`,
    ...pairedFigures(result.paired, candidate / baseline),
    values: { baseline: baseline / 1e6, candidate: candidate / 1e6, unit: 'ms/hop' },
    latencies: result.latencies,
  };
}

/**
 * A side's rounds, per operation: the CPU time this process spends in them, and the time outside
 * its SDK calls (the rounds' time less the time its counter saw its calls take; the calls of a
 * round are sequential).
 */
class SideMeter {
  readonly #side: Clients;
  #micros = 0;
  #ops = 0;
  #offCallMs = 0;

  constructor(side: Clients) {
    this.#side = side;
  }

  async measure(round: () => Promise<Sample>): Promise<Sample> {
    const waitedBefore = callMs(this.#side.counter);
    const before = process.cpuUsage();
    const start = performance.now();
    const sample = await round();
    const used = process.cpuUsage(before);
    const elapsed = performance.now() - start;
    this.#offCallMs += elapsed - (callMs(this.#side.counter) - waitedBefore);
    this.#micros += used.user + used.system;
    this.#ops += sample.ops;
    return sample;
  }

  cpuPerOp(): string {
    return this.#ops === 0 ? '—' : `${(this.#micros / this.#ops / 1000).toFixed(2)} ms`;
  }

  offCallPerOp(): string {
    return this.#ops === 0 ? '—' : `${(this.#offCallMs / this.#ops).toFixed(2)} ms`;
  }
}

/** Time between consecutive hops (the first from the start of the round). */
function hopLatencies(start: number, times: readonly number[]): number[] {
  return times.map((t, i) => (t - (i === 0 ? start : times[i - 1]!)) * 1e6);
}

/** One warm Worker per side, kept across rounds (as a busy Lambda container keeps it). */
const workers = new WeakMap<Clients, Worker>();

function workerOf(side: Clients, setup: BenchResources): Worker {
  let worker = workers.get(side);
  if (!worker) {
    const queue = new SqsQueue({ client: side.sqs, queueUrl: setup.queueUrl });
    const store = new DynamoStore({ client: side.dynamodb, tableName: setup.tableName });
    worker = new Worker({ actors: [Player], store, queue, logger: silentLogger });
    workers.set(side, worker);
  }
  return worker;
}

export async function engineRound(
  side: Clients,
  setup: BenchResources,
  roundTrips: number,
): Promise<Sample> {
  const pair = randomUUID().slice(0, 8);
  const last = 2 * roundTrips;
  const worker = workerOf(side, setup);
  const { queue } = worker.engine;
  hits.length = 0;
  let empty = 0;
  const start = performance.now();
  const t0 = process.hrtime.bigint();
  await queue.send([
    inboxMessage(
      ingress(`serve-${pair}`, Player.ref(`a-${pair}`).id, 'ball', { n: 0, last, pair }),
    ),
  ]);
  while (hits.length < last + 1) {
    if ((await worker.poll()) === 0 && ++empty > MAX_EMPTY) {
      throw new Error(`ping-pong: the ball stopped after ${hits.length} hops`);
    }
  }
  const ns = Number(process.hrtime.bigint() - t0);
  const latencies = hopLatencies(start, hits);
  await check(setup, pair, last + 1, (item) => JSON.parse(item.state?.S ?? '{}').hits);
  return { ns, ops: last + 1, latencies };
}

interface Ball {
  readonly to: string;
  readonly n: number;
  readonly last: number;
}

/** Receive → put state → send the next ball → delete: at-least-once, the AWS SDK alone. */
export async function handRound(
  side: Clients,
  setup: BenchResources,
  roundTrips: number,
): Promise<Sample> {
  const pair = randomUUID().slice(0, 8);
  const last = 2 * roundTrips;
  const { tableName: TableName, queueUrl: QueueUrl } = setup;
  const a = `player/a-${pair}`;
  const b = `player/b-${pair}`;
  const records = new Map<string, { ver: number; hits: number }>();
  const times: number[] = [];
  const send = (ball: Ball) =>
    side.sqs.send(
      new SendMessageCommand({
        QueueUrl,
        MessageBody: JSON.stringify(ball),
        MessageGroupId: ball.to,
        MessageDeduplicationId: `${ball.to}:${ball.n}`,
      }),
    );
  let empty = 0;
  const start = performance.now();
  const t0 = process.hrtime.bigint();
  await send({ to: a, n: 0, last });
  while (times.length < last + 1) {
    const { Messages = [] } = await side.sqs.send(
      new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 30 }),
    );
    if (Messages.length === 0 && ++empty > MAX_EMPTY) {
      throw new Error(`ping-pong (hand-written): the ball stopped after ${times.length} hops`);
    }
    for (const message of Messages) {
      const { to, n } = JSON.parse(message.Body ?? '{}') as Ball;
      const previous = records.get(to) ?? { ver: 0, hits: 0 };
      const next = { ver: previous.ver + 1, hits: previous.hits + 1 };
      await side.dynamodb.send(
        new PutItemCommand({
          TableName,
          Item: {
            pk: { S: `A#${to}` },
            sk: { S: 'R' },
            ver: { N: String(next.ver) },
            state: { S: JSON.stringify({ hits: next.hits }) },
          },
          ...(previous.ver === 0
            ? { ConditionExpression: 'attribute_not_exists(pk)' }
            : {
                ConditionExpression: 'ver = :expected',
                ExpressionAttributeValues: { ':expected': { N: String(previous.ver) } },
              }),
        }),
      );
      records.set(to, next);
      times.push(performance.now());
      if (n < last) await send({ to: to === a ? b : a, n: n + 1, last });
      await side.sqs.send(
        new DeleteMessageCommand({ QueueUrl, ReceiptHandle: message.ReceiptHandle }),
      );
    }
  }
  const ns = Number(process.hrtime.bigint() - t0);
  await check(setup, pair, last + 1, (item) => JSON.parse(item.state?.S ?? '{}').hits);
  return { ns, ops: last + 1, latencies: hopLatencies(start, times) };
}

/** Every hop applied exactly once: the two players' hits add up to the hops. */
async function check(
  setup: BenchResources,
  pair: string,
  hops: number,
  hitsOf: (item: Record<string, { S?: string }>) => number,
): Promise<void> {
  let total = 0;
  for (const key of [`a-${pair}`, `b-${pair}`]) {
    const { Item } = await setup.helper.dynamodb.send(
      new GetItemCommand({
        TableName: setup.tableName,
        Key: { pk: { S: `A#player/${key}` }, sk: { S: 'R' } },
        ConsistentRead: true,
      }),
    );
    total += Item ? hitsOf(Item) : 0;
  }
  if (total !== hops) throw new Error(`ping-pong: expected ${hops} hops applied, got ${total}`);
}
