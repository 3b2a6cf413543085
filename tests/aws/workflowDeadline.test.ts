/**
 * The worker Lambda reads how long its invocation has left from the Lambda context: a
 * workflow's turn there starts no step that could end past it, less a second to commit, and the
 * run goes on in the next invocation. Behind the local event source on ElasticMQ and DynamoDB
 * Local, with each invocation given about a second.
 */
import { randomUUID } from 'node:crypto';
import { createAwsClients, createFifoQueue, createTable, DynamoStore, SqsQueue } from '@baton/aws';
import { workerHandler } from '@baton/aws/lambda';
import { LocalSqsEventSource } from '@baton/aws/local';
import { silentLogger } from '@baton/core';
import { Client } from '@baton/core/client';
import { describe, expect, inject, it } from 'vitest';
import { slowSteps } from '../workflow/slowSteps.ts';

const ran: string[] = [];
const Slow = slowSteps(ran);

describe('the worker Lambda and its invocation time', () => {
  it('commits the steps that fit before the invocation ends, and runs the rest in the next', async () => {
    const { dynamodb, sqs } = createAwsClients({
      dynamodbEndpoint: inject('dynamodbEndpoint'),
      sqsEndpoint: inject('sqsEndpoint'),
    });
    const name = `deadline-${randomUUID().slice(0, 8)}`;
    await createTable(dynamodb, name);
    const { queueUrl } = await createFifoQueue(sqs, name, { visibilityTimeoutMs: 30_000 });
    const store = new DynamoStore({ client: dynamodb, tableName: name });
    const queue = new SqsQueue({ client: sqs, queueUrl });
    const worker = workerHandler({ actors: [Slow.actor], store, queue, logger: silentLogger });
    // Each invocation has 1,010 ms: room for one 30 ms step and the second kept to commit.
    const source = new LocalSqsEventSource({
      client: sqs,
      queueUrl,
      handler: worker,
      timeoutMs: 1_010,
      waitSeconds: 0,
    });
    const client = new Client({ actors: [Slow.actor], store, queue }).asSystem();
    const ref = await client.start(Slow, 'd-1', {});

    expect(await source.pollOnce()).toBe(1);
    expect(ran).toEqual(['one']);
    for (let i = 0; i < 20 && ran.length < 3; i++) await source.pollOnce();
    expect(ran).toEqual(['one', 'two', 'three']);
    await source.pollOnce();
    expect(await client.result(ref)).toBe('done');
    // A unit test's stand-in for the context, without the method: no deadline, no failure.
    await expect(worker({ Records: [] }, {} as never)).resolves.toEqual({ batchItemFailures: [] });
  });
});
