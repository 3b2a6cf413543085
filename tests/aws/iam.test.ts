/**
 * The IAM actions the turn pipeline's parts declare (`BATON_IAM.worker`, `.drain`, `.sweeper`,
 * `.ingress`) are exactly the ones they call: every part runs against DynamoDB Local and ElasticMQ
 * through SDK clients of its own that record each call as the IAM action and resource it needs.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { createAwsClients, createFifoQueue, createTable, DynamoStore, SqsQueue } from '@baton/aws';
import { actor, Client, RetryableError, silentLogger } from '@baton/core';
import { INGRESS } from '@baton/core/adapter';
import {
  createEngine,
  drainOutbox,
  redriveDeadLetter,
  runTurn,
  Sweeper,
  Worker,
} from '@baton/core/engine';
import { describe, expect, inject, it } from 'vitest';
import { z } from 'zod';
import { declared, record, sorted } from './fixtures/iamRecording.ts';

const attempts = new Map<string, number>();
let cured = false;

const Node = actor({
  name: 'node',
  state: z.object({ n: z.number() }),
  initial: () => ({ n: 0 }),
  handlers: {
    relay: {
      payload: z.object({ to: z.array(z.string()) }),
      handle: (ctx, { to }) => {
        for (const key of to) ctx.send(Node.ref(key), 'bump', {});
      },
    },
    bump: {
      payload: z.object({}),
      handle: (ctx) => ++ctx.state.n,
    },
    flaky: {
      payload: z.object({}),
      handle: (ctx) => {
        const attempt = (attempts.get(ctx.message.id) ?? 0) + 1;
        attempts.set(ctx.message.id, attempt);
        if (attempt === 1) throw new RetryableError('fails once', { retryAfterMs: 0 });
      },
    },
    poison: {
      payload: z.object({}),
      handle: () => {
        if (!cured) throw new Error('fails until cured');
      },
    },
  },
});

describe('the IAM actions each part declares', () => {
  it('are exactly those the worker, the ingress, the drain and the sweeper call', async () => {
    const endpoints = {
      dynamodbEndpoint: inject('dynamodbEndpoint'),
      sqsEndpoint: inject('sqsEndpoint'),
    };
    const setup = createAwsClients(endpoints);
    const name = `iam-${randomUUID().slice(0, 8)}`;
    await createTable(setup.dynamodb, name);
    const { queueUrl } = await createFifoQueue(setup.sqs, name, { visibilityTimeoutMs: 1_000 });
    const ports = (dynamodb: DynamoDBClient, sqs: SQSClient) => ({
      store: new DynamoStore({ client: dynamodb, tableName: name }),
      queue: new SqsQueue({ client: sqs, queueUrl }),
    });
    const part = () => {
      const calls = new Set<string>();
      // Clients of its own (createAwsClients shares one pair per endpoint).
      const dynamodb = new DynamoDBClient({ endpoint: endpoints.dynamodbEndpoint });
      const sqs = new SQSClient({ endpoint: endpoints.sqsEndpoint });
      record(dynamodb, calls);
      record(sqs, calls);
      return { calls, ...ports(dynamodb, sqs) };
    };
    const operator = ports(setup.dynamodb, setup.sqs);
    const actors = [Node];
    const [ingress, worker, drain, sweeper] = [part(), part(), part(), part()];
    const workerEngine = createEngine({
      actors,
      ...worker,
      logger: silentLogger,
      visibilityTimeoutMs: 1_000,
      maxAttempts: 2,
      recordPeers: 1, // so marks move out and are read back
    });
    const work = new Worker(workerEngine);
    const runWorker = async () => {
      for (let idle = 0; idle < 3; ) {
        if ((await work.poll()) > 0) idle = 0;
        else {
          const { visible, inFlight } = await operator.queue.approximateCounts();
          if (visible + inFlight === 0) idle++;
          else await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
    };

    // Ingress: sends, an ask, an outcome.
    const client = new Client({ actors, ...ingress });
    await client.send(Node.ref('hub'), 'relay', { to: ['a', 'b'] }, { idempotencyKey: 'r1' });
    await client.send(Node.ref('x'), 'relay', { to: ['a'] });
    await client.send(Node.ref('f'), 'flaky', {});
    const { messageId } = await client.send(Node.ref('p'), 'poison', {});
    const asked = client.ask(Node.ref('hub'), 'relay', { to: ['a'] }, { timeoutMs: 20_000 });
    await runWorker();
    await asked;
    expect(await client.outcome(messageId)).toMatchObject({ ok: false });

    // The operator redrives the dead letter once it is cured; the worker applies it.
    cured = true;
    await redriveDeadLetter(operator.store, operator.queue, 'node/p', messageId);
    await runWorker();

    // Outboxes left undrained, for the drain handler's and the sweeper's code.
    const committing = createEngine({ actors, ...operator, logger: silentLogger });
    const relay = (key: string) => ({
      envelope: {
        id: `ingress:${key}`,
        from: INGRESS,
        seq: 0,
        to: `node/${key}`,
        name: 'relay',
        payload: { to: ['a'] },
        sentAt: 0,
      },
      queueSeq: '1',
    });
    await runTurn(committing, 'node/y', [relay('y')]);
    await runTurn(committing, 'node/z', [relay('z')]);
    expect(await drainOutbox(drain.store, drain.queue, 'node/y')).toBe(1);
    const swept = await new Sweeper(createEngine({ actors, ...sweeper, logger: silentLogger }), {
      minAgeMs: 0,
    }).sweep();
    expect(swept.sent).toBe(1);
    await runWorker();
    expect((await operator.store.load('node/a'))?.state).toEqual({ n: 5 });

    expect(sorted(worker.calls)).toEqual(sorted(declared('worker')));
    expect(sorted(ingress.calls)).toEqual(sorted(declared('ingress')));
    expect(sorted(drain.calls)).toEqual(sorted(declared('drain')));
    expect(sorted(sweeper.calls)).toEqual(sorted(declared('sweeper')));
  }, 120_000);
});
