/**
 * The local WebSocket host on the AWS backend: DynamoStore + SqsQueue for commits and ingress,
 * DynamoStreamFeed for change detection, a worker draining SQS through Lambda's event source
 * run locally. One client's live query follows another client's send.
 */
import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { DeleteQueueCommand } from '@aws-sdk/client-sqs';
import { createAwsClients, createFifoQueue, createTable, DynamoStore, SqsQueue } from '@baton/aws';
import { workerHandler } from '@baton/aws/lambda';
import { LocalSqsEventSource } from '@baton/aws/local';
import { createStreamClients, DynamoStreamFeed } from '@baton/aws/websocket';
import { BatonClient, type QueryState } from '@baton/client';
import { query, silentLogger } from '@baton/core';
import { createLocalServer, type LocalServer } from '@baton/server/ws';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import * as z from 'zod';
import { Account } from './fixtures/openAccount.ts';

const balance = query({
  name: 'balance',
  public: true,
  args: z.object({ account: z.string() }),
  handler: async (ctx, { account }) => (await ctx.get(Account.ref(account))).balance,
});

describe('the local WebSocket host on DynamoDB Local and ElasticMQ', () => {
  const clients = createAwsClients({
    dynamodbEndpoint: inject('dynamodbEndpoint'),
    sqsEndpoint: inject('sqsEndpoint'),
  });
  const name = `ws-aws-${randomUUID().slice(0, 8)}`;
  let queueUrls: string[] = [];
  let feed: DynamoStreamFeed;
  let worker: LocalSqsEventSource;
  let server: LocalServer;
  const browsers: BatonClient[] = [];

  beforeAll(async () => {
    const [, made] = await Promise.all([
      createTable(clients.dynamodb, name),
      createFifoQueue(clients.sqs, name, { visibilityTimeoutMs: 5_000 }),
    ]);
    queueUrls = [made.queueUrl, made.deadLetterQueueUrl];
    const store = new DynamoStore({ client: clients.dynamodb, tableName: name });
    const queue = new SqsQueue({ client: clients.sqs, queueUrl: made.queueUrl });
    feed = new DynamoStreamFeed({
      clients: createStreamClients({ dynamodbEndpoint: inject('dynamodbEndpoint') }),
      tableName: name,
      pollMs: 50,
    });
    await feed.start();
    worker = new LocalSqsEventSource({
      client: clients.sqs,
      queueUrl: made.queueUrl,
      waitSeconds: 1,
      handler: workerHandler({ actors: [Account], store, queue, logger: silentLogger }),
    });
    worker.start();
    server = await createLocalServer({
      actors: [Account],
      queries: [balance],
      backend: { store, queue, feed },
      logger: silentLogger,
    });
  });

  afterAll(async () => {
    for (const browser of browsers) browser.close();
    await server?.close();
    await worker?.stop();
    await feed?.stop();
    await Promise.all([
      clients.dynamodb.send(new DeleteTableCommand({ TableName: name })),
      ...queueUrls.map((QueueUrl) => clients.sqs.send(new DeleteQueueCommand({ QueueUrl }))),
    ]);
  });

  function connect(): BatonClient {
    const browser = new BatonClient({ url: server.url, WebSocket });
    browsers.push(browser);
    return browser;
  }

  it("shows one client's deposit in another client's live query", async () => {
    const watcher = connect();
    const sender = connect();
    const states: QueryState<number>[] = [];
    watcher.subscribe(balance, { account: 'alice' }, (state) => states.push(state));
    await vi.waitFor(() => expect(states.at(-1)).toMatchObject({ status: 'success', data: 0 }), {
      timeout: 20_000,
      interval: 50,
    });

    await sender.send(Account.ref('alice'), 'deposit', { amount: 25 }, { visible: true });
    await vi.waitFor(() => expect(states.at(-1)?.data).toBe(25), { timeout: 20_000, interval: 50 });
    await sender.send(Account.ref('alice'), 'deposit', { amount: 5 });
    await vi.waitFor(() => expect(states.at(-1)?.data).toBe(30), { timeout: 20_000, interval: 50 });
    // Only results the store held, in order: nothing from before a commit after it.
    const data = states.filter((s) => s.status === 'success').map((s) => s.data);
    expect(data).toEqual([...new Set(data)].sort((a, b) => (a ?? 0) - (b ?? 0)));
    expect(data).toEqual(expect.arrayContaining([0, 25, 30]));
  });
});
