/**
 * Live queries across an actor's lives on the API Gateway host (DynamoDB Local, its stream and
 * ElasticMQ): after `ctx.halt()` and the record's expiry, a new life counts its versions from 1
 * again, and a query that read the old life at a higher version must still be re-run.
 */
import { randomUUID } from 'node:crypto';
import { DeleteItemCommand } from '@aws-sdk/client-dynamodb';
import { createAwsClients } from '@baton/aws';
import { BatonClient } from '@baton/client';
import type { ActorRecord } from '@baton/core/adapter';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import WebSocket from 'ws';
import { Account } from './fixtures/openAccount.ts';
import {
  balance,
  startWebSocketStack,
  until,
  type WebSocketStack,
} from './fixtures/webSocketStack.ts';

const DAY = 24 * 60 * 60 * 1000;
let stack: WebSocketStack;

beforeAll(async () => {
  stack = await startWebSocketStack(undefined, { worker: false });
});

afterAll(async () => {
  await stack?.stop();
  expect(stack?.errors ?? []).toEqual([]);
});

/** A record of account `key` at `ver` of life `life`, as a turn writes it. */
function account(key: string, ver: number, life: string, balance: number): ActorRecord {
  const id = Account.ref(key).id;
  return {
    id,
    ver,
    life,
    state: { balance, closed: false },
    inboxOffset: '0',
    marks: {},
    sentSeq: 0,
  };
}

describe('a live query over an actor that starts a new life, on API Gateway and DynamoDB', () => {
  it('receives the new life’s result although the new life’s version is lower than the one it read', async () => {
    const key = `lives-${randomUUID().slice(0, 8)}`;
    const { store } = stack;
    // The old life: three commits, the last one a halt (initial state, an expiry a day away).
    for (const [ver, amount] of [
      [1, 10],
      [2, 30],
    ] as const) {
      await store.commit({
        expectedVer: ver - 1,
        record: account(key, ver, 'oldlife00001', amount),
        outbox: [],
        idempotency: [],
      });
    }
    const halted = { ...account(key, 3, 'oldlife00001', 0), expiresAt: Date.now() + DAY };
    await store.commit({ expectedVer: 2, record: halted, outbox: [], idempotency: [] });

    const client = new BatonClient({ url: stack.gateway.url, WebSocket: WebSocket as never });
    try {
      client.subscribe(balance, { account: key }, () => {});
      await until(
        () => client.getQueryState(balance, { account: key }).status === 'success',
        'a first result',
      );
      expect(client.getQueryState(balance, { account: key }).data).toBe(0);

      // The halted record expires, DynamoDB's TTL deletes it, and the new life's first commit
      // writes version 1.
      const { dynamodb } = createAwsClients({ dynamodbEndpoint: inject('dynamodbEndpoint') });
      const Key = { pk: { S: `A#${Account.ref(key).id}` }, sk: { S: 'R' } };
      await dynamodb.send(new DeleteItemCommand({ TableName: store.tableName, Key }));
      const first = account(key, 1, 'newlife00001', 7);
      await store.commit({ expectedVer: 0, record: first, outbox: [], idempotency: [] });
      expect(await store.load(Account.ref(key).id)).toMatchObject({ ver: 1, life: 'newlife00001' });

      await until(
        () => client.getQueryState(balance, { account: key }).data === 7,
        'the new life’s balance',
      );
    } finally {
      client.close();
    }
  });
});
