/**
 * One side of the gateway fan-out rows (4f, 4g), in a process of its own (see `../parts.ts`): a
 * local API Gateway (`LocalWebSocketGateway`), the WebSocket Lambda behind it and the Lambda on
 * the table's stream, whose events the step relays here.
 *
 * - `baton`: Baton's `websocketHandler` and `streamHandler`. The stream handler finds the query's
 *   instance in the connections table, re-runs it once and posts the result to every
 *   subscriber (`PostToConnection`, `push.concurrency` 32 in flight).
 * - `push`: what a user writes without Baton: a `$default` handler that puts each subscriber's
 *   connection id in a table of its own, and a stream handler that, for a record of the wallet,
 *   reads the wallet (`GetItem`), queries its subscribers and posts `{ balance }` to each, 32 in
 *   flight, on the same management API client.
 */
import {
  ApiGatewayManagementApiClient,
  PostToConnectionCommand,
} from '@aws-sdk/client-apigatewaymanagementapi';
import {
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
} from '@aws-sdk/client-dynamodb';
import { DynamoStore, SqsQueue } from '@baton/aws';
import { LocalWebSocketGateway } from '@baton/aws/local';
import { type ReactiveOptions, streamHandler, websocketHandler } from '@baton/aws/websocket';
import { silentLogger } from '@baton/core';
import { inPool, serve } from '../parts.ts';
import { Wallet } from './actors.ts';
import { walletBalance } from './propagation.ts';
import { type Endpoints, sdkClients } from './target.ts';

/** Posts in flight per stream invocation: Baton's default `push.concurrency`, on both sides. */
export const CONCURRENCY = 32;

export interface SideConfig {
  readonly side: 'baton' | 'push';
  readonly endpoints: Endpoints | undefined;
  readonly tableName: string;
  /** Baton's connections table. */
  readonly connectionsTable: string;
  /** The hand-written app's table of subscribers. */
  readonly pushTable: string;
  readonly queueUrl: string;
  readonly walletId: string;
}

/** A DynamoDB stream event, as the Lambda gets it. */
export type StreamEvent = Parameters<ReturnType<typeof streamHandler>>[0];

/** The side's stream Lambda. */
let onStream: ((event: StreamEvent) => Promise<unknown>) | undefined;
let posts = 0;
let subscribed = 0;

const methods = {
  /** Starts the side's gateway and handlers; resolves with the gateway's WebSocket URL. */
  async start(config: SideConfig): Promise<string> {
    const { dynamodb, sqs } = sdkClients(config.endpoints);
    let handler: ReturnType<typeof websocketHandler> | undefined;
    const gateway = await LocalWebSocketGateway.start({
      handler: (event) => handler!(event),
      // API Gateway's account limit, which neither side comes near on this machine.
      postLimit: { perSecond: 10_000, burst: 5_000 },
    });
    const management = counted(managementClient(gateway.managementEndpoint));
    if (config.side === 'baton') {
      const reactive: ReactiveOptions = {
        actors: [Wallet],
        queries: [walletBalance],
        store: new DynamoStore({ client: dynamodb, tableName: config.tableName }),
        dynamodb,
        connectionsTable: config.connectionsTable,
        endpoint: gateway.managementEndpoint,
        managementClient: () => management,
        logger: silentLogger,
      };
      const queue = new SqsQueue({ client: sqs, queueUrl: config.queueUrl });
      handler = websocketHandler({ ...reactive, queue });
      onStream = streamHandler(reactive);
    } else {
      handler = async (event) => {
        const { routeKey, connectionId } = event.requestContext;
        if (routeKey === '$default') {
          const { wallet } = JSON.parse(event.body ?? '{}') as { wallet: string };
          const Item = { pk: { S: wallet }, sk: { S: connectionId } };
          await dynamodb.send(new PutItemCommand({ TableName: config.pushTable, Item }));
          subscribed++;
        }
        return { statusCode: 200 };
      };
      onStream = handWrittenStream(dynamodb, management, config);
    }
    return gateway.url;
  },
  /** Runs the side's stream Lambda on `event`. */
  async stream(event: StreamEvent): Promise<void> {
    await onStream!(event);
  },
  /** `PostToConnection` calls so far. */
  posts: () => posts,
  /** Connections the hand-written `$default` handler registered so far. */
  subscribed: () => subscribed,
};

export type SideMethods = typeof methods;

serve(methods);

/** The hand-written stream Lambda: on the wallet's record, post its balance to every subscriber. */
function handWrittenStream(
  dynamodb: DynamoDBClient,
  management: ApiGatewayManagementApiClient,
  { tableName, pushTable, walletId }: SideConfig,
) {
  return async (event: StreamEvent) => {
    const changed = event.Records.some(({ dynamodb: image }) => {
      return image?.Keys?.pk?.S === `A#${walletId}` && image.Keys.sk?.S === 'R';
    });
    if (!changed) return;
    const { Item } = await dynamodb.send(
      new GetItemCommand({
        TableName: tableName,
        Key: { pk: { S: `A#${walletId}` }, sk: { S: 'R' } },
        ConsistentRead: true,
      }),
    );
    const { balance } = JSON.parse(Item?.state?.S ?? '{}') as { balance: number };
    const connections = await subscribersOf(dynamodb, pushTable, walletId);
    const Data = JSON.stringify({ balance });
    await inPool(connections, CONCURRENCY, (ConnectionId) =>
      management.send(new PostToConnectionCommand({ ConnectionId, Data })),
    );
  };
}

async function subscribersOf(client: DynamoDBClient, TableName: string, wallet: string) {
  const ids: string[] = [];
  let ExclusiveStartKey: Record<string, { S: string }> | undefined;
  do {
    const page = await client.send(
      new QueryCommand({
        TableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: wallet } },
        ...(ExclusiveStartKey ? { ExclusiveStartKey } : {}),
      }),
    );
    for (const item of page.Items ?? []) ids.push(item.sk!.S!);
    ExclusiveStartKey = page.LastEvaluatedKey as typeof ExclusiveStartKey;
  } while (ExclusiveStartKey);
  return ids;
}

/** The gateways are local whatever the target: their management API takes any credentials. */
function managementClient(endpoint: string) {
  return new ApiGatewayManagementApiClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

/** `client`, counting its `PostToConnection` calls. */
function counted(client: ApiGatewayManagementApiClient) {
  client.middlewareStack.add(
    (next) => (args) => {
      posts++;
      return next(args);
    },
    { step: 'initialize', name: 'benchCountPosts' },
  );
  return client;
}
