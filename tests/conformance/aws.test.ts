import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { DeleteItemCommand, DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { DeleteQueueCommand } from '@aws-sdk/client-sqs';
import { createAwsClients, createFifoQueue, createTable, DynamoStore, SqsQueue } from '@baton/aws';
import { type RunningEmulator, startDynamoDbLocal } from '@baton/cli';
import { systemClock } from '@baton/core/adapter';
import {
  type ConformanceBackend,
  conformanceSuite,
  keyClaimSuite,
  livesSuite,
  manyPeersSuite,
  outcomePageSuite,
  queueLimitSuite,
  workflowSuite,
} from '@baton/testing/conformance';
import { afterAll, beforeAll, describe, inject } from 'vitest';

async function open(dynamodbEndpoint = inject('dynamodbEndpoint')): Promise<ConformanceBackend> {
  const { dynamodb, sqs } = createAwsClients({
    dynamodbEndpoint,
    sqsEndpoint: inject('sqsEndpoint'),
  });
  const name = `conformance-${randomUUID().slice(0, 8)}`;
  await createTable(dynamodb, name);
  const { queueUrl, deadLetterQueueUrl } = await createFifoQueue(sqs, name, {
    visibilityTimeoutMs: 2_000,
  });
  const queue = new SqsQueue({ client: sqs, queueUrl });
  return {
    store: new DynamoStore({ client: dynamodb, tableName: name }),
    queue,
    clock: systemClock,
    pending: async () => {
      const { visible, inFlight } = await queue.approximateCounts();
      return visible + inFlight;
    },
    pass: (ms) => sleep(ms),
    expire: async (actorId) => {
      // What DynamoDB's TTL does, at once: delete the record once past its `expiresAt`, if it
      // has a TTL. The record's key, as the package README lays out the table.
      const Key = { pk: { S: `A#${actorId}` }, sk: { S: 'R' } };
      await dynamodb
        .send(
          new DeleteItemCommand({
            TableName: name,
            Key,
            ConditionExpression: 'attribute_exists(#ttl) AND expiresAt <= :now',
            ExpressionAttributeNames: { '#ttl': 'ttl' },
            ExpressionAttributeValues: { ':now': { N: String(Date.now()) } },
          }),
        )
        .catch((error: { name?: string }) => {
          if (error.name !== 'ConditionalCheckFailedException') throw error;
        });
    },
    close: async () => {
      await dynamodb.send(new DeleteTableCommand({ TableName: name }));
      await sqs.send(new DeleteQueueCommand({ QueueUrl: queueUrl }));
      await sqs.send(new DeleteQueueCommand({ QueueUrl: deadLetterQueueUrl }));
    },
  };
}

conformanceSuite('DynamoDB Local and ElasticMQ', () => open());
workflowSuite('DynamoDB Local and ElasticMQ', () => open());
keyClaimSuite('DynamoDB Local and ElasticMQ', () => open());
livesSuite('DynamoDB Local and ElasticMQ', () => open());
outcomePageSuite('DynamoDB Local and ElasticMQ', () => open());
queueLimitSuite('DynamoDB Local and ElasticMQ', () => open());

/**
 * Senders of the fan-in on DynamoDB Local: 10,000 in every run (about a minute), the 100,000 the
 * embedded backend runs in `pnpm test:long` (about 9 minutes on two cores).
 */
const FAN_IN = process.env.BATON_LONG === '1' ? 100_000 : 10_000;

// Its own DynamoDB Local: after a fan-in's items the shared one slows every other test.
describe('with a DynamoDB Local of its own', () => {
  let dynamodb: RunningEmulator | undefined;
  beforeAll(async () => {
    dynamodb = await startDynamoDbLocal();
  }, 120_000);
  afterAll(() => dynamodb?.stop());
  manyPeersSuite('DynamoDB Local and ElasticMQ', () => open(dynamodb?.endpoint), FAN_IN);
});
