/**
 * The worker Lambda on ElasticMQ, behind the local event source (which, as Lambda's, leaves a
 * failed record in flight for its visibility timeout): a failed message comes back after its
 * retry delay, as from a polling worker, not after the visibility timeout, which would hold its
 * actor for minutes.
 */
import { randomUUID } from 'node:crypto';
import { createAwsClients, createFifoQueue, createTable, DynamoStore, SqsQueue } from '@baton/aws';
import { workerHandler } from '@baton/aws/lambda';
import { LocalSqsEventSource } from '@baton/aws/local';
import { actor, RetryableError, silentLogger } from '@baton/core';
import { Client } from '@baton/core/client';
import { describe, expect, inject, it } from 'vitest';
import * as z from 'zod';

/** Far longer than the test waits: a message left to it would not come back in time. */
const VISIBILITY_MS = 120_000;

const attempts = new Map<string, number>();

const Flaky = actor({
  name: 'flaky',
  state: z.object({ done: z.array(z.string()) }),
  initial: () => ({ done: [] as string[] }),
  handlers: {
    /** Fails its first try: with the delay it asks for, or as an unexpected error. */
    work: {
      payload: z.object({ job: z.string(), retryAfterMs: z.number().optional() }),
      handle: (ctx, { job, retryAfterMs }) => {
        const attempt = (attempts.get(job) ?? 0) + 1;
        attempts.set(job, attempt);
        if (attempt === 1) {
          if (retryAfterMs === undefined) throw new Error('fails once');
          throw new RetryableError('busy', { retryAfterMs });
        }
        ctx.state.done.push(job);
      },
    },
  },
});

describe('the worker Lambda on ElasticMQ', () => {
  const { dynamodb, sqs } = createAwsClients({
    dynamodbEndpoint: inject('dynamodbEndpoint'),
    sqsEndpoint: inject('sqsEndpoint'),
  });

  async function deployment() {
    const name = `retry-${randomUUID().slice(0, 8)}`;
    await createTable(dynamodb, name);
    const { queueUrl } = await createFifoQueue(sqs, name, {
      maxReceives: 5,
      visibilityTimeoutMs: VISIBILITY_MS,
    });
    const store = new DynamoStore({ client: dynamodb, tableName: name });
    const queue = new SqsQueue({ client: sqs, queueUrl });
    const handler = workerHandler({ actors: [Flaky], store, queue, logger: silentLogger });
    const source = new LocalSqsEventSource({
      client: sqs,
      queueUrl,
      handler,
      visibilityTimeoutMs: VISIBILITY_MS,
      waitSeconds: 0,
    });
    const client = new Client({ actors: [Flaky], store, queue }).asSystem();
    return { store, source, client };
  }

  /** Polls for `ms`; the jobs the actor has done by then. */
  async function pumpFor(
    { store, source }: Awaited<ReturnType<typeof deployment>>,
    actorId: string,
    ms: number,
  ) {
    const until = Date.now() + ms;
    while (Date.now() < until) {
      if ((await source.pollOnce()) === 0) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    return ((await store.load(actorId))?.state as { done: string[] } | undefined)?.done ?? [];
  }

  it("brings back a message whose RetryableError asked for 1 s after that second, with the actor's later message behind it", async () => {
    const app = await deployment();
    const ref = Flaky.ref(`a-${randomUUID().slice(0, 8)}`);
    const job = randomUUID();
    await app.client.send(ref, 'work', { job, retryAfterMs: 1000 });
    await app.client.send(ref, 'work', { job: `${job}-next` });
    attempts.set(`${job}-next`, 1); // the later message does not fail: only the first one does

    expect(await pumpFor(app, ref.id, 600)).toEqual([]);
    expect(attempts.get(job)).toBe(1);
    expect(await pumpFor(app, ref.id, 4_000)).toEqual([job, `${job}-next`]);
    expect(attempts.get(job)).toBe(2);
  });

  it('brings back a message whose handler threw after a backoff of 1 s at its first receive', async () => {
    const app = await deployment();
    const ref = Flaky.ref(`b-${randomUUID().slice(0, 8)}`);
    const job = randomUUID();
    await app.client.send(ref, 'work', { job });

    expect(await pumpFor(app, ref.id, 500)).toEqual([]);
    expect(attempts.get(job)).toBe(1);
    expect(await pumpFor(app, ref.id, 4_000)).toEqual([job]);
  });
});
