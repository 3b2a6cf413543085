import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { DeleteQueueCommand } from '@aws-sdk/client-sqs';
import { createAwsClients, createFifoQueue, createTable, DynamoStore, SqsQueue } from '@baton/aws';
import { systemClock } from '@baton/core';
import { inject } from 'vitest';
import { conformanceSuite } from './conformanceSuite.ts';

conformanceSuite('DynamoDB Local and ElasticMQ', async () => {
  const { dynamodb, sqs } = createAwsClients({
    dynamodbEndpoint: inject('dynamodbEndpoint'),
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
    pass: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    close: async () => {
      await dynamodb.send(new DeleteTableCommand({ TableName: name }));
      await sqs.send(new DeleteQueueCommand({ QueueUrl: queueUrl }));
      await sqs.send(new DeleteQueueCommand({ QueueUrl: deadLetterQueueUrl }));
    },
  };
});
