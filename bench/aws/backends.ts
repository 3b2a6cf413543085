/** The backends the propagation benchmark runs on: the AWS target's, and the embedded one. */
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoStore, SqsQueue } from '@baton/aws';
import { DynamoStreamFeed } from '@baton/aws/websocket';
import { createEmbeddedBackend } from '@baton/embedded';
import type { PropagationBackend } from './propagation.ts';
import type { Target } from './target.ts';

/** How often the stream feed polls a shard that had nothing (DynamoStreamFeed's default: 250). */
export const STREAM_POLL_MS = 20;

export interface OpenBackend extends PropagationBackend {
  close(): Promise<void>;
}

/** DynamoDB (its stream as the feed) and SQS; each part with its own clients. */
export async function awsBackend(target: Target, name: string): Promise<OpenBackend> {
  const [tableName, { queueUrl }] = await Promise.all([target.table(name), target.queue(name)]);
  const server = target.clients();
  const writer = target.clients();
  const push = target.clients();
  const feed = new DynamoStreamFeed({
    clients: target.streamClients(),
    tableName,
    pollMs: STREAM_POLL_MS,
  });
  await feed.start();
  return {
    label: target.label,
    pollMs: STREAM_POLL_MS,
    store: new DynamoStore({ client: server.dynamodb, tableName }),
    writerStore: new DynamoStore({ client: writer.dynamodb, tableName }),
    queue: new SqsQueue({ client: server.sqs, queueUrl }),
    feed,
    async readBalance(walletId) {
      const { Item } = await push.dynamodb.send(
        new GetItemCommand({
          TableName: tableName,
          Key: { pk: { S: `A#${walletId}` }, sk: { S: 'R' } },
          ConsistentRead: true,
        }),
      );
      return (JSON.parse(Item?.state?.S ?? '{}') as { balance: number }).balance;
    },
    close: () => feed.stop(),
  };
}

/** The embedded backend in memory: the feed is in-process, the read a map lookup. */
export function embeddedBackend(): OpenBackend {
  const backend = createEmbeddedBackend();
  return {
    label: 'embedded',
    store: backend.store,
    writerStore: backend.store,
    queue: backend.queue,
    feed: backend.feed,
    async readBalance(walletId) {
      const record = await backend.store.load(walletId);
      const state = record?.state as { balance: number } | undefined;
      return state?.balance ?? 0;
    },
    close: async () => backend.close(),
  };
}
