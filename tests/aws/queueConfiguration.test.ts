/**
 * The inbox queue as a worker finds it on ElasticMQ: a redrive policy that would dead-letter a
 * message before the engine could is refused at start, and a queue deleted and created again
 * under its name is noticed by a warm worker too, not only by a cold one.
 */
import { randomUUID } from 'node:crypto';
import { DeleteQueueCommand } from '@aws-sdk/client-sqs';
import { createAwsClients, createFifoQueue, createTable, DynamoStore, SqsQueue } from '@baton/aws';
import { workerHandler } from '@baton/aws/lambda';
import { ErrorCode, silentLogger } from '@baton/core';
import { Client } from '@baton/core/client';
import { Worker } from '@baton/core/engine';
import { Ledger } from '@baton/testing/conformance';
import { afterAll, describe, expect, inject, it } from 'vitest';

const { dynamodb, sqs } = createAwsClients({
  dynamodbEndpoint: inject('dynamodbEndpoint'),
  sqsEndpoint: inject('sqsEndpoint'),
});
const created: string[] = [];

afterAll(async () => {
  await Promise.all(created.map((QueueUrl) => sqs.send(new DeleteQueueCommand({ QueueUrl }))));
});

async function inbox(maxReceives: number) {
  const name = `config-${randomUUID().slice(0, 8)}`;
  await createTable(dynamodb, name);
  const queues = await createFifoQueue(sqs, name, { maxReceives });
  created.push(queues.queueUrl, queues.deadLetterQueueUrl);
  return { name, ...queues, store: new DynamoStore({ client: dynamodb, tableName: name }) };
}

describe('the inbox queue on ElasticMQ', () => {
  it('is refused by the worker Lambda when its maxReceiveCount is not above maxAttempts', async () => {
    const { queueUrl, store } = await inbox(3);
    const queue = new SqsQueue({ client: sqs, queueUrl });
    const handler = workerHandler({ actors: [Ledger], store, queue, logger: silentLogger });
    await expect(handler({ Records: [] })).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      details: { maxReceives: 3, maxAttempts: 3 },
      message: expect.stringMatching(/maxReceiveCount/),
    });
  });

  it('is seen anew by a warm worker once deleted and created again, whose messages it applies', async () => {
    const { name, queueUrl, deadLetterQueueUrl, store } = await inbox(5);
    let now = Date.now();
    const queue = new SqsQueue({ client: sqs, queueUrl, clock: { now: () => now } });
    const options = { actors: [Ledger], store, queue, logger: silentLogger };
    const worker = new Worker(options);
    const client = new Client(options);
    for (const entry of ['a', 'b', 'c'])
      await client.send(Ledger.ref('x'), 'add', { entry, amount: 1 });
    while ((await worker.poll()) > 0);
    const before = await queue.identity();
    expect(await store.load('ledger/x')).toMatchObject({
      state: { entries: ['a', 'b', 'c'] },
      inboxQueue: before,
    });

    // The queue is replaced under the same URL; its sequence numbers start over.
    await sqs.send(new DeleteQueueCommand({ QueueUrl: queueUrl }));
    await sqs.send(new DeleteQueueCommand({ QueueUrl: deadLetterQueueUrl }));
    await new Promise((resolve) => setTimeout(resolve, 1_100)); // creation times are in seconds
    await createFifoQueue(sqs, name, { maxReceives: 5 });
    now += 60_000; // SQS makes one wait 60 s before creating a deleted queue's name again
    for (const entry of ['d', 'e']) await client.send(Ledger.ref('x'), 'add', { entry, amount: 1 });
    while ((await worker.poll()) > 0);

    // The record names the queue its offset now comes from: the new one, as a cold worker sees
    // it. (ElasticMQ numbers on across a queue's lives; where numbers start over, an offset
    // taken for the old queue's would skip the new queue's first messages as processed.)
    const renewed = await new SqsQueue({ client: sqs, queueUrl }).identity();
    expect(renewed).not.toBe(before);
    expect(await store.load('ledger/x')).toMatchObject({
      state: { entries: ['a', 'b', 'c', 'd', 'e'], total: 5 },
      inboxQueue: renewed,
    });
  });
});
