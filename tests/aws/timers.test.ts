/**
 * Durable timers on DynamoDB Local and ElasticMQ: the worker arms each timer its turns commit on
 * the standard timer queue, delayed until due; the relay (behind a local SQS event source) fires
 * it into the FIFO inbox; the handling turn removes it. A cancelled timer's fire is skipped, a
 * timer due past SQS's 15-minute delay is armed by the sweeper once within it (or re-armed by the
 * relay, if armed before), and the sweeper fires one whose arming was lost.
 */
import { randomUUID } from 'node:crypto';
import { GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
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
import { LocalSqsEventSource } from '@baton/aws/local';
import { actor, silentLogger } from '@baton/core';
import { Client } from '@baton/core/client';
import { createEngine, Sweeper, Worker } from '@baton/core/engine';
import type { SQSEvent } from 'aws-lambda';
import { afterEach, describe, expect, inject, it } from 'vitest';
import * as z from 'zod';

const Alarm = actor({
  name: 'alarm',
  state: z.object({ rang: z.array(z.string()) }),
  initial: () => ({ rang: [] as string[] }),
  handlers: {
    set: {
      payload: z.object({ note: z.string(), delayMs: z.number() }),
      handle: (ctx, { note, delayMs }) => ctx.schedule(delayMs, 'ring', { note }, { id: note }).id,
    },
    cancel: {
      payload: z.object({ note: z.string() }),
      handle: (ctx, { note }) => ctx.cancel(note),
    },
    ring: {
      payload: z.object({ note: z.string() }),
      handle: (ctx, { note }) => {
        ctx.state.rang.push(note);
      },
    },
  },
});

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

async function backend() {
  const { dynamodb } = createAwsClients({ dynamodbEndpoint: inject('dynamodbEndpoint') });
  // An SQS client of its own: a test below counts its calls with middleware it adds, which a
  // client shared by the file's tests (and caching its middleware) would not run.
  const sqs = new SQSClient({
    endpoint: inject('sqsEndpoint'),
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const name = `timers-${randomUUID().slice(0, 8)}`;
  await createTable(dynamodb, name);
  const inbox = await createFifoQueue(sqs, name, { visibilityTimeoutMs: 2_000 });
  const timerQueue = await createTimerQueue(sqs, name);
  const store = new DynamoStore({ client: dynamodb, tableName: name });
  const queue = new SqsQueue({ client: sqs, queueUrl: inbox.queueUrl });
  const timers = new SqsTimerQueue({ client: sqs, queueUrl: timerQueue.queueUrl });
  const engine = createEngine({
    actors: [Alarm],
    store,
    queue,
    timers,
    logger: silentLogger,
    visibilityTimeoutMs: 2_000,
  });
  const worker = new Worker(engine);
  const rang = async () =>
    ((await store.load('alarm/a'))?.state as { rang: string[] } | undefined)?.rang ?? [];
  /** Polls the inbox with `by` until `done()` holds. */
  const workUntil = async (done: () => Promise<boolean>, by = worker) => {
    const deadline = Date.now() + 20_000;
    while (!(await done())) {
      if (Date.now() > deadline) throw new Error('timed out waiting for the worker');
      if ((await by.poll()) === 0) await new Promise((r) => setTimeout(r, 100));
    }
  };
  const delayedOnTimerQueue = async () => {
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: timerQueue.queueUrl,
        AttributeNames: ['ApproximateNumberOfMessagesDelayed'],
      }),
    );
    return Number(Attributes?.ApproximateNumberOfMessagesDelayed ?? 0);
  };
  return {
    sqs,
    store,
    queue,
    timers,
    timerQueue,
    engine,
    worker,
    rang,
    workUntil,
    delayedOnTimerQueue,
  };
}

describe('durable timers on DynamoDB Local and ElasticMQ', () => {
  it('are armed on the timer queue, relayed into the inbox when due and applied once; a cancelled one never', async () => {
    const b = await backend();
    const relay = new LocalSqsEventSource({
      client: b.sqs,
      queueUrl: b.timerQueue.queueUrl,
      handler: relayHandler({ queue: b.queue, timers: b.timers, logger: silentLogger }),
      waitSeconds: 1,
    });
    relay.start();
    stops.push(() => relay.stop());
    const client = new Client({ actors: [Alarm], store: b.store, queue: b.queue }).asSystem();
    const ref = Alarm.ref('a');
    await client.send(ref, 'set', { note: 'soon', delayMs: 1_000 });
    await client.send(ref, 'set', { note: 'cancelled', delayMs: 1_000 });
    await client.send(ref, 'set', { note: 'also soon', delayMs: 2_000 });
    await client.send(ref, 'cancel', { note: 'cancelled' });
    await b.workUntil(async () => (await b.rang()).length === 2);
    expect((await b.rang()).sort()).toEqual(['also soon', 'soon']);
    // The cancelled timer's fire came through the relay as well, and was skipped.
    await b.workUntil(async () => (await b.delayedOnTimerQueue()) === 0);
    await new Promise((r) => setTimeout(r, 1_500));
    while ((await b.worker.poll()) > 0);
    expect((await b.rang()).sort()).toEqual(['also soon', 'soon']);
    expect(await b.store.listTimers(ref.id)).toEqual([]);
  }, 60_000);

  it('re-arms a timer due past the longest SQS delay, for the next hop', async () => {
    const b = await backend();
    const relay = relayHandler({ queue: b.queue, timers: b.timers, logger: silentLogger });
    const at = Date.now() + 3 * 3_600_000;
    const ref = { actorId: 'alarm/a', id: 'late', gen: 'g1', at, name: 'ring' };
    const event = {
      Records: [{ messageId: 'm1', body: JSON.stringify(ref) }],
    } as unknown as SQSEvent;
    expect(await relay(event)).toEqual({ batchItemFailures: [] });
    expect(await b.delayedOnTimerQueue()).toBe(1);
    // Nothing went into the inbox.
    const { Messages } = await b.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: b.queue.queueUrl, WaitTimeSeconds: 0 }),
    );
    expect(Messages ?? []).toEqual([]);
  });

  it('stops re-arming a timer once it is cancelled', async () => {
    const b = await backend();
    const relay = relayHandler({
      queue: b.queue,
      timers: b.timers,
      store: b.store,
      logger: silentLogger,
    });
    const client = new Client({ actors: [Alarm], store: b.store, queue: b.queue }).asSystem();
    const ref = Alarm.ref('a');
    await client.send(ref, 'set', { note: 'later', delayMs: 3 * 3_600_000 });
    await b.workUntil(async () => (await b.store.listTimers(ref.id)).length === 1);
    const [timer] = await b.store.listTimers(ref.id);
    const hop = (stored: typeof timer) => ({
      Records: [{ messageId: 'm1', body: JSON.stringify(stored) }],
    });
    // Still stored: its next hop is armed.
    const armed = await b.delayedOnTimerQueue();
    await relay(hop(timer) as unknown as SQSEvent);
    expect(await b.delayedOnTimerQueue()).toBe(armed + 1);

    await client.send(ref, 'cancel', { note: 'later' });
    await b.workUntil(async () => (await b.store.listTimers(ref.id)).length === 0);
    expect(await relay(hop(timer) as unknown as SQSEvent)).toEqual({ batchItemFailures: [] });
    expect(await b.delayedOnTimerQueue()).toBe(armed + 1);
  });

  it('leaves a timer due past the longest SQS delay to the sweeper, which arms it once within it', async () => {
    const b = await backend();
    const client = new Client({ actors: [Alarm], store: b.store, queue: b.queue }).asSystem();
    await client.send(Alarm.ref('a'), 'set', { note: 'later', delayMs: 3 * 3_600_000 });
    await b.workUntil(async () => (await b.store.listTimers('alarm/a')).length === 1);
    // The turn armed nothing: the timer waits in the table, not hopping through the queue.
    expect(await b.delayedOnTimerQueue()).toBe(0);
    expect((await new Sweeper(b.engine).sweep()).timersArmed).toBe(0);
    expect(await b.delayedOnTimerQueue()).toBe(0);
    // A sweep once it is due within 15 minutes arms it.
    const [timer] = await b.store.listTimers('alarm/a');
    const then = { now: () => timer!.at - 14 * 60_000 };
    expect((await new Sweeper({ ...b.engine, clock: then }).sweep()).timersArmed).toBe(1);
    expect(await b.delayedOnTimerQueue()).toBe(1);
  });

  it('arms a page of timers in batches sent several at a time, each timer once', async () => {
    const b = await backend();
    let inFlight = 0;
    let most = 0;
    b.sqs.middlewareStack.add(
      (next) => async (args) => {
        most = Math.max(most, ++inFlight);
        try {
          return await next(args);
        } finally {
          inFlight--;
        }
      },
      { step: 'initialize' },
    );
    const at = Date.now() + 10 * 60_000;
    const refs = Array.from({ length: 95 }, (_, i) => ({
      actorId: 'alarm/a',
      id: `t${i}`,
      gen: 'g',
      at,
      name: 'ring',
    }));
    await b.timers.arm(refs);
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(8);
    expect(await b.delayedOnTimerQueue()).toBe(95);
  });

  it('fires with the sweeper a timer whose arming was lost, once it is overdue', async () => {
    const b = await backend();
    const client = new Client({ actors: [Alarm], store: b.store, queue: b.queue }).asSystem();
    await client.send(Alarm.ref('a'), 'set', { note: 'lost', delayMs: 0 });
    // A worker that commits the timer and dies before arming it.
    const unarmed = new Worker({ ...b.engine, timers: undefined });
    await b.workUntil(async () => (await b.store.listTimers('alarm/a')).length === 1, unarmed);
    expect(await b.delayedOnTimerQueue()).toBe(0);
    const sweeper = new Sweeper(b.engine, { timerGraceMs: 0 });
    expect((await sweeper.sweep()).timersFired).toBe(1);
    await b.workUntil(async () => (await b.rang()).length === 1);
    expect(await b.rang()).toEqual(['lost']);
  });
});
