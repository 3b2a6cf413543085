/**
 * The crash test on the real AWS parts: worker processes (the Lambda worker handler behind a
 * local SQS poller) are killed with SIGKILL while a bank workload runs on DynamoDB Local and
 * ElasticMQ, and restarted. After quiescence every invariant of the simulation holds: money
 * conserved, each transfer applied exactly once, per-channel FIFO, outboxes and queues empty.
 *
 * The kills are aimed: a worker reports each step of its turns on stdout (see turnMarkers.ts),
 * and the test kills a worker right after it received a batch, or right after a commit, in
 * turn, with a kill at a random moment every third time. Where each kill struck is read from
 * what the worker wrote before it died, and the test requires enough kills in both mid-turn
 * phases: between receive and commit, and between commit and ack.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createAwsClients, createFifoQueue, createTable, DynamoStore, SqsQueue } from '@baton/aws';
import { ErrorCode, silentLogger } from '@baton/core';
import { seededRandom } from '@baton/core/adapter';
import { Client } from '@baton/core/client';
import { Sweeper } from '@baton/core/engine';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { Account, INITIAL_BALANCE } from '../simulation/bank-model.ts';
import { queueDepth } from './fixtures/queueDepth.ts';
import { bundleWorker, WorkerFleet } from './fixtures/workerFleet.ts';

const KILLS = Number(process.env.BATON_CRASH_KILLS ?? 50);
const WORKERS = 3;
const ACCOUNTS = 4;
const TRANSFERS = 150;
const VISIBILITY_MS = 2000;
/** Kills required in each mid-turn phase (fewer when BATON_CRASH_KILLS is set below 30). */
const MID_TURN_KILLS = Math.min(10, Math.floor(KILLS / 3));
/** How long an aimed kill waits for its step before it strikes at random instead. */
const AIM_MS = 1000;

describe('worker processes killed mid-turn and at random on DynamoDB Local and ElasticMQ', () => {
  let fleet: WorkerFleet | undefined;
  afterAll(() => fleet?.killAll());

  it(`keeps every invariant through ${KILLS} SIGKILLs, at least ${MID_TURN_KILLS} between receive and commit and ${MID_TURN_KILLS} between commit and ack`, {
    timeout: 600_000,
  }, async () => {
    const dynamodbEndpoint = inject('dynamodbEndpoint');
    const sqsEndpoint = inject('sqsEndpoint');
    const { dynamodb, sqs } = createAwsClients({ dynamodbEndpoint, sqsEndpoint });
    const suffix = randomUUID().slice(0, 8);
    const tableName = `crash-${suffix}`;
    await createTable(dynamodb, tableName);
    const { queueUrl, deadLetterQueueUrl } = await createFifoQueue(sqs, `crash-${suffix}`, {
      maxReceives: 1000,
      visibilityTimeoutMs: VISIBILITY_MS,
    });
    const store = new DynamoStore({ client: dynamodb, tableName });
    const queue = new SqsQueue({ client: sqs, queueUrl });
    const client = new Client({ actors: [Account], store, queue }).asSystem();

    const env = {
      ...process.env,
      BATON_DYNAMODB_ENDPOINT: dynamodbEndpoint,
      BATON_SQS_ENDPOINT: sqsEndpoint,
      TABLE_NAME: tableName,
      QUEUE_URL: queueUrl,
      VISIBILITY_MS: String(VISIBILITY_MS),
    };
    const bundle = await bundleWorker(mkdtempSync(join(tmpdir(), 'baton-crash-')));
    const workers = new WorkerFleet({ bundle, env, size: WORKERS, aimMs: AIM_MS });
    fleet = workers;

    // The workload: transfers between accounts, each with its idempotency key, at least
    // TRANSFERS of them and more while the kills go on (an aimed kill needs turns to strike).
    const seed = Number(process.env.BATON_CRASH_SEED ?? 1);
    const workload = seededRandom(seed);
    const random = seededRandom(seed + 1);
    const names = Array.from({ length: ACCOUNTS }, (_, i) => `a${i}`);
    const transfers: { id: string; from: string; to: string; amount: number }[] = [];
    /** Transfer id → the message id its send returned: what `client.outcome` takes. */
    const messageIds = new Map<string, string>();
    const outcome = (t: { id: string }) => client.outcome(messageIds.get(t.id)!);
    let killing = true;
    const sending = (async () => {
      // Up to four times TRANSFERS: each quiet check reads every transfer's outcome.
      for (let i = 0; i < TRANSFERS || (killing && i < 4 * TRANSFERS); i++) {
        const t = {
          id: `t${i}`,
          from: names[Math.floor(workload() * ACCOUNTS)]!,
          to: names[Math.floor(workload() * ACCOUNTS)]!,
          amount: 1 + Math.floor(workload() * 30),
        };
        const { messageId } = await client.send(
          Account.ref(t.from),
          'transfer',
          { id: t.id, to: t.to, amount: t.amount },
          { idempotencyKey: t.id },
        );
        messageIds.set(t.id, messageId);
        transfers.push(t);
        await sleep(workload() * 150);
      }
    })();

    // Two kills in three are aimed at a step in the middle of a turn, the third at random. A
    // kill aimed at a step may land a little later than aimed (on a loaded machine, past it):
    // go on until both mid-turn phases have their share, up to twice the kills.
    const short = () =>
      workers.landed('between receive and commit') < MID_TURN_KILLS ||
      workers.landed('between commit and ack') < MID_TURN_KILLS;
    let kills = 0;
    try {
      while (kills < KILLS || (short() && kills < 2 * KILLS)) {
        if (await workers.killOne(kills, random)) kills++;
      }
    } finally {
      killing = false;
    }
    console.log(`crash test: where the ${kills} kills struck: ${workers.describePhases()}`);
    await sending;

    // Quiescence: every transfer has an outcome, the queue is empty, the outboxes drained.
    const sweeper = new Sweeper(
      { actors: [Account], store, queue, logger: silentLogger },
      { minAgeMs: 0 },
    );
    const deadline = Date.now() + 240_000;
    for (;;) {
      const outcomes = await Promise.all(transfers.map(outcome));
      const inQueue = await queueDepth(sqs, queueUrl);
      await sweeper.sweep();
      const outboxes = await store.listOutboxActors(Date.now() + 1);
      if (outcomes.every((o) => o !== undefined) && inQueue === 0 && outboxes.length === 0) break;
      if (Date.now() > deadline)
        throw new Error(`not quiet: ${inQueue} in queue, outboxes ${outboxes.join(', ')}`);
      await sleep(500);
    }
    workers.killAll();

    const states = await Promise.all(
      names.map(
        async (name) =>
          (await store.load(Account.ref(name).id))?.state as
            | { balance: number; log: string[]; fifoBreaks: string[] }
            | undefined,
      ),
    );
    const balances = states.map((s) => s?.balance ?? INITIAL_BALANCE);
    expect(balances.reduce((a, b) => a + b, 0)).toBe(INITIAL_BALANCE * ACCOUNTS);
    expect(states.flatMap((s) => s?.fifoBreaks ?? [])).toEqual([]);
    const effects = new Map<string, number>();
    for (const s of states) for (const e of s?.log ?? []) effects.set(e, (effects.get(e) ?? 0) + 1);
    let applied = 0;
    for (const t of transfers) {
      const count = (effect: string) => effects.get(`${t.id}:${effect}`) ?? 0;
      const result = await outcome(t);
      if (result?.ok) {
        applied++;
        expect(count('withdraw'), t.id).toBe(1);
        expect(count('deposit') + count('refuse'), t.id).toBe(1);
        expect(count('refund'), t.id).toBe(count('refuse'));
      } else {
        expect(result?.error.code, t.id).toBe(ErrorCode.REJECTED);
        expect(count('withdraw') + count('deposit') + count('refuse') + count('refund'), t.id).toBe(
          0,
        );
      }
    }
    expect([...effects.values()].every((n) => n === 1)).toBe(true);
    expect(await queueDepth(sqs, deadLetterQueueUrl)).toBe(0);
    expect(await store.listDeadLetters()).toEqual([]);
    console.log(
      `crash test: ${kills} kills of running workers survived; ${transfers.length} transfers (${applied} applied, ${transfers.length - applied} rejected), ${effects.size} effects counted once each`,
    );
    expect(workers.landed('between receive and commit')).toBeGreaterThanOrEqual(MID_TURN_KILLS);
    expect(workers.landed('between commit and ack')).toBeGreaterThanOrEqual(MID_TURN_KILLS);
  });
});
