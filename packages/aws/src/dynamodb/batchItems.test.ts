import { randomUUID } from 'node:crypto';
import { DeleteTableCommand, DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { ErrorCode } from '@baton/core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createAwsClients } from '../createAwsClients.ts';
import { BATCH_GET_MAX, BATCH_RETRIES, batchDeleteItems, batchGetItems } from './batchItems.ts';
import { createTable } from './createTable.ts';
import type { Item } from './itemCodec.ts';
import { Attr } from './tableLayout.ts';

const { dynamodb } = createAwsClients({ dynamodbEndpoint: inject('dynamodbEndpoint') });
const tableName = `baton-batch-${randomUUID().slice(0, 8)}`;

beforeAll(() => createTable(dynamodb, tableName));
afterAll(() => dynamodb.send(new DeleteTableCommand({ TableName: tableName })));

/** `count` keys under a fresh partition. */
function keysOf(count: number): Item[] {
  const pk = `A#${randomUUID()}`;
  return Array.from({ length: count }, (_, i) => ({
    [Attr.pk]: { S: pk },
    [Attr.sk]: { S: `K#${i}` },
  }));
}

async function put(keys: readonly Item[]): Promise<void> {
  await Promise.all(
    keys.map((Item) => dynamodb.send(new PutItemCommand({ TableName: tableName, Item }))),
  );
}

const sks = (items: readonly Item[]) => items.map((item) => item[Attr.sk]?.S).sort();

/**
 * A client on DynamoDB Local that, like DynamoDB under throttling, holds back the second half
 * of each of its first `times` batch calls and answers it as unprocessed — with `holdAll`, it
 * sends the whole batch and still answers all of it as unprocessed. `sent` is the size of each
 * call's batch.
 */
function throttled(times: number, { holdAll = false } = {}) {
  // Its own client: createAwsClients shares one per endpoint, and this one gets a middleware.
  const client = new DynamoDBClient({ endpoint: inject('dynamodbEndpoint') });
  const sent: number[] = [];
  client.middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as { RequestItems: Record<string, { Keys: Item[] } | unknown[]> };
      const batch = input.RequestItems[tableName]!;
      const list: unknown[] = Array.isArray(batch) ? batch : batch.Keys;
      sent.push(list.length);
      const cut = sent.length <= times ? Math.ceil(list.length / 2) : list.length;
      const [kept, held] = holdAll ? [list, list] : [list.slice(0, cut), list.slice(cut)];
      const RequestItems = { [tableName]: Array.isArray(batch) ? kept : { ...batch, Keys: kept } };
      const result = await next({ ...args, input: { ...input, RequestItems } });
      if (held.length > 0) {
        Object.assign(
          result.output as object,
          Array.isArray(batch)
            ? { UnprocessedItems: { [tableName]: held } }
            : { UnprocessedKeys: { [tableName]: { Keys: held } } },
        );
      }
      return result;
    },
    { step: 'initialize' },
  );
  return { client, sent };
}

describe('batchItems', () => {
  it('reads and deletes more keys than one call takes, skipping absent ones', async () => {
    const keys = keysOf(BATCH_GET_MAX + 50);
    await put(keys.slice(0, 130));
    const found = await batchGetItems(dynamodb, tableName, 'test', keys);
    expect(sks(found)).toEqual(sks(keys.slice(0, 130)));
    await batchDeleteItems(dynamodb, tableName, 'test', keys);
    expect(await batchGetItems(dynamodb, tableName, 'test', keys)).toEqual([]);
  });

  it('resends what a call leaves unprocessed until nothing is left', async () => {
    const keys = keysOf(30);
    await put(keys);
    const reads = throttled(2);
    const found = await batchGetItems(reads.client, tableName, 'test', keys);
    expect(sks(found)).toEqual(sks(keys));
    expect(reads.sent).toEqual([30, 15, 7]);
    const deletes = throttled(2);
    await batchDeleteItems(deletes.client, tableName, 'test', keys);
    expect(deletes.sent).toEqual([25, 12, 6, 5]);
    expect(await batchGetItems(dynamodb, tableName, 'test', keys)).toEqual([]);
  });

  it(`gives up as retryable UNAVAILABLE after ${BATCH_RETRIES} retries`, async () => {
    const stuck = throttled(Number.POSITIVE_INFINITY, { holdAll: true });
    await expect(
      batchGetItems(stuck.client, tableName, 'BatchGetItem (test)', keysOf(3)),
    ).rejects.toMatchObject({
      code: ErrorCode.UNAVAILABLE,
      message: expect.stringMatching(/3 requests stayed unprocessed/),
      retryAfterMs: 1_000,
      details: { operation: 'BatchGetItem (test)' },
    });
    expect(stuck.sent).toEqual(Array(BATCH_RETRIES + 1).fill(3));
  }, 30_000);

  it('reports a failed call as UNAVAILABLE naming the operation', async () => {
    await expect(
      batchGetItems(dynamodb, `missing-${randomUUID()}`, 'BatchGetItem (test)', keysOf(1)),
    ).rejects.toMatchObject({
      code: ErrorCode.UNAVAILABLE,
      details: { operation: 'BatchGetItem (test)', awsError: 'ResourceNotFoundException' },
    });
  });
});
