/**
 * The IAM actions the reactive parts declare (`BATON_IAM.websocket`, `.stream`,
 * `.connectionSweeper`) are exactly the ones they call: the local WebSocket stack runs on
 * DynamoDB Local and ElasticMQ with each handler on recording clients of its own.
 */
import { randomUUID } from 'node:crypto';
import { ApiGatewayManagementApiClient } from '@aws-sdk/client-apigatewaymanagementapi';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { BATON_IAM, type IamResource } from '@baton/aws';
import { query } from '@baton/core';
import { describe, expect, inject, it } from 'vitest';
import * as z from 'zod';
import { TestSocket } from '../../packages/server/src/ws/fixtures/TestSocket.ts';
import { asDeclared, declared, record } from './fixtures/iamRecording.ts';
import { Account } from './fixtures/openAccount.ts';
import { startWebSocketStack, until } from './fixtures/webSocketStack.ts';

/** Account `account`'s balance and, once it is positive, `also`'s: its reads grow. */
const watch = query({
  name: 'watch',
  public: true,
  args: z.object({ account: z.string(), also: z.string() }),
  handler: async (ctx, { account, also }) => {
    const { balance } = await ctx.get(Account.ref(account));
    return { balance, also: balance > 0 ? (await ctx.get(Account.ref(also))).balance : null };
  },
});

describe('the IAM actions the reactive parts declare', () => {
  it('are exactly those the WebSocket handler, the stream handler and the connection sweeper call', async () => {
    const endpoints = {
      dynamodbEndpoint: inject('dynamodbEndpoint'),
      sqsEndpoint: inject('sqsEndpoint'),
    };
    const calls = {
      websocket: new Set<string>(),
      stream: new Set<string>(),
      connectionSweeper: new Set<string>(),
    };
    const roles = new Map<string, IamResource>();
    let skewMs = 0;
    const stack = await startWebSocketStack(
      { now: () => Date.now() + skewMs },
      {
        worker: false,
        queries: [watch],
        // Each handler on clients of its own; the event sources (the stream's, the inbox's)
        // and the gateway keep the shared ones.
        clients: (handler) => {
          const dynamodb = new DynamoDBClient({ endpoint: endpoints.dynamodbEndpoint });
          const sqs = new SQSClient({ endpoint: endpoints.sqsEndpoint });
          record(dynamodb, calls[handler], roles);
          record(sqs, calls[handler]);
          const managementClient = (endpoint: string) => {
            const client = new ApiGatewayManagementApiClient({ endpoint });
            record(client, calls[handler]);
            return client;
          };
          return { dynamodb, sqs, managementClient };
        },
      },
    );
    roles.set(stack.connectionsTable, 'connections');
    try {
      const account = (name: string) => `iam-${name}-${randomUUID().slice(0, 8)}`;
      const [a, b, c] = [account('a'), account('b'), account('c')];
      const deposit = (requestId: string, amount: number) =>
        ({
          v: 1,
          requestId,
          to: Account.ref(a).id,
          name: 'deposit',
          payload: { amount },
          idempotencyKey: `${a}-${requestId}`,
        }) as const;

      // $connect with a token; a subscription whose query reads `b` too once `a` is funded.
      const alice = await TestSocket.open(stack.gateway.url, { query: '?token=alice' });
      alice.send({
        v: 1,
        type: 'subscribe',
        id: 's1',
        query: 'watch',
        args: { account: a, also: b },
      });
      expect(await alice.answer('s1', 15_000)).toMatchObject({ value: { balance: 0, also: null } });
      // A second subscriber of the same instance: the stream handler's fan-out reads both
      // connections in one call.
      const carol = await TestSocket.open(stack.gateway.url, { query: '?token=carol' });
      carol.send({
        v: 1,
        type: 'subscribe',
        id: 's1',
        query: 'watch',
        args: { account: a, also: b },
      });
      await carol.answer('s1', 15_000);

      // A send, a visible send and an ask, accepted before the worker runs: the stream handler
      // pushes the new result and answers the two that wait.
      alice.send({ ...deposit('r1', 5), type: 'send' });
      alice.send({ ...deposit('r2', 2), type: 'send', visible: true });
      alice.send({ ...deposit('r3', 1), type: 'ask' });
      for (const id of ['r1', 'r2', 'r3']) {
        await alice.next('accepted', (frame) => frame.requestId === id, 15_000);
      }
      stack.startWorker();
      expect(await alice.next('reply', (frame) => frame.requestId === 'r3', 30_000)).toMatchObject({
        value: 8,
      });
      await alice.next('visible', (frame) => frame.requestId === 'r2', 30_000);
      await until(() => {
        const pushed = alice.values.get('s1') as { balance: number; also: number | null };
        return pushed.balance === 8 && pushed.also === 0;
      }, 'the pushed result');

      // Unsubscribe, then $disconnect; another connection's lease lapses and it is swept.
      alice.send({ v: 1, type: 'unsubscribe', id: 's1' });
      const bob = await TestSocket.open(stack.gateway.url, { query: '?token=bob' });
      bob.send({ v: 1, type: 'subscribe', id: 's1', query: 'balance', args: { account: c } });
      await bob.answer('s1', 15_000);
      alice.close();
      carol.close();
      await until(async () => {
        const items = await stack.registryItems();
        const connections = new Set(items.filter((i) => i.pk.startsWith('C#')).map((i) => i.pk));
        return connections.size === 1 && !items.some((i) => i.pk === `D#${Account.ref(a).id}`);
      }, 'only bob left in the registry');
      skewMs = 11 * 60_000;
      expect(await stack.sweep()).toEqual({ removed: 1 });
      await bob.closed;
      await until(async () => (await stack.registryItems()).length === 0, 'an empty registry');
      expect(stack.errors).toEqual([]);
    } finally {
      await stack.stop();
    }

    expect(asDeclared(calls.websocket, 'websocket')).toEqual(declared('websocket'));
    // The stream's own reads are its event source mapping's, not the handler's.
    expect(asDeclared(calls.stream, 'stream', 'tableStream')).toEqual(
      declared('stream', 'tableStream'),
    );
    expect(asDeclared(calls.connectionSweeper, 'connectionSweeper')).toEqual(
      declared('connectionSweeper'),
    );
    const mapping = BATON_IAM.stream.filter((s) => s.resources.some((r) => r === 'tableStream'));
    expect(mapping.flatMap((s) => [...s.actions]).sort()).toEqual([
      'dynamodb:DescribeStream',
      'dynamodb:GetRecords',
      'dynamodb:GetShardIterator',
      'dynamodb:ListStreams',
    ]);
  }, 120_000);
});
