/**
 * The crash test of workflows on the real AWS parts: worker processes (the Lambda worker handler
 * behind a local SQS poller, on DynamoDB Local and ElasticMQ) run shipment workflows — an outside
 * step, an actor call, a sleep, a wait for a signal, another outside step, a send at the end —
 * and are SIGKILLed right after they received a batch, right after a commit, or at random, and
 * restarted. Afterwards every instance completed once with the right output, every actor call
 * and every final send was applied once, and every outside step ran at least once, always with
 * one key (the outside system counts each run in a file every worker appends to).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createAwsClients, createFifoQueue, createTable, DynamoStore, SqsQueue } from '@baton/aws';
import { silentLogger, type WorkflowState } from '@baton/core';
import { seededRandom } from '@baton/core/adapter';
import { Client } from '@baton/core/client';
import { Sweeper } from '@baton/core/engine';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { queueDepth } from './fixtures/queueDepth.ts';
import { Books, Shipment, type StepRun, shipmentApp } from './fixtures/shipmentWorkflow.ts';
import { bundleWorker, WorkerFleet } from './fixtures/workerFleet.ts';

const KILLS = Number(process.env.BATON_WORKFLOW_CRASH_KILLS ?? 10);
const WORKERS = 3;
/** Instances are started until the kills are over, at least this many. */
const MIN_INSTANCES = 8;
const VISIBILITY_MS = 2000;
/** Kills required in each mid-turn phase (more kills are made until there are). */
const MID_TURN_KILLS = Math.min(3, Math.floor(KILLS / 5));
const AIM_MS = 1500;

describe('worker processes killed in the middle of workflows on DynamoDB Local and ElasticMQ', () => {
  let fleet: WorkerFleet | undefined;
  afterAll(() => fleet?.killAll());

  it(`completes every instance once, applies every call once and runs every step with one key through ${KILLS} SIGKILLs`, {
    timeout: 300_000,
  }, async () => {
    const dynamodbEndpoint = inject('dynamodbEndpoint');
    const sqsEndpoint = inject('sqsEndpoint');
    const { dynamodb, sqs } = createAwsClients({ dynamodbEndpoint, sqsEndpoint });
    const suffix = randomUUID().slice(0, 8);
    const tableName = `wfcrash-${suffix}`;
    await createTable(dynamodb, tableName);
    const { queueUrl, deadLetterQueueUrl } = await createFifoQueue(sqs, `wfcrash-${suffix}`, {
      maxReceives: 1000,
      visibilityTimeoutMs: VISIBILITY_MS,
    });
    const store = new DynamoStore({ client: dynamodb, tableName });
    const queue = new SqsQueue({ client: sqs, queueUrl });
    const { actors } = shipmentApp;
    const client = new Client({ actors, store, queue }).asSystem();

    const dir = mkdtempSync(join(tmpdir(), 'baton-wfcrash-'));
    const stepLog = join(dir, 'steps.jsonl');
    writeFileSync(stepLog, '');
    const env = {
      ...process.env,
      BATON_DYNAMODB_ENDPOINT: dynamodbEndpoint,
      BATON_SQS_ENDPOINT: sqsEndpoint,
      TABLE_NAME: tableName,
      QUEUE_URL: queueUrl,
      VISIBILITY_MS: String(VISIBILITY_MS),
      CRASH_APP: 'shipment',
      STEP_LOG: stepLog,
      // Workflow turns are short: hold each a moment after receive and commit, so aimed kills land.
      TURN_PAUSE_MS: '100',
    };
    const bundle = await bundleWorker(dir);
    const workers = new WorkerFleet({ bundle, env, size: WORKERS, aimMs: AIM_MS });
    fleet = workers;

    // The sleeps' timers (no timer queue here): the sweeper fires them as soon as they are due.
    const sweeper = new Sweeper({ actors, store, queue, logger: silentLogger }, { minAgeMs: 0 });
    let sweeping = true;
    const sweeps = (async () => {
      while (sweeping) {
        await sweeper.sweep();
        await sleep(200);
      }
    })();

    // The workload: instances started one by one while the kills go on, each signalled a little
    // later (some before their wait, some after).
    const random = seededRandom(Number(process.env.BATON_CRASH_SEED ?? 1));
    const orders: string[] = [];
    let killing = true;
    const sending = (async () => {
      const signals: Promise<void>[] = [];
      while (killing || orders.length < MIN_INSTANCES) {
        const order = `o${orders.length}`;
        orders.push(order);
        const ref = await client.start(Shipment, order, { order });
        signals.push(
          sleep(random() * 3000).then(async () => {
            await client.signal(ref, 'shipped', `T-${order}`);
          }),
        );
        await sleep(random() * 1000);
      }
      await Promise.all(signals);
    })();

    // Two kills in three are aimed at a step in the middle of a turn, the third at random.
    let kills = 0;
    const short = () =>
      workers.landed('between receive and commit') < MID_TURN_KILLS ||
      workers.landed('between commit and ack') < MID_TURN_KILLS;
    // A kill aimed at a step may land a little later than aimed: go on until both mid-turn
    // phases have their share, up to twice the kills.
    while (kills < KILLS || (short() && kills < 2 * KILLS)) {
      const restarted = await workers.killOne(kills, random);
      if (!restarted) continue;
      kills++;
      // Workers start slowly on a loaded machine: let the new one get to work before the next kill.
      await workers.ready(restarted);
      await sleep(random() * 500);
    }
    killing = false;
    console.log(
      `workflow crash test: where the ${kills} kills struck: ${workers.describePhases()}`,
    );
    await sending;

    // Quiescence: every instance ended, the queue is empty, the outboxes drained.
    const instance = async (order: string) =>
      (await store.load(Shipment.ref(order).id))?.state as WorkflowState | undefined;
    const deadline = Date.now() + 120_000;
    for (;;) {
      const states = await Promise.all(orders.map(instance));
      const inQueue = await queueDepth(sqs, queueUrl);
      const outboxes = await store.listOutboxActors(Date.now() + 1);
      const ended = states.every((s) => s?.status === 'completed' || s?.status === 'failed');
      if (ended && inQueue === 0 && outboxes.length === 0) break;
      if (Date.now() > deadline) {
        const statuses = states.map((s) => s?.status).join(', ');
        throw new Error(`not quiet: ${inQueue} in queue, statuses ${statuses}`);
      }
      await sleep(500);
    }
    sweeping = false;
    await sweeps;
    workers.killAll();

    const runs = readFileSync(stepLog, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as StepRun);
    const done = (await store.load(Books.ref('done').id))?.state as { entries: string[] };
    let reruns = 0;
    for (const order of orders) {
      const ref = Shipment.ref(order);
      expect(await client.result(ref), order).toEqual({
        label: `L-${order}`,
        tracking: `T-${order}`,
        receipt: `R-${order}-T-${order}`,
      });
      const books = (await store.load(Books.ref(order).id))?.state as { entries: string[] };
      expect(books.entries, order).toEqual([`charge:${order}`]);
      expect(
        done.entries.filter((e) => e === order),
        order,
      ).toHaveLength(1);
      for (const step of ['label', 'receipt']) {
        const keys = runs.filter((r) => r.instance === order && r.step === step).map((r) => r.key);
        expect(keys.length, `${order} ${step}`).toBeGreaterThanOrEqual(1);
        expect(new Set(keys).size, `${order} ${step}`).toBe(1);
        reruns += keys.length - 1;
      }
    }
    expect(done.entries).toHaveLength(orders.length);
    expect(await queueDepth(sqs, deadLetterQueueUrl)).toBe(0);
    expect(await store.listDeadLetters()).toEqual([]);
    console.log(
      `workflow crash test: ${kills} kills survived; ${orders.length} instances completed once, ${runs.length} outside step runs (${reruns} repeated with their key)`,
    );
    expect(workers.landed('between receive and commit')).toBeGreaterThanOrEqual(MID_TURN_KILLS);
    expect(workers.landed('between commit and ack')).toBeGreaterThanOrEqual(MID_TURN_KILLS);
  });
});
