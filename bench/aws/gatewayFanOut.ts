/**
 * 4f. Fan-out on the production path: API Gateway's WebSocket API (emulated on loopback by
 * `LocalWebSocketGateway`) and the Lambda on the table's DynamoDB stream (fed by
 * `LocalStreamEventSource`), against a hand-written app on the same parts. One wallet, N
 * connections with one subscription each (as N browsers), one writer depositing.
 *
 * - Candidate: Baton's `websocketHandler` behind one gateway and its `streamHandler` on the
 *   stream; N `BatonClient`s subscribed to a query reading the wallet. The stream handler finds
 *   the query's instance in the connections table, re-runs it once and posts the result to
 *   every subscriber (`PostToConnection`, `push.concurrency` 32 in flight).
 * - Baseline: what a user writes without Baton: a `$default` handler that puts each subscriber's
 *   connection id in a table of its own, and a stream handler that, for a record of the wallet,
 *   reads the wallet (`GetItem`), queries its subscribers and posts `{ balance }` to each, 32 in
 *   flight, on the same management API client; N plain `ws` sockets.
 *
 * Both sides are set up once, with the stream's records going to one side at a time. Figure: time
 * from the commit until every connection has the new balance.
 */
import { randomUUID } from 'node:crypto';
import {
  ApiGatewayManagementApiClient,
  PostToConnectionCommand,
} from '@aws-sdk/client-apigatewaymanagementapi';
import {
  CreateTableCommand,
  DeleteTableCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
} from '@aws-sdk/client-dynamodb';
import { createConnectionsTable, DynamoStore, SqsQueue } from '@baton/aws';
import { LocalStreamEventSource, LocalWebSocketGateway } from '@baton/aws/local';
import { type ReactiveOptions, streamHandler, websocketHandler } from '@baton/aws/websocket';
import { BatonClient } from '@baton/client';
import { silentLogger } from '@baton/core';
import { createEngine, runTurn } from '@baton/core/engine';
import { WebSocket } from 'ws';
import type { Sample } from '../measure.ts';
import type { Row } from '../report.ts';
import { ingress, Wallet } from './actors.ts';
import { STREAM_POLL_MS } from './backends.ts';
import { walletBalance } from './propagation.ts';
import { comparePushes, pushRow } from './pushComparison.ts';
import type { Target } from './target.ts';

/** Posts in flight per stream invocation: Baton's default `push.concurrency`, on both sides. */
const CONCURRENCY = 32;
/** Connections opening at once while the bench sets up. */
const OPENING = 20;

export interface GatewayFanOutOptions {
  readonly target: Target;
  /** Connections, one subscription each. */
  readonly subscribers: number;
  /** Changes per round. */
  readonly changes: number;
  readonly rounds: number;
  readonly warmup: number;
  readonly budget?: number;
  readonly log: (line: string) => void;
}

type Side = 'baton' | 'push';

export async function gatewayFanOut(options: GatewayFanOutOptions): Promise<Row> {
  const { target, subscribers, log } = options;
  const stack = await openStack(target, subscribers);
  try {
    const round = (side: Side) => () => stack.measure(side, options.changes);
    const compared = await comparePushes(round, options.rounds, options.warmup);
    const n = subscribers.toLocaleString('en-US');
    log(
      `  ${compared.summary} from commit to all ${n} connections ` +
        `(${options.changes} changes × ${options.rounds} rounds per side)`,
    );
    log(`  PostToConnection calls per change: ${stack.postsPerChange()} (on either side)`);
    const bench = `4f. fan-out to ${n} connections through API Gateway (local gateway, ${target.label})`;
    return pushRow(bench, compared, options.budget);
  } finally {
    await stack.close();
  }
}

/** Both apps on one table and its stream, each behind its own gateway. */
async function openStack(target: Target, subscribers: number) {
  const [tableName, { queueUrl }] = await Promise.all([
    target.table('gwfan'),
    target.queue('gwfan'),
  ]);
  const { dynamodb, sqs } = target.clients();
  const connectionsTable = `${tableName}-connections`;
  const pushTable = `${tableName}-push`;
  await Promise.all([
    createConnectionsTable(dynamodb, connectionsTable),
    createSubscribersTable(dynamodb, pushTable),
  ]);
  const store = new DynamoStore({ client: dynamodb, tableName });
  const queue = new SqsQueue({ client: sqs, queueUrl });
  const key = `w-${randomUUID().slice(0, 8)}`;
  const walletId = Wallet.ref(key).id;
  const writer = createEngine({ actors: [Wallet], store, queue, logger: silentLogger });
  let deposits = 0;
  const deposit = async () => {
    deposits++;
    const envelope = ingress(`dep-${key}-${deposits}`, walletId, 'deposit', { amount: 1 });
    await runTurn(writer, walletId, [{ envelope, queueSeq: String(deposits) }]);
    return deposits;
  };
  // The gateways are local whatever the target: their management API takes any credentials.
  const management = (endpoint: string) =>
    new ApiGatewayManagementApiClient({
      endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
  let posts = 0;
  let changes = 0;

  // Baton's app.
  let batonHandler: ReturnType<typeof websocketHandler> | undefined;
  const batonGateway = await LocalWebSocketGateway.start({ handler: (e) => batonHandler!(e) });
  const reactive: ReactiveOptions = {
    actors: [Wallet],
    queries: [walletBalance],
    store,
    dynamodb,
    connectionsTable,
    endpoint: batonGateway.managementEndpoint,
    managementClient: (endpoint) => counted(management(endpoint), () => posts++),
    logger: silentLogger,
  };
  batonHandler = websocketHandler({ ...reactive, queue });
  const batonStream = streamHandler(reactive);

  // The hand-written app.
  const pushGateway = await LocalWebSocketGateway.start({
    handler: async (event) => {
      const { routeKey, connectionId } = event.requestContext;
      if (routeKey === '$default') {
        const { wallet } = JSON.parse(event.body ?? '{}') as { wallet: string };
        const Item = { pk: { S: wallet }, sk: { S: connectionId } };
        await dynamodb.send(new PutItemCommand({ TableName: pushTable, Item }));
        subscribed++;
      }
      return { statusCode: 200 };
    },
  });
  let subscribed = 0;
  const pushClient = counted(management(pushGateway.managementEndpoint), () => posts++);
  const pushStream = async (event: { Records: { dynamodb?: { Keys?: Keys } }[] }) => {
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
      pushClient.send(new PostToConnectionCommand({ ConnectionId, Data })),
    );
  };

  // One stream, its records to the side being measured.
  let active: Side = 'baton';
  const stream = new LocalStreamEventSource({
    dynamodb,
    streams: target.streamClients().streams,
    tableName,
    handler: async (event) => {
      if (active === 'baton') return batonStream(event);
      await pushStream(event);
    },
    pollMs: STREAM_POLL_MS,
  });
  await stream.start();

  const seen = { baton: new Subscribers(subscribers), push: new Subscribers(subscribers) };
  const clients: BatonClient[] = [];
  const sockets: WebSocket[] = [];
  await deposit();
  // Connected a few at a time, as a gateway's listen backlog would refuse a thousand at once.
  await inPool([...Array(subscribers).keys()], OPENING, async (i) => {
    const client = new BatonClient({ url: batonGateway.url, WebSocket });
    clients.push(client);
    await new Promise<void>((resolve) => {
      client.subscribe(walletBalance, { wallet: key }, (state) => {
        if (state.status !== 'success') return;
        seen.baton.saw(i, state.data as number);
        resolve();
      });
    });
    const socket = new WebSocket(pushGateway.url);
    sockets.push(socket);
    socket.on('message', (data) => {
      seen.push.saw(i, (JSON.parse(String(data)) as { balance: number }).balance);
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    socket.send(JSON.stringify({ wallet: walletId }));
  });
  while (subscribed < subscribers) await new Promise((r) => setTimeout(r, 10));
  posts = 0; // the subscriptions' first results are not a change's

  return {
    /** Commits `changes` deposits, each once every connection of `side` saw the last. */
    async measure(side: Side, count: number): Promise<Sample> {
      active = side;
      const latencies: number[] = [];
      for (let i = 0; i < count; i++) {
        const all = seen[side].expect(deposits + 1, 60_000);
        await deposit();
        const committed = performance.now();
        const at = await all;
        latencies.push(Math.max(0, (at - committed) * 1e6));
        changes++;
      }
      return { ns: latencies.reduce((a, b) => a + b, 0), ops: count, latencies };
    },
    postsPerChange: () => (changes === 0 ? 0 : Math.round(posts / changes)),
    async close() {
      for (const client of clients) client.close();
      for (const socket of sockets) socket.close();
      await stream.stop();
      await Promise.all([batonGateway.close(), pushGateway.close()]);
      await Promise.allSettled(
        [connectionsTable, pushTable].map((TableName) =>
          dynamodb.send(new DeleteTableCommand({ TableName })),
        ),
      );
    },
  };
}

type Keys = { readonly pk?: { readonly S?: string }; readonly sk?: { readonly S?: string } };

/** The hand-written app's subscribers: connection ids by wallet. */
async function createSubscribersTable(client: DynamoDBClient, TableName: string): Promise<void> {
  await client.send(
    new CreateTableCommand({
      TableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
    }),
  );
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

/** Runs `work` on every item, at most `limit` at a time. */
async function inPool<T>(items: readonly T[], limit: number, work: (item: T) => Promise<unknown>) {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

/** `client`, calling `onPost` on each of its `PostToConnection` calls. */
function counted(client: ApiGatewayManagementApiClient, onPost: () => void) {
  client.middlewareStack.add(
    (next) => (args) => {
      onPost();
      return next(args);
    },
    { step: 'initialize', name: 'benchCountPosts' },
  );
  return client;
}

/** The newest value each connection saw; `expect` resolves once all hold one value. */
class Subscribers {
  readonly #latest: number[];
  #want = Number.NaN;
  #reached = 0;
  #resolve: ((at: number) => void) | undefined;

  constructor(count: number) {
    this.#latest = new Array<number>(count).fill(Number.NaN);
  }

  saw(index: number, value: number): void {
    const was = this.#latest[index];
    this.#latest[index] = value;
    if (value !== this.#want || was === this.#want) return;
    if (++this.#reached === this.#latest.length) this.#resolve?.(performance.now());
  }

  /** Resolves with `performance.now()` when every connection holds `value`. */
  expect(value: number, timeoutMs: number): Promise<number> {
    this.#want = value;
    this.#reached = this.#latest.filter((held) => held === value).length;
    return new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => {
        const missing = this.#latest.length - this.#reached;
        reject(new Error(`gateway fan-out: ${missing} connections never saw ${value}`));
      }, timeoutMs);
      this.#resolve = (at) => {
        clearTimeout(timer);
        this.#resolve = undefined;
        resolve(at);
      };
      if (this.#reached === this.#latest.length) this.#resolve(performance.now());
    });
  }
}
