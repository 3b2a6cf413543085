/**
 * A keyed retry on a busy actor, on DynamoDB Local and ElasticMQ: what one request costs, and
 * that it is still answered. A client reads an outcome through the actor's newest pages only
 * (`OUTCOME_READ_MAX_PAGES`); a retry days after its send, on an actor that wrote 100 pages
 * since, finds nothing there, so its copy is enqueued again; the actor skips the copy and keeps
 * the outcome apart (the engine's outcomeKeptApart.ts), where the next read finds it at once.
 */
import { randomUUID } from 'node:crypto';
import { DeleteTableCommand, type QueryCommandOutput } from '@aws-sdk/client-dynamodb';
import { DeleteQueueCommand } from '@aws-sdk/client-sqs';
import { actor, silentLogger } from '@baton/core';
import type { ActorRecord, PagedOutcome } from '@baton/core/adapter';
import { Client, OUTCOME_READ_MAX_PAGES } from '@baton/core/client';
import { Worker } from '@baton/core/engine';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import * as z from 'zod';
import { createAwsClients } from './createAwsClients.ts';
import { createTable } from './dynamodb/createTable.ts';
import { DynamoStore } from './dynamodb/DynamoStore.ts';
import { createFifoQueue } from './sqs/createFifoQueue.ts';
import { SqsQueue } from './sqs/SqsQueue.ts';

const Counter = actor({
  name: 'counter',
  state: z.object({ n: z.number() }),
  initial: () => ({ n: 0 }),
  handlers: {
    add: {
      public: true,
      payload: z.object({ by: z.number() }),
      handle: (ctx, { by }) => {
        ctx.state.n += by;
        return ctx.state.n;
      },
    },
  },
});

const { dynamodb, sqs } = createAwsClients({
  dynamodbEndpoint: inject('dynamodbEndpoint'),
  sqsEndpoint: inject('sqsEndpoint'),
});
const name = `baton-retry-${randomUUID().slice(0, 8)}`;
const DAY = 24 * 60 * 60 * 1000;
const T0 = 1_800_000_000_000;
let now = T0;
const clock = { now: () => now };
const store = new DynamoStore({ client: dynamodb, tableName: name, clock });
let queue: SqsQueue;
let urls: string[] = [];

/** Outcome page items the store's Queries return (each a page read, of up to 400 KB). */
let pageReads = 0;
dynamodb.middlewareStack.add(
  (next, context) => async (args) => {
    const result = await next(args);
    if (context.commandName === 'QueryCommand') {
      const { Items = [] } = result.output as QueryCommandOutput;
      pageReads += Items.filter((item) => item.sk?.S?.startsWith('P#')).length;
    }
    return result;
  },
  { step: 'initialize', name: 'pageReads' },
);

beforeAll(async () => {
  const [, made] = await Promise.all([createTable(dynamodb, name), createFifoQueue(sqs, name)]);
  urls = [made.queueUrl, made.deadLetterQueueUrl];
  queue = new SqsQueue({ client: sqs, queueUrl: made.queueUrl });
});
afterAll(async () => {
  await Promise.all([
    dynamodb.send(new DeleteTableCommand({ TableName: name })),
    ...urls.map((QueueUrl) => sqs.send(new DeleteQueueCommand({ QueueUrl }))),
  ]);
});

/** Polls until the queue is empty; returns how many messages the worker took. */
async function runUntilIdle(worker: Worker): Promise<number> {
  let taken = 0;
  for (let idle = 0; idle < 2; ) {
    const received = await worker.poll();
    taken += received;
    const { visible, inFlight } = await queue.approximateCounts();
    idle = received === 0 && visible + inFlight === 0 ? idle + 1 : 0;
  }
  return taken;
}

/** Polls until `asked` settles (its message may be enqueued after the poll begins). */
async function answer<T>(worker: Worker, asked: Promise<T>): Promise<T> {
  let settled = false;
  const done = asked.finally(() => {
    settled = true;
  });
  while (!settled) await worker.poll();
  return done;
}

/** `count` closed pages of others' outcomes after the actor's open one, as its turns close them. */
async function busyActor(actorId: string, count: number): Promise<void> {
  let record = (await store.load(actorId)) as ActorRecord;
  for (let i = 0; i < count; i++) {
    const state = record.outcomePage!;
    const sentAt = now + i;
    const records: PagedOutcome[] = [
      {
        key: `${actorId}:other-${i}`,
        actorId,
        outcome: { ok: true, value: null },
        expiresAt: sentAt + 14 * DAY,
        sentAt,
      },
    ];
    const next: ActorRecord = {
      ...record,
      ver: record.ver + 1,
      outcomePage: { page: state.page + 1, bytes: 0, closedSentAt: sentAt },
    };
    await store.commit({
      expectedVer: record.ver,
      record: next,
      outbox: [],
      idempotency: [],
      outcomes: { page: state.page, sentAt, records, begins: state.bytes === 0 },
    });
    record = next;
  }
}

describe('a keyed retry on a busy actor (DynamoDB)', () => {
  it('reads no more than a bound of pages, and is answered by the actor when its outcome lies further back', async () => {
    const ports = { actors: [Counter], store, queue, clock };
    const worker = new Worker({ ...ports, logger: silentLogger, visibilityTimeoutMs: 5_000 });
    const client = new Client({ ...ports, askTimeoutMs: 20_000 });
    const to = Counter.ref(`c-${randomUUID().slice(0, 8)}`);
    const key = { idempotencyKey: 'k' };

    const first = await client.send(to, 'add', { by: 1 }, key);
    expect(await runUntilIdle(worker)).toBe(1);
    now += 1;
    await busyActor(to.id, 100);

    // Days later, the same send again: the read stops one page past its bound, finds nothing
    // there, and the copy is enqueued again…
    now = T0 + 3 * DAY;
    pageReads = 0;
    const again = await client.send(to, 'add', { by: 1 }, key);
    expect(again).toEqual(first);
    expect(pageReads).toBe(OUTCOME_READ_MAX_PAGES + 1);
    expect((await queue.approximateCounts()).visible).toBe(1);

    // …which the actor skips, keeping the outcome apart: applied once.
    expect(await runUntilIdle(worker)).toBe(1);
    expect((await store.load(to.id))?.state).toEqual({ n: 1 });

    // The next retries are answered at once, and nothing more is enqueued.
    pageReads = 0;
    expect(await client.send(to, 'add', { by: 1 }, key)).toEqual(first);
    expect(await client.ask(to, 'add', { by: 1 }, key)).toBe(1);
    expect((await queue.approximateCounts()).visible).toBe(0);
    // Only the pages read alongside the outcome's item: 8 at most for each read (the ask's
    // first poll may read too), where one read would go through 65 before.
    expect(pageReads).toBeLessThanOrEqual(3 * 8);
    expect(await client.outcome(first.messageId, { sentAt: first.sentAt })).toEqual({
      ok: true,
      value: 1,
    });
  });

  it('answers an ask retried past the bound with its first outcome, from the actor', async () => {
    const ports = { actors: [Counter], store, queue, clock };
    const worker = new Worker({ ...ports, logger: silentLogger, visibilityTimeoutMs: 5_000 });
    const client = new Client({ ...ports, askTimeoutMs: 20_000 });
    const to = Counter.ref(`c-${randomUUID().slice(0, 8)}`);
    const key = { idempotencyKey: 'a' };
    now = T0;

    expect(await answer(worker, client.ask(to, 'add', { by: 5 }, key))).toBe(5);
    now += 1;
    await busyActor(to.id, 100);

    now = T0 + 3 * DAY;
    expect(await answer(worker, client.ask(to, 'add', { by: 5 }, key))).toBe(5);
    expect((await store.load(to.id))?.state).toEqual({ n: 5 });
  });
});
