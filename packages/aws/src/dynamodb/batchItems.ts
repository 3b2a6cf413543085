/**
 * Batch reads, puts and deletes by key on one table: split into DynamoDB's per-call limits, with what
 * a call leaves unprocessed (its partial answer under throttling) sent again, backing off.
 * Failures come back as UNAVAILABLE, named after the caller's `operation`.
 */

import { setTimeout as sleep } from 'node:timers/promises';
import type { DynamoDBClient, WriteRequest } from '@aws-sdk/client-dynamodb';
import { unavailable } from '../internal/unavailable.ts';
import { BatchGetItemCommand, BatchWriteItemCommand } from '../sdk.ts';
import type { Item } from './itemCodec.ts';

/** Deletes per BatchWriteItem call (DynamoDB's limit). */
export const BATCH_WRITE_MAX = 25;
/** Keys per BatchGetItem call (DynamoDB's limit). */
export const BATCH_GET_MAX = 100;
export const BATCH_RETRIES = 8;

/** Deletes the items with these keys (`BatchWriteItem`); absent ones are no error. */
export function batchDeleteItems(
  client: DynamoDBClient,
  tableName: string,
  operation: string,
  keys: readonly Item[],
): Promise<void> {
  const requests = keys.map((Key) => ({ DeleteRequest: { Key } }));
  return batchWriteItems(client, tableName, operation, requests);
}

/** Puts these items (`BatchWriteItem`), unconditionally. */
export function batchPutItems(
  client: DynamoDBClient,
  tableName: string,
  operation: string,
  items: readonly Item[],
): Promise<void> {
  const requests = items.map((Item) => ({ PutRequest: { Item } }));
  return batchWriteItems(client, tableName, operation, requests);
}

/** Writes these requests, {@link BATCH_WRITE_MAX} a call, sending again what a call leaves. */
async function batchWriteItems(
  client: DynamoDBClient,
  tableName: string,
  operation: string,
  requests: readonly WriteRequest[],
): Promise<void> {
  for (let i = 0; i < requests.length; i += BATCH_WRITE_MAX) {
    await untilProcessed(operation, requests.slice(i, i + BATCH_WRITE_MAX), async (pending) => {
      const result = await client.send(
        new BatchWriteItemCommand({ RequestItems: { [tableName]: pending } }),
      );
      return result.UnprocessedItems?.[tableName] ?? [];
    });
  }
}

/**
 * The items found under these keys (`BatchGetItem`, consistent), in no particular order. The
 * calls of many keys (a long workflow history's pages) go {@link BATCH_GETS_AT_ONCE} at a time.
 */
export async function batchGetItems(
  client: DynamoDBClient,
  tableName: string,
  operation: string,
  keys: readonly Item[],
): Promise<Item[]> {
  const chunks: Item[][] = [];
  for (let i = 0; i < keys.length; i += BATCH_GET_MAX)
    chunks.push(keys.slice(i, i + BATCH_GET_MAX));
  const found: Item[] = [];
  const read = async (chunk: Item[]) =>
    untilProcessed(operation, chunk, async (Keys) => {
      const result = await client.send(
        new BatchGetItemCommand({
          RequestItems: { [tableName]: { Keys, ConsistentRead: true } },
        }),
      );
      found.push(...(result.Responses?.[tableName] ?? []));
      return result.UnprocessedKeys?.[tableName]?.Keys ?? [];
    });
  let next = 0;
  const lane = async () => {
    while (next < chunks.length) await read(chunks[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(BATCH_GETS_AT_ONCE, chunks.length) }, lane));
  return found;
}

/** BatchGetItem calls of one read in flight at once. */
const BATCH_GETS_AT_ONCE = 8;

/**
 * Calls `call` with `requests`, then again with what it returns as unprocessed, backing off,
 * until nothing is left.
 */
async function untilProcessed<T>(
  operation: string,
  requests: readonly T[],
  call: (requests: T[]) => Promise<T[]>,
): Promise<void> {
  let pending = [...requests];
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt > BATCH_RETRIES) {
      const stuck = new Error(
        `${pending.length} requests stayed unprocessed after ${BATCH_RETRIES} retries`,
      );
      throw unavailable('DynamoDB', operation, stuck, true);
    }
    if (attempt > 0) await sleep(Math.min(2_000, 25 * 2 ** attempt));
    try {
      pending = await call(pending);
    } catch (error) {
      throw unavailable('DynamoDB', operation, error);
    }
  }
}
