/**
 * 9. Sweeper throughput (for reading): how fast one sweep retires the sends that idle actors'
 * records still hold — each actor's record loaded, its outbox items apart read, its sends sent
 * again (the queue drops the copies) and its record written without them. Every actor that sent
 * in its last turn costs the sweeper this once it is idle, so it bounds how many actors may go
 * idle a second (see docs/scale.md, "The sweeper"). Baseline: one actor after the other
 * (`sweepOutboxOf`), as the sweeper did before 2026-11-30; candidate: the sweeper, its default
 * `SWEEP_CONCURRENCY` groups of ten at a time, each group's sends in one call. Each round commits
 * a deposit to fresh accounts (untimed), then times one sweep of them all. After each sweep the
 * helper's uncounted clients check it (untimed), whatever the side says it did: the outbox
 * listing names none of the round's accounts, no account's record holds a send (nor any apart),
 * and the queue holds exactly one message from each account to the ledger, which are then
 * received and deleted, so the next round starts from an empty queue.
 */
import { DeleteMessageBatchCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { DynamoStore, SqsQueue } from '@baton/aws';
import { silentLogger } from '@baton/core';
import { decodeEnvelope } from '@baton/core/adapter';
import {
  createEngine,
  runTurn,
  SWEEP_CONCURRENCY,
  SWEEP_GROUP,
  Sweeper,
  sweepOutboxOf,
} from '@baton/core/engine';
import { formatNs, interleave, median, type Sample } from '../measure.ts';
import { pairedFigures, type Row } from '../report.ts';
import { Account, ingress, Ledger } from './actors.ts';
import { formatCallTimes, formatPerOp, perOp, resetCounter } from './counting.ts';
import { type BenchResources, benchResources, type Clients, type Target } from './target.ts';

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
    let sent = 0;
    if (oneByOne) {
      for (const actorId of await store.listOutboxActors(Date.now())) {
        sent += (await sweepOutboxOf(store, queue, actorId)).sent;
        drained++;
      }
    } else {
      const engine = createEngine({
        actors: [Account, Ledger],
        store,
        queue,
        logger: silentLogger,
      });
      ({ drained, sent } = await new Sweeper(engine, { minAgeMs: 0 }).sweep());
    }
    const ns = Number(process.hrtime.bigint() - start);
    const how = oneByOne ? 'one at a time' : 'in groups';
    if (drained !== actors || sent !== actors) {
      throw new Error(
        `sweeper (${how}): the sweep says it retired ${drained} of ${actors} idle actors, sending ${sent}`,
      );
    }
    await checkSwept(resources, tag, actors, how, target.kind === 'aws');
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
    ...pairedFigures(gains, baseline / candidate),
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

/**
 * Checks a sweep of the `count` accounts of round `tag` with the helper's uncounted clients: the
 * outbox listing names none of them, no record holds a send, none has one apart, and the queue
 * holds exactly one message from each to the ledger (received and deleted here). Throws on any
 * difference. `eventual`: the listing's index is eventually consistent (AWS), so a retired actor
 * may stay listed for a moment; the emulators' is not, and get no second look.
 */
async function checkSwept(
  resources: BenchResources,
  tag: string,
  count: number,
  side: string,
  eventual: boolean,
): Promise<void> {
  const fail = (what: string): never => {
    throw new Error(`sweeper (${side}), round ${tag}: ${what}`);
  };
  const { helper, tableName, queueUrl } = resources;
  const store = new DynamoStore({ client: helper.dynamodb, tableName });
  const ids = Array.from({ length: count }, (_, i) => Account.ref(`${tag}-${i}`).id);
  const ours = new Set(ids);
  for (let attempt = 1; ; attempt++) {
    const listed = (await store.listOutboxActors(Number.MAX_SAFE_INTEGER)).filter((id) =>
      ours.has(id),
    );
    if (listed.length === 0) break;
    if (!eventual || attempt >= 20) {
      fail(`the outbox listing still names ${listed.length} of its accounts (${listed[0]}, …)`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  for (let i = 0; i < ids.length; i += SWEEP_GROUP) {
    await Promise.all(
      ids.slice(i, i + SWEEP_GROUP).map(async (id) => {
        const [record, apart] = await Promise.all([store.load(id), store.readOutbox(id)]);
        if (!record) fail(`${id} has no record`);
        const held = record?.outbox?.length ?? 0;
        if (held > 0 || apart.length > 0) {
          fail(`${id} still holds ${held} send(s) in its record and ${apart.length} apart`);
        }
      }),
    );
  }
  const ledger = Ledger.ref('main').id;
  const seen = new Set<string>();
  for (;;) {
    // A long poll: it answers as soon as a message is there, and waits a second for none.
    const { Messages = [] } = await helper.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: 30,
        WaitTimeSeconds: 1,
      }),
    );
    if (Messages.length === 0) break;
    for (const message of Messages) {
      const envelope = decodeEnvelope(message.Body ?? '');
      if (!envelope || envelope.to !== ledger || !ours.has(envelope.from)) {
        fail(`the queue holds a message not of this round's sends: ${message.Body}`);
      } else if (seen.has(envelope.from)) {
        fail(`the queue holds a second message from ${envelope.from}`);
      } else seen.add(envelope.from);
    }
    // The ledger's group is one: its next messages come once these are deleted.
    const { Failed = [] } = await helper.sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: Messages.map((m, n) => ({ Id: String(n), ReceiptHandle: m.ReceiptHandle })),
      }),
    );
    if (Failed.length > 0) fail(`${Failed.length} received message(s) could not be deleted`);
  }
  if (seen.size !== count) fail(`the queue received ${seen.size} of its ${count} sends`);
}

/** runTurn sends only what a turn before it left undrained: nothing here. */
const unused = () => Promise.reject(new Error('unused'));
