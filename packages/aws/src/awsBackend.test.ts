/**
 * The turn engine end to end on DynamoDB Local + ElasticMQ: workers from @baton/core over
 * DynamoStore and SqsQueue, running a small bank.
 */
import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { DeleteQueueCommand } from '@aws-sdk/client-sqs';
import { actor, SYSTEM, silentLogger, TerminalError } from '@baton/core';
import { ingressMessageId } from '@baton/core/adapter';
import { Client } from '@baton/core/client';
import { createEngine, Sweeper, storedOutbox, Worker } from '@baton/core/engine';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import * as z from 'zod';
import { createAwsClients } from './createAwsClients.ts';
import { createTable } from './dynamodb/createTable.ts';
import { DynamoStore } from './dynamodb/DynamoStore.ts';
import { createFifoQueue } from './sqs/createFifoQueue.ts';
import { SqsQueue } from './sqs/SqsQueue.ts';

const Account = actor({
  name: 'account',
  state: z.object({ balance: z.number(), applied: z.array(z.string()) }),
  initial: () => ({ balance: 0, applied: [] as string[] }),
  handlers: {
    deposit: {
      payload: z.object({ id: z.string(), amount: z.number().int().positive() }),
      handle: (ctx, { id, amount }) => {
        ctx.state.balance += amount;
        ctx.state.applied.push(id);
        return ctx.state.balance;
      },
    },
    transfer: {
      payload: z.object({ id: z.string(), to: z.string(), amount: z.number().int().positive() }),
      handle: (ctx, { id, to, amount }) => {
        if (ctx.state.balance < amount) throw new TerminalError(`insufficient funds for ${id}`);
        ctx.state.balance -= amount;
        ctx.state.applied.push(`${id}:out`);
        ctx.send(Account.ref(to), 'credit', { id, amount });
      },
    },
    credit: {
      payload: z.object({ id: z.string(), amount: z.number().int().positive() }),
      handle: (ctx, { id, amount }) => {
        ctx.state.balance += amount;
        ctx.state.applied.push(`${id}:in`);
      },
    },
    balance: {
      payload: z.object({}),
      handle: (ctx) => ctx.state.balance,
    },
  },
});

const KEYS = ['alice', 'bob', 'carol'];
const { dynamodb, sqs } = createAwsClients({
  dynamodbEndpoint: inject('dynamodbEndpoint'),
  sqsEndpoint: inject('sqsEndpoint'),
});
const name = `baton-e2e-${randomUUID().slice(0, 8)}`;
let store: DynamoStore;
let queue: SqsQueue;
let urls: string[] = [];

beforeAll(async () => {
  const [, made] = await Promise.all([
    createTable(dynamodb, name),
    createFifoQueue(sqs, name, { maxReceives: 10 }),
  ]);
  urls = [made.queueUrl, made.deadLetterQueueUrl];
  store = new DynamoStore({ client: dynamodb, tableName: name });
  queue = new SqsQueue({ client: sqs, queueUrl: made.queueUrl });
});

afterAll(async () => {
  await Promise.all([
    dynamodb.send(new DeleteTableCommand({ TableName: name })),
    ...urls.map((QueueUrl) => sqs.send(new DeleteQueueCommand({ QueueUrl }))),
  ]);
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function engine(visibilityTimeoutMs = 10_000) {
  return createEngine({
    actors: [Account],
    store,
    queue,
    logger: silentLogger,
    visibilityTimeoutMs,
  });
}

/**
 * Polls with all `workers` until the queue is empty: every turn was drained, since a worker
 * acks only after its drain.
 */
async function runUntilIdle(workers: readonly Worker[], deadlineMs = 40_000): Promise<number> {
  const deadline = Date.now() + deadlineMs;
  let polls = 0;
  for (let idle = 0; idle < 2; ) {
    if (Date.now() > deadline) throw new Error('the bank did not settle in time');
    const received = await Promise.all(workers.map((worker) => worker.poll()));
    polls++;
    if (received.some((n) => n > 0)) {
      idle = 0;
      continue;
    }
    const counts = await queue.approximateCounts();
    if (counts.visible + counts.inFlight > 0) {
      idle = 0;
      await sleep(100);
    } else {
      idle++;
    }
  }
  return polls;
}

async function state(key: string) {
  return (await store.load(`account/${key}`))?.state as { balance: number; applied: string[] };
}

describe('the engine on DynamoDB Local and ElasticMQ', () => {
  it('runs deposits and transfers exactly once, leaving no outbox and an empty queue', async () => {
    const client = new Client({ actors: [Account], store, queue, askTimeoutMs: 30_000 }).asSystem();
    const workers = [new Worker(engine()), new Worker(engine())];
    for (const key of KEYS) {
      const id = `dep-${key}`;
      await client.send(Account.ref(key), 'deposit', { id, amount: 100 }, { idempotencyKey: id });
    }
    // A client retry with the same key: SQS drops the copy.
    await client.send(
      Account.ref('alice'),
      'deposit',
      { id: 'dep-alice', amount: 100 },
      {
        idempotencyKey: 'dep-alice',
      },
    );
    const transfers: { id: string; from: string; to: string; amount: number }[] = [];
    for (let i = 0; i < 18; i++) {
      const from = KEYS[i % 3]!;
      const to = KEYS[(i + 1 + (i % 2)) % 3]!;
      transfers.push({ id: `t${i}`, from, to, amount: 10 + ((i * 37) % 90) });
    }
    for (const { id, from, to, amount } of transfers) {
      await client.send(Account.ref(from), 'transfer', { id, to, amount });
    }
    await runUntilIdle(workers);

    const states = await Promise.all(KEYS.map(state));
    const total = states.reduce((sum, s) => sum + s.balance, 0);
    expect(total).toBe(300);
    const applied = states.flatMap((s) => s.applied);
    expect(new Set(applied).size).toBe(applied.length);
    expect(applied.filter((id) => id.startsWith('dep-')).sort()).toEqual(
      KEYS.map((k) => `dep-${k}`).sort(),
    );
    for (const { id } of transfers) {
      // Each transfer either moved money both ways once, or was refused before moving any.
      const sides = applied.filter((a) => a.startsWith(`${id}:`)).sort();
      expect([[], [`${id}:in`, `${id}:out`]]).toContainEqual(sides);
    }
    expect(applied.some((a) => a.endsWith(':out'))).toBe(true);
    expect(await client.outcome(ingressMessageId('account/bob', 'dep-bob', SYSTEM))).toEqual({
      ok: true,
      value: expect.any(Number),
    });
    // The records still hold their last turns' sends, drained; the sweeper retires them, and
    // the queue drops its copies as duplicates.
    const held = await Promise.all(KEYS.map((key) => storedOutbox(store, `account/${key}`)));
    expect(held.flat().length).toBeGreaterThan(0);
    await new Sweeper(engine(), { minAgeMs: 0 }).sweep();
    expect(await store.listOutboxActors(Number.MAX_SAFE_INTEGER)).toEqual([]);
    for (const key of KEYS) expect(await storedOutbox(store, `account/${key}`)).toEqual([]);
    expect(await queue.approximateCounts()).toEqual({ visible: 0, inFlight: 0 });
  });

  it('answers an ask through the stored outcome while workers poll', async () => {
    const client = new Client({ actors: [Account], store, queue, askTimeoutMs: 30_000 }).asSystem();
    const worker = new Worker(engine());
    const before = (await state('carol')).balance;
    // The ask claims its key before it sends: the workers may find the queue empty at first.
    let settled = false;
    const asked = client
      .ask(Account.ref('carol'), 'balance', {}, { idempotencyKey: randomUUID() })
      .finally(() => {
        settled = true;
      });
    while (!settled) await runUntilIdle([worker]);
    expect(await asked).toBe(before);
  });

  it('skips a message redelivered after its turn committed, as after a crash before the ack', async () => {
    const client = new Client({ actors: [Account], store, queue }).asSystem();
    const crashing = new Worker(engine(1_000));
    await client.send(Account.ref('bob'), 'deposit', { id: 'dep-crash', amount: 7 });
    const before = await state('bob');
    const received = await queue.receive({ max: 10, visibilityTimeoutMs: 1_000 });
    expect(received).toHaveLength(1);
    // Commit and drain, then "crash": no ack, so the message comes back after its timeout.
    const result = await crashing.process(received);
    expect(result.done).toHaveLength(1);
    await sleep(1_300);
    const again = await queue.receive({ max: 10, visibilityTimeoutMs: 10_000 });
    expect(again.map((m) => [m.seq, m.receiveCount])).toEqual([[received[0]!.seq, 2]]);
    const fresh = new Worker(engine());
    expect((await fresh.process(again)).done).toHaveLength(1);
    await queue.ack(again.map((m) => m.receipt));
    const after = await state('bob');
    expect(after.balance).toBe(before.balance + 7);
    expect(after.applied.filter((id) => id === 'dep-crash')).toHaveLength(1);
  });
});
