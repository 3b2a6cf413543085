/**
 * The turn pipeline's handlers built from the environment, as a deployed app's functions build
 * them at cold start, run on DynamoDB Local + ElasticMQ: the table and the inbox come from
 * `BATON_TABLE` / `BATON_INBOX_URL`, the clients' endpoints from `BATON_DYNAMODB_ENDPOINT` /
 * `BATON_SQS_ENDPOINT`.
 */
import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { DeleteQueueCommand } from '@aws-sdk/client-sqs';
import { actor, BatonError, defineApp, ErrorCode } from '@baton/core';
import { ingressMessageId } from '@baton/core/adapter';
import { SWEEP_BEHIND_LOG } from '@baton/core/engine';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import * as z from 'zod';
import { createAwsClients } from '../createAwsClients.ts';
import { createTable } from '../dynamodb/createTable.ts';
import { DynamoStore } from '../dynamodb/DynamoStore.ts';
import { capturedStdout } from '../fixtures/capturedStdout.ts';
import { restoreEnvironment } from '../fixtures/environment.ts';
import { LocalSqsEventSource } from '../local/LocalSqsEventSource.ts';
import { createFifoQueue } from '../sqs/createFifoQueue.ts';
import { SqsQueue } from '../sqs/SqsQueue.ts';
import {
  ingressFromEnvironment,
  portsFromEnvironment,
  sweeperFromEnvironment,
  workerFromEnvironment,
} from './fromEnvironment.ts';

const Counter = actor({
  name: 'counter',
  state: z.object({ count: z.number(), seen: z.array(z.number()) }),
  initial: () => ({ count: 0, seen: [] as number[] }),
  handlers: {
    add: {
      public: true,
      payload: z.object({ by: z.number().int() }),
      handle: (ctx, { by }) => {
        ctx.state.count += by;
        ctx.state.seen.push(by);
        return ctx.state.count;
      },
    },
  },
});

const app = defineApp({ actors: [Counter] });

function post(path: string, body: unknown): APIGatewayProxyEventV2 {
  return {
    rawPath: path,
    body: JSON.stringify(body),
    isBase64Encoded: false,
    headers: { 'content-type': 'application/json' },
    requestContext: { http: { method: 'POST' } },
  } as unknown as APIGatewayProxyEventV2;
}

describe('the Lambda handlers built from the environment, on DynamoDB Local and ElasticMQ', () => {
  const dynamodbEndpoint = inject('dynamodbEndpoint');
  const sqsEndpoint = inject('sqsEndpoint');
  const { dynamodb, sqs } = createAwsClients({ dynamodbEndpoint, sqsEndpoint });
  const tableName = `from-env-${randomUUID().slice(0, 8)}`;
  let queueUrl: string;
  let urls: string[] = [];
  /** The table and the inbox, seen from the test's side. */
  let store: DynamoStore;
  let queue: SqsQueue;

  beforeAll(async () => {
    const [, made] = await Promise.all([
      createTable(dynamodb, tableName),
      createFifoQueue(sqs, tableName, { visibilityTimeoutMs: 2000 }),
    ]);
    queueUrl = made.queueUrl;
    urls = [made.queueUrl, made.deadLetterQueueUrl];
    store = new DynamoStore({ client: dynamodb, tableName });
    queue = new SqsQueue({ client: sqs, queueUrl });
  });

  beforeEach(() => {
    process.env.BATON_TABLE = tableName;
    process.env.BATON_INBOX_URL = queueUrl;
    process.env.BATON_DYNAMODB_ENDPOINT = dynamodbEndpoint;
    process.env.BATON_SQS_ENDPOINT = sqsEndpoint;
  });

  afterEach(restoreEnvironment);

  afterAll(async () => {
    restoreEnvironment();
    await Promise.all([
      dynamodb.send(new DeleteTableCommand({ TableName: tableName })),
      ...urls.map((QueueUrl) => sqs.send(new DeleteQueueCommand({ QueueUrl }))),
    ]);
  });

  const counter = async (key: string) => (await store.load(`counter/${key}`))?.state;

  /**
   * The worker from the environment behind Lambda's SQS event source, run until `done()`; returns
   * the EMF lines it wrote to stdout (its metrics are on by default), kept off the test log.
   */
  async function runWorkerUntil(done: () => Promise<boolean>) {
    const handler = workerFromEnvironment(app);
    const emf: { MessagesApplied?: number | number[] }[] = [];
    const source = new LocalSqsEventSource({
      client: sqs,
      queueUrl,
      handler: async (event) => {
        const { result, lines } = await capturedStdout(() => handler(event));
        emf.push(...lines.map((line) => JSON.parse(line)));
        return result;
      },
      visibilityTimeoutMs: 2000,
      waitSeconds: 0,
    });
    for (let i = 0; i < 60; i++) {
      if (await done()) return emf;
      if ((await source.pollOnce()) === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('the worker did not get there in time');
  }

  const inboxDepth = async () => {
    const { visible, inFlight } = await queue.approximateCounts();
    return visible + inFlight;
  };

  it('portsFromEnvironment builds the store and the inbox the environment names', async () => {
    const ports = portsFromEnvironment();
    await ports.queue.send([{ group: 'ports', dedupeId: randomUUID(), body: 'through the env' }]);
    const [message, ...others] = await queue.receive({ max: 10, visibilityTimeoutMs: 1000 });
    expect(others).toEqual([]);
    expect(message?.body).toBe('through the env');
    await queue.ack([message!.receipt]);

    const record = { id: 'counter/ports', ver: 1, state: { count: 1, seen: [1] } };
    await ports.store.commit({
      expectedVer: 0,
      record: { ...record, inboxOffset: '0', marks: {}, sentSeq: 0 },
      outbox: [],
      idempotency: [],
    });
    expect(await store.load('counter/ports')).toMatchObject(record);
  });

  it('spreads the outbox index over BATON_OUTBOX_SHARDS keys, all of which a store built the same way lists', async () => {
    process.env.BATON_OUTBOX_SHARDS = '16';
    const ports = portsFromEnvironment();
    const prefix = `shards-${randomUUID().slice(0, 6)}-`;
    const ids = Array.from({ length: 40 }, (_, i) => `counter/${prefix}${i}`);
    // Sent "next week": past what the other tests' sweeps look at, so they are left alone.
    const createdAt = Date.now() + 7 * 24 * 3600_000;
    for (const id of ids) {
      const outbox = [{ actorId: id, seq: 1, createdAt, envelopes: [] }];
      await ports.store.commit({
        expectedVer: 0,
        record: { id, ver: 1, state: {}, inboxOffset: '0', marks: {}, sentSeq: 1, outbox },
        outbox: [],
        idempotency: [],
      });
    }
    const listed = async (of: DynamoStore) =>
      (await of.listOutboxActors(createdAt + 3600_000)).filter((id) => id.includes(prefix));
    expect((await listed(portsFromEnvironment().store)).sort()).toEqual([...ids].sort());
    // The default 8 keys miss the actors filed under the other 8.
    expect((await listed(store)).length).toBeLessThan(ids.length);

    process.env.BATON_OUTBOX_SHARDS = 'sixteen';
    const error = (() => {
      try {
        portsFromEnvironment();
      } catch (thrown) {
        return thrown as BatonError;
      }
    })();
    expect(error?.code).toBe(ErrorCode.INVALID_ARGUMENT);
    expect(error?.message).toMatch(/BATON_OUTBOX_SHARDS must be a whole number.*"sixteen"/);
  });

  it('accepts sends through the ingress (202) and commits them with the worker', async () => {
    const ingress = ingressFromEnvironment(app);
    const first = await ingress(
      post('/send', { to: 'counter/c1', name: 'add', payload: { by: 2 }, idempotencyKey: 'a' }),
    );
    expect(first.statusCode).toBe(202);
    expect(JSON.parse(first.body)).toEqual({
      messageId: ingressMessageId('counter/c1', 'a'),
      sentAt: expect.any(Number),
    });
    const second = await ingress(
      post('/send', { to: 'counter/c1', name: 'add', payload: { by: 3 }, idempotencyKey: 'b' }),
    );
    expect(second.statusCode).toBe(202);
    // Nothing is committed before a worker runs.
    expect(await counter('c1')).toBeUndefined();

    const emf = await runWorkerUntil(async () => (await inboxDepth()) === 0);
    expect(await counter('c1')).toEqual({ count: 5, seen: [2, 3] });
    // Its turns' metrics went out as EMF lines: the two messages applied.
    const applied = emf.flatMap((line) => [line.MessagesApplied ?? []].flat());
    expect(applied.reduce((n, v) => n + v, 0)).toBe(2);
  });

  it('refuses, through the ingress, a send the app has no public handler for', async () => {
    const response = await ingressFromEnvironment(app)(
      post('/send', { to: 'counter/c1', name: 'steal', payload: {}, idempotencyKey: 'x' }),
    );
    expect(response.statusCode).toBe(403);
    expect(JSON.parse(response.body).error.code).toBe('FORBIDDEN');
  });

  /** Commits, as a turn of `counter/<from>` would, one send to `counter/<to>` left in its outbox. */
  async function commitOutbox(from: string, to: string, by: number, createdAt: number) {
    await store.commit({
      expectedVer: 0,
      record: {
        id: `counter/${from}`,
        ver: 1,
        state: { count: 0, seen: [] },
        inboxOffset: '0',
        marks: {},
        sentSeq: 1,
        channels: { [`counter/${to}`]: { seq: 1, at: createdAt } },
      },
      outbox: [
        {
          actorId: `counter/${from}`,
          seq: 1,
          createdAt,
          envelopes: [
            {
              id: `counter/${from}:1`,
              from: `counter/${from}`,
              seq: 1,
              prev: 0,
              to: `counter/${to}`,
              name: 'add',
              payload: { by },
              sentAt: createdAt,
            },
          ],
        },
      ],
      idempotency: [],
    });
  }

  it('sweeperFromEnvironment sweeps the table into the inbox and resolves with a result', async () => {
    const sweeper = sweeperFromEnvironment(app);
    /** The sweeper's log lines, kept off the test log. */
    const logged: unknown[] = [];
    const NOTHING_SWEPT = {
      drained: 0,
      sent: 0,
      failed: 0,
      timersFired: 0,
      timersArmed: 0,
      left: 0,
      lagMs: 0,
      deadLetters: 0,
    };
    const sweep = async () => {
      const { result, lines } = await capturedStdout(sweeper);
      logged.push(...lines.map((line) => JSON.parse(line)));
      return result;
    };
    expect(await sweep()).toEqual(NOTHING_SWEPT);

    // An outbox left behind two minutes ago (past the sweeper's default minimum age).
    await commitOutbox('src1', 'swept', 4, Date.now() - 120_000);
    const swept = await sweep();
    expect(swept).toMatchObject({ drained: 1, sent: 1, failed: 0, timersFired: 0 });
    // Its lag: the send waited at least the two minutes since its commit.
    expect(swept.lagMs).toBeGreaterThanOrEqual(120_000);
    expect(await store.readOutbox('counter/src1')).toEqual([]);
    expect(await sweep()).toEqual(NOTHING_SWEPT);
    // Each sweep logged its result.
    expect(logged).toEqual([
      expect.objectContaining({ message: 'sweep done', drained: 0, sent: 0 }),
      expect.objectContaining({ message: 'sweep done', drained: 1, sent: 1 }),
      expect.objectContaining({ message: 'sweep done', drained: 0, sent: 0 }),
    ]);

    await runWorkerUntil(async () => (await inboxDepth()) === 0);
    expect(await counter('swept')).toEqual({ count: 4, seen: [4] });
  });

  it('sweeperFromEnvironment leaves the outboxes to the next sweep when its invocation is short of time', async () => {
    await commitOutbox('src3', 'late', 2, Date.now() - 120_000);
    const sweeper = sweeperFromEnvironment(app);
    // Ten seconds left: the margin the sweep keeps for its last calls, none to drain.
    const short = { getRemainingTimeInMillis: () => 10_000 };
    const first = await capturedStdout(() => sweeper(undefined, short));
    expect(first.result).toMatchObject({ drained: 0, left: 1 });
    expect(first.lines.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ level: 'warn', message: SWEEP_BEHIND_LOG, left: 1, budgetMs: 0 }),
      expect.objectContaining({ message: 'sweep done', left: 1 }),
    ]);
    expect(await store.readOutbox('counter/src3')).toHaveLength(1);

    const ample = { getRemainingTimeInMillis: () => 300_000 };
    const second = await capturedStdout(() => sweeper(undefined, ample));
    expect(second.result).toMatchObject({ drained: 1, sent: 1, left: 0 });
    expect(await store.readOutbox('counter/src3')).toEqual([]);
    await runWorkerUntil(async () => (await inboxDepth()) === 0);
    expect(await counter('late')).toEqual({ count: 2, seen: [2] });
  });

  it.each([
    ['workerFromEnvironment', workerFromEnvironment],
    ['ingressFromEnvironment', ingressFromEnvironment],
    ['sweeperFromEnvironment', sweeperFromEnvironment],
  ])(
    '%s throws INVALID_ARGUMENT naming BATON_INBOX_URL at build time when it is not set',
    (_name, build) => {
      delete process.env.BATON_INBOX_URL;
      let error: unknown;
      try {
        build(app);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(BatonError);
      expect((error as BatonError).code).toBe(ErrorCode.INVALID_ARGUMENT);
      expect((error as BatonError).message).toMatch(/^missing environment: BATON_INBOX_URL;/);
      expect((error as BatonError).details.missing).toEqual(['BATON_INBOX_URL']);
    },
  );

  it('names both the table and the inbox when neither is set', () => {
    delete process.env.BATON_INBOX_URL;
    process.env.BATON_TABLE = '';
    expect(() => workerFromEnvironment(app)).toThrow(
      expect.objectContaining({
        code: ErrorCode.INVALID_ARGUMENT,
        details: { missing: ['BATON_TABLE', 'BATON_INBOX_URL'] },
      }),
    );
  });
});
