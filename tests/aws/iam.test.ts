/**
 * The IAM actions the turn pipeline's parts declare (`BATON_IAM.worker`, `.sweeper`, `.relay`,
 * `.ingress`) are exactly the ones they call: every part runs against DynamoDB Local and ElasticMQ
 * through SDK clients of its own that record each call as the IAM action and resource it needs.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import {
  createAwsClients,
  createFifoQueue,
  createTable,
  createTimerQueue,
  DynamoStore,
  SqsQueue,
  SqsTimerQueue,
} from '@baton/aws';
import { relayHandler } from '@baton/aws/lambda';
import { actor, RetryableError, silentLogger, workflow } from '@baton/core';
import { INGRESS } from '@baton/core/adapter';
import { Client } from '@baton/core/client';
import {
  createEngine,
  redriveDeadLetter,
  runTurn,
  Sweeper,
  storedOutbox,
  Worker,
} from '@baton/core/engine';
import type { SQSEvent } from 'aws-lambda';
import { describe, expect, inject, it } from 'vitest';
import * as z from 'zod';
import { asDeclared, declared, record } from './fixtures/iamRecording.ts';

const attempts = new Map<string, number>();
let cured = false;

const Node = actor({
  name: 'node',
  state: z.object({ n: z.number() }),
  initial: () => ({ n: 0 }),
  handlers: {
    relay: {
      public: true,
      payload: z.object({ to: z.array(z.string()) }),
      handle: (ctx, { to }) => {
        for (const key of to) ctx.send(Node.ref(key), 'bump', {});
      },
    },
    bump: {
      public: true,
      payload: z.object({}),
      handle: (ctx) => ++ctx.state.n,
    },
    later: {
      public: true,
      payload: z.object({ delayMs: z.number().optional() }),
      handle: (ctx, { delayMs }) => {
        ctx.schedule(delayMs ?? 0, 'bump', {});
      },
    },
    flaky: {
      public: true,
      payload: z.object({}),
      handle: (ctx) => {
        const attempt = (attempts.get(ctx.message.id) ?? 0) + 1;
        attempts.set(ctx.message.id, attempt);
        if (attempt === 1) throw new RetryableError('fails once', { retryAfterMs: 0 });
      },
    },
    poison: {
      public: true,
      payload: z.object({}),
      handle: () => {
        if (!cured) throw new Error('fails until cured');
      },
    },
  },
});

/** A workflow whose instance's status the ingress reads. */
const Nap = workflow({ name: 'nap', input: z.object({}), run: async () => 'rested' });

describe('the IAM actions each part declares', () => {
  it('are exactly those the worker, the ingress, the sweeper and the relay call', async () => {
    const endpoints = {
      dynamodbEndpoint: inject('dynamodbEndpoint'),
      sqsEndpoint: inject('sqsEndpoint'),
    };
    const setup = createAwsClients(endpoints);
    const name = `iam-${randomUUID().slice(0, 8)}`;
    await createTable(setup.dynamodb, name);
    const { queueUrl } = await createFifoQueue(setup.sqs, name, { visibilityTimeoutMs: 1_000 });
    const timerQueueUrl = (await createTimerQueue(setup.sqs, name)).queueUrl;
    const roles = new Map([[timerQueueUrl, 'timerQueue' as const]]);
    const ports = (dynamodb: DynamoDBClient, sqs: SQSClient, maxItemBytes?: number) => ({
      store: new DynamoStore({
        client: dynamodb,
        tableName: name,
        ...(maxItemBytes ? { limits: { maxItemBytes } } : {}),
      }),
      queue: new SqsQueue({ client: sqs, queueUrl }),
      timers: new SqsTimerQueue({ client: sqs, queueUrl: timerQueueUrl }),
    });
    const part = (maxItemBytes?: number) => {
      const calls = new Set<string>();
      // Clients of its own (createAwsClients shares one pair per endpoint).
      const dynamodb = new DynamoDBClient({ endpoint: endpoints.dynamodbEndpoint });
      const sqs = new SQSClient({ endpoint: endpoints.sqsEndpoint });
      record(dynamodb, calls, roles);
      record(sqs, calls, roles);
      return { calls, ...ports(dynamodb, sqs, maxItemBytes) };
    };
    const operator = ports(setup.dynamodb, setup.sqs);
    const actors = [Node, Nap.actor];
    // The worker's items are small, so sends that do not fit in their record go apart.
    const [ingress, worker, sweeper, relay] = [part(), part(1_500), part(), part()];
    const workerEngine = createEngine({
      actors,
      ...worker,
      logger: silentLogger,
      visibilityTimeoutMs: 1_000,
      maxAttempts: 2,
      recordPeers: 1, // so marks move out and are read back
    });
    const work = new Worker(workerEngine);
    const runWorker = async (worker = work) => {
      for (let idle = 0; idle < 3; ) {
        if ((await worker.poll()) > 0) idle = 0;
        else {
          const { visible, inFlight } = await operator.queue.approximateCounts();
          if (visible + inFlight === 0) idle++;
          else await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
    };

    // Ingress: sends, an ask, an outcome.
    const client = new Client({ actors, ...ingress }).asSystem();
    const keyed = await client.send(
      Node.ref('hub'),
      'relay',
      { to: ['a', 'b'] },
      { idempotencyKey: 'r1' },
    );
    await client.send(Node.ref('x'), 'relay', { to: ['a'] });
    const many = Array.from({ length: 12 }, (_, i) => `w${i}`);
    await client.send(Node.ref('w'), 'relay', { to: many }); // too many to fit in its record
    await client.send(Node.ref('f'), 'flaky', {});
    const { messageId } = await client.send(Node.ref('p'), 'poison', {});
    await client.send(Node.ref('t'), 'later', {}); // the worker arms its timer
    // Its message reaches the queue only once the send inside the ask returns: run until answered.
    let settled = false;
    const asked = client
      .ask(Node.ref('hub'), 'relay', { to: ['a'] }, { timeoutMs: 20_000 })
      .finally(() => {
        settled = true;
      });
    while (!settled) await runWorker();
    await asked;
    // Another worker, which did not drain node/w's last turn, reads its items apart back.
    await client.send(Node.ref('w'), 'bump', {});
    await runWorker(new Worker(workerEngine));
    // An unkeyed message's outcome is read from its receipt, a keyed one's from its key's claim.
    expect(await client.outcome(messageId)).toMatchObject({ ok: false });
    expect(await client.outcome(keyed.messageId)).toMatchObject({ ok: true });
    // `GET /workflows/<name>/<id>` reads the instance's record: a workflow's, no other actor's.
    expect(await client.workflowStatus(Nap.ref('n1'))).toMatchObject({ status: 'new' });

    // The operator redrives the dead letter once it is cured; the worker applies it.
    cured = true;
    await redriveDeadLetter(operator.store, operator.queue, 'node/p', messageId);
    await runWorker();

    // Outboxes left undrained, for the sweeper's code.
    // Small items again, so a relay to many goes apart, and one to a few is held.
    const committing = createEngine({
      actors,
      ...ports(setup.dynamodb, setup.sqs, 1_500),
      logger: silentLogger,
    });
    const relayed = (key: string, to = ['a']) => ({
      envelope: {
        id: `ingress:${key}`,
        from: INGRESS,
        seq: 0,
        to: `node/${key}`,
        name: 'relay',
        payload: { to },
        sentAt: Date.now(),
      },
      queueSeq: '1',
    });
    await runTurn(committing, 'node/y', [relayed('y', many)]);
    await runTurn(committing, 'node/v', [relayed('v')]);
    await runTurn(committing, 'node/z', [relayed('z', [...many, 'a'])]);
    // A timer committed and never armed, for the sweeper to fire; and one scheduled ten minutes
    // ago for 24 minutes later, which its turn left for the sweeper to arm once within reach.
    const later = (key: string, payload: { delayMs?: number }) => ({
      ...relayed(key),
      envelope: { ...relayed(key).envelope, name: 'later', payload },
    });
    await runTurn(committing, 'node/u', [later('u', {})]);
    const tenMinutesAgo = { now: () => Date.now() - 10 * 60_000 };
    const before = { ...committing, clock: tenMinutesAgo };
    await runTurn(before, 'node/s', [later('s', { delayMs: 24 * 60_000 })]);
    // node/y's sends apart and node/v's held one, left behind; node/z's send, left behind; and
    // the sends node/hub's and node/x's records still hold from their last turns: drained then,
    // to be sent again and retired.
    const listed = await operator.store.listOutboxActors(Number.MAX_SAFE_INTEGER);
    expect(listed.sort()).toEqual(['node/hub', 'node/v', 'node/x', 'node/y', 'node/z']);
    const stored = await Promise.all(listed.map((id) => storedOutbox(operator.store, id)));
    const sends = stored.flat().reduce((n, item) => n + item.envelopes.length, 0);
    const swept = await new Sweeper(createEngine({ actors, ...sweeper, logger: silentLogger }), {
      minAgeMs: 0,
      timerGraceMs: 0,
    }).sweep();
    // Both due timers: node/u's, never armed, and node/t's, armed and not relayed yet; and
    // node/s's, now within the timer queue's reach.
    expect(swept).toMatchObject({ drained: 5, sent: sends, timersFired: 2, timersArmed: 1 });

    // The relay: the worker's armed timer is due (fired into the inbox), a later one re-armed.
    const armed = await setup.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: timerQueueUrl, MaxNumberOfMessages: 10 }),
    );
    expect(armed.Messages).toHaveLength(1);
    const body = armed.Messages![0]!.Body!;
    const late = JSON.stringify({ ...JSON.parse(body), at: Date.now() + 3_600_000 });
    const records = [body, late].map((b, i) => ({ messageId: `m${i}`, body: b }));
    const relayResult = await relayHandler({ ...relay, logger: silentLogger })({
      Records: records,
    } as unknown as SQSEvent);
    expect(relayResult.batchItemFailures).toEqual([]);
    await runWorker();
    expect((await operator.store.load('node/t'))?.state).toEqual({ n: 1 });
    expect((await operator.store.load('node/u'))?.state).toEqual({ n: 1 });
    expect((await operator.store.load('node/a'))?.state).toEqual({ n: 5 });

    expect(asDeclared(worker.calls, 'worker')).toEqual(declared('worker'));
    expect(asDeclared(ingress.calls, 'ingress')).toEqual(declared('ingress'));
    expect(asDeclared(sweeper.calls, 'sweeper')).toEqual(declared('sweeper'));
    expect(asDeclared(relay.calls, 'relay')).toEqual(declared('relay'));
  }, 120_000);
});
