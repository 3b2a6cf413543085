/**
 * An ingress outcome as large as the engine lets a reply be (the store's `maxItemBytes` less its
 * `pageBytes`), beside an outcome page that other outcomes with long keys nearly filled, is
 * answered on DynamoDB Local as on the embedded backend. The page item stores more than the
 * outcomes' JSON: each outcome's key a second time (as its attribute's name), its expiry a second
 * time (`e`), a map around them, and the page's own key, `pm` and `ttl`. When the engine measured
 * a page by its outcomes' JSON alone, this page passed its check but not DynamoDB's item limit:
 * the commit was refused on every receive and the message went to the dead-letter queue
 * unanswered. The engine now measures each entry as the page item takes it
 * (`outcomePageBytes.ts`), and closes a page an outcome does not fit beside.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { DeleteQueueCommand } from '@aws-sdk/client-sqs';
import { createAwsClients, createFifoQueue, createTable, DynamoStore, SqsQueue } from '@baton/aws';
import { actor, SYSTEM, silentLogger } from '@baton/core';
import {
  type Envelope,
  encodeEnvelope,
  INGRESS,
  ingressMessageId,
  jsonSize,
  messageFingerprint,
} from '@baton/core/adapter';
import { Client } from '@baton/core/client';
import { pageBytes, Worker } from '@baton/core/engine';
import { createEmbeddedBackend } from '@baton/embedded';
import { VirtualClock } from '@baton/testing';
import type { ConformanceBackend } from '@baton/testing/conformance';
import { describe, expect, inject, it } from 'vitest';
import * as z from 'zod';

const Echo = actor({
  name: 'echo',
  state: z.object({ n: z.number() }),
  initial: () => ({ n: 0 }),
  handlers: {
    add: {
      public: true,
      payload: z.object({}),
      handle: (ctx) => {
        ctx.state.n++;
      },
    },
    /** Replies with `bytes` characters. */
    echo: {
      public: true,
      payload: z.object({ bytes: z.number().int() }),
      handle: (_ctx, { bytes }) => 'e'.repeat(bytes),
    },
  },
});

const TO = 'echo/p';

function message(key: string, sentAt: number, name: string, payload: object): Envelope {
  return {
    id: ingressMessageId(TO, key, SYSTEM),
    from: INGRESS,
    seq: 0,
    to: TO,
    name,
    payload,
    sentAt,
    fingerprint: messageFingerprint(name, payload),
  };
}

async function pollUntilEmpty(worker: Worker, b: ConformanceBackend): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if ((await worker.poll()) > 0) continue;
    if ((await b.pending()) === 0) return;
    await b.pass(250);
  }
  throw new Error('the inbox did not empty');
}

function outcomePageItemSuite(name: string, open: () => Promise<ConformanceBackend>): void {
  describe(`a large outcome in a nearly full page on ${name}`, () => {
    it('stores a reply as large as the store takes beside outcomes that nearly fill its page', async () => {
      const b = await open();
      try {
        const ports = { actors: [Echo], store: b.store, queue: b.queue, clock: b.clock };
        const worker = new Worker({ ...ports, logger: silentLogger, visibilityTimeoutMs: 2_000 });
        const client = new Client(ports).asSystem();
        const enqueue = (envelopes: readonly Envelope[]) =>
          b.queue.send(
            envelopes.map((e) => ({ group: e.to, dedupeId: e.id, body: encodeEnvelope(e) })),
          );
        const { limits } = b.store;
        const paged = typeof b.store.readPagedOutcomes === 'function';
        // Idempotency keys as long as a client may give them: 200 characters.
        const key = (i: number) => `${String(i).padStart(3, '0')}${'k'.repeat(197)}`;
        const sentAt = b.clock.now();
        await enqueue([message(key(0), sentAt, 'add', {})]);
        await pollUntilEmpty(worker, b);
        if (paged) {
          // More outcomes of the same size, as many as the page takes before it closes.
          const one = (await b.store.load(TO))?.outcomePage?.bytes ?? 0;
          const more = Math.floor((pageBytes(limits) - 1) / one) - 1;
          await enqueue(
            Array.from({ length: more }, (_, i) => message(key(i + 1), sentAt + i + 1, 'add', {})),
          );
          await pollUntilEmpty(worker, b);
          const page = (await b.store.load(TO))?.outcomePage;
          expect(page).toMatchObject({ page: 0 });
          expect(page?.bytes).toBeGreaterThan(pageBytes(limits) - one);
        }
        // The largest outcome the engine lets a reply have (maxOutcomeBytes), give or take the
        // digits of its times.
        const most = limits.maxItemBytes - (paged ? pageBytes(limits) : 0);
        const probe = message(key(999), sentAt, 'echo', { bytes: 100_000 });
        const empty = jsonSize({
          key: probe.id,
          actorId: probe.to,
          outcome: { ok: true, value: '' },
          expiresAt: sentAt + 86_400_000,
          fingerprint: probe.fingerprint,
          sentAt,
        });
        const bytes = most - empty - 16;
        const large = message(key(999), sentAt + 999, 'echo', { bytes });
        await enqueue([large]);
        await pollUntilEmpty(worker, b);
        const outcome = await client.outcome(large.id);
        expect(outcome?.ok ? (outcome.value as string).length : outcome).toBe(bytes);
      } finally {
        await b.close();
      }
    });
  });
}

outcomePageItemSuite('the embedded backend', async () => {
  const clock = new VirtualClock();
  const backend = createEmbeddedBackend({ clock });
  return {
    store: backend.store,
    queue: backend.queue,
    clock,
    pending: async () => backend.queue.counts().total,
    pass: async (ms) => clock.advance(ms),
    expire: async () => backend.store.purgeExpired(),
    close: async () => backend.close(),
  };
});

outcomePageItemSuite('DynamoDB Local and ElasticMQ', async () => {
  const { dynamodb, sqs } = createAwsClients({
    dynamodbEndpoint: inject('dynamodbEndpoint'),
    sqsEndpoint: inject('sqsEndpoint'),
  });
  const name = `page-item-${randomUUID().slice(0, 8)}`;
  await createTable(dynamodb, name);
  const { queueUrl, deadLetterQueueUrl } = await createFifoQueue(sqs, name, {
    visibilityTimeoutMs: 2_000,
  });
  const queue = new SqsQueue({ client: sqs, queueUrl });
  return {
    store: new DynamoStore({ client: dynamodb, tableName: name }),
    queue,
    clock: { now: () => Date.now() },
    pending: async () => {
      const { visible, inFlight } = await queue.approximateCounts();
      return visible + inFlight;
    },
    pass: (ms) => sleep(ms),
    expire: async () => {},
    close: async () => {
      await dynamodb.send(new DeleteTableCommand({ TableName: name }));
      await sqs.send(new DeleteQueueCommand({ QueueUrl: queueUrl }));
      await sqs.send(new DeleteQueueCommand({ QueueUrl: deadLetterQueueUrl }));
    },
  };
});
