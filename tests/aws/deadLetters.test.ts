/**
 * Dead letters on the real AWS parts: a poison message is ended by the engine in the actor's
 * turn, kept in DynamoDB and redriven once, while the actor goes on; an outbox whose drain
 * failed after its commit is drained by the sweeper, its inbox message acked, not dead-lettered.
 */
import { randomUUID } from 'node:crypto';
import { createAwsClients, createFifoQueue, createTable, DynamoStore, SqsQueue } from '@baton/aws';
import { workerHandler } from '@baton/aws/lambda';
import { LocalSqsEventSource } from '@baton/aws/local';
import { BatonError, ErrorCode, silentLogger } from '@baton/core';
import type { Queue } from '@baton/core/adapter';
import { Client } from '@baton/core/client';
import { redriveDeadLetter, Sweeper, storedOutbox } from '@baton/core/engine';
import { Ledger } from '@baton/testing/conformance';
import { beforeEach, describe, expect, inject, it } from 'vitest';

/** The queue's own limit: one receive more than the engine's maxAttempts (3), as a worker demands. */
const MAX_RECEIVES = 4;

describe('dead letters on DynamoDB Local and ElasticMQ', () => {
  const { dynamodb, sqs } = createAwsClients({
    dynamodbEndpoint: inject('dynamodbEndpoint'),
    sqsEndpoint: inject('sqsEndpoint'),
  });
  let store: DynamoStore;
  let queue: SqsQueue;
  let client: Client;
  let queueUrl: string;
  let deadLetters: SqsQueue;

  beforeEach(async () => {
    const name = `dlq-${randomUUID().slice(0, 8)}`;
    await createTable(dynamodb, name);
    const queues = await createFifoQueue(sqs, name, {
      maxReceives: MAX_RECEIVES,
      visibilityTimeoutMs: 1000,
    });
    queueUrl = queues.queueUrl;
    store = new DynamoStore({ client: dynamodb, tableName: name });
    queue = new SqsQueue({ client: sqs, queueUrl });
    deadLetters = new SqsQueue({ client: sqs, queueUrl: queues.deadLetterQueueUrl });
    client = new Client({ actors: [Ledger], store, queue }).asSystem();
  });

  /** The Lambda worker behind the local event source, draining through `drains`. */
  function eventSource(drains: Queue = queue) {
    const handler = workerHandler({
      actors: [Ledger],
      store,
      queue: drains,
      logger: silentLogger,
    });
    return new LocalSqsEventSource({
      client: sqs,
      queueUrl,
      handler,
      visibilityTimeoutMs: 1000,
      waitSeconds: 0,
    });
  }

  /** Polls until `done()` holds, letting visibility timeouts pass. */
  async function pumpUntil(source: LocalSqsEventSource, done: () => Promise<boolean>) {
    for (let i = 0; i < 80; i++) {
      if (await done()) return;
      if ((await source.pollOnce()) === 0) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error('condition not reached');
  }

  const depth = async (q: SqsQueue) => {
    const { visible, inFlight } = await q.approximateCounts();
    return visible + inFlight;
  };
  const entries = async (id: string) =>
    ((await store.load(id))?.state as { entries: string[] } | undefined)?.entries;

  it("ends a poison message as DEAD_LETTERED in the actor's turn by its 3rd receive, keeps it in DynamoDB, and redrives it once", async () => {
    const source = eventSource();
    await client.send(Ledger.ref('p'), 'add', { entry: 'before', amount: 1 });
    // Fails on its first three deliveries, the engine's maxAttempts: the engine ends it before
    // the queue's own dead-letter queue (maxReceives 4) would take it.
    const { messageId } = await client.send(Ledger.ref('p'), 'flaky', {
      entry: 'poison',
      failures: 3,
    });
    await client.send(Ledger.ref('p'), 'add', { entry: 'after', amount: 1 });
    await pumpUntil(
      source,
      async () => (await depth(queue)) === 0 && (await entries('ledger/p'))?.length === 2,
    );
    expect(await entries('ledger/p')).toEqual(['before', 'after']);
    expect(await depth(deadLetters)).toBe(0);
    expect((await client.outcome(messageId))?.ok).toBe(false);
    const [letter, ...others] = await store.listDeadLetters();
    expect(others).toEqual([]);
    expect(letter).toMatchObject({ actorId: 'ledger/p', messageId, attempts: 3, redrivable: true });
    expect(await store.listDeadLetters('ledger/p')).toEqual([letter]);

    await redriveDeadLetter(store, queue, 'ledger/p', messageId);
    await redriveDeadLetter(store, queue, 'ledger/p', messageId);
    await pumpUntil(source, async () => (await depth(queue)) === 0);
    expect(await entries('ledger/p')).toEqual(['before', 'after', 'poison']);
    expect(await store.listDeadLetters()).toEqual([]);
    expect(await client.outcome(messageId)).toEqual({ ok: true, value: undefined });
  });

  it('acks a message whose drain SQS refused after its commit, and drains its outbox with the sweeper', async () => {
    let sqsDown = true;
    const failingDrains: Queue = {
      ...queueMethods(queue),
      send: async (messages) => {
        if (sqsDown) throw new BatonError(ErrorCode.UNAVAILABLE, 'SQS is refusing sends');
        await queue.send(messages);
      },
    };
    await client.send(Ledger.ref('src'), 'fanOut', { to: 'dst', count: 2 });
    // The turn commits its sends and its drain fails: the message, applied, is acked, not
    // brought back again and again into the dead-letter queue.
    await pumpUntil(eventSource(failingDrains), async () => (await depth(queue)) === 0);
    expect(await depth(deadLetters)).toBe(0);
    expect(
      (await storedOutbox(store, 'ledger/src')).flatMap((item) => item.envelopes),
    ).toHaveLength(2);

    sqsDown = false;
    const swept = await new Sweeper(
      { actors: [Ledger], store, queue, logger: silentLogger },
      { minAgeMs: 0 },
    ).sweep();
    expect(swept).toMatchObject({ drained: 1, sent: 2, failed: 0 });
    await pumpUntil(eventSource(), async () => (await entries('ledger/dst'))?.length === 2);
    expect(await entries('ledger/dst')).toEqual(['n0', 'n1']);
    expect(await storedOutbox(store, 'ledger/src')).toEqual([]);
  });
});

function queueMethods(queue: Queue): Queue {
  return {
    send: (messages) => queue.send(messages),
    receive: (options) => queue.receive(options),
    ack: (receipts) => queue.ack(receipts),
    release: (receipts, delayMs) => queue.release(receipts, delayMs),
  };
}
