import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { createAwsClients, DynamoStore, SqsQueue } from '@baton/aws';
import { createStreamClients, DynamoStreamFeed } from '@baton/aws/websocket';
import { BatonError, ErrorCode } from '@baton/core';
import type { ActorRecord } from '@baton/core/adapter';
import type { ChildConfig } from '../protocol.ts';
import type { DevBackend } from './DevBackend.ts';

/**
 * DynamoDB Local + ElasticMQ as the app's backend: the production store and queue, the change
 * feed read from DynamoDB Streams. The inspector lists only the actors committed since this
 * process started, as the change feed reports them (a table scan would read every item kind),
 * and counts actors with undrained outboxes.
 */
export async function awsBackend(config: ChildConfig): Promise<DevBackend> {
  const aws = config.aws;
  if (!aws) throw new BatonError(ErrorCode.INVALID_ARGUMENT, 'local-aws needs its endpoints');
  const clients = createAwsClients(aws);
  const store = new DynamoStore({ client: clients.dynamodb, tableName: aws.tableName });
  const queue = new SqsQueue({ client: clients.sqs, queueUrl: aws.queueUrl, waitTimeSeconds: 1 });
  const feed = new DynamoStreamFeed({
    clients: createStreamClients({ dynamodbEndpoint: aws.dynamodbEndpoint }),
    tableName: aws.tableName,
    pollMs: 100,
  });
  await feed.start();
  const seen = new Map<string, ActorRecord>();
  const unsubscribe = feed.subscribe((record) => seen.set(record.id, record));
  const sleepers = new Set<() => void>();
  return {
    label: `local-aws: DynamoDB table ${aws.tableName}, SQS queue ${aws.queueUrl}`,
    store,
    queue,
    feed,
    listActors: async () => [...seen.values()],
    actorsListed: 'since-start',
    depths: async () => {
      const { Attributes: a = {} } = await clients.sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: aws.queueUrl,
          AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
        }),
      );
      const inFlight = Number(a.ApproximateNumberOfMessagesNotVisible ?? 0);
      return {
        inbox: Number(a.ApproximateNumberOfMessages ?? 0) + inFlight,
        inFlight,
        outbox: (await store.listOutboxActors(Date.now())).length,
      };
    },
    // `receive` long-polls for a second already; this only paces a failing loop.
    waitForWork: () =>
      new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          sleepers.delete(done);
          resolve();
        };
        const timer = setTimeout(done, 100);
        sleepers.add(done);
      }),
    wake: () => {
      for (const done of [...sleepers]) done();
    },
    close: async () => {
      unsubscribe();
      await feed.stop();
    },
  };
}
