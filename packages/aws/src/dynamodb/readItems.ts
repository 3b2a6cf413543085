/**
 * Consistent reads on one table: one item by key, and every page of a query. Failures come back
 * as UNAVAILABLE, named after the caller's `operation`.
 */
import type { DynamoDBClient, QueryCommandInput } from '@aws-sdk/client-dynamodb';
import { unavailable } from '../internal/unavailable.ts';
import { GetItemCommand, QueryCommand } from '../sdk.ts';
import { type Item, itemKey } from './itemCodec.ts';
import { itemPages } from './itemPages.ts';
import { Attr, actorPk, OUTBOX_INDEX } from './tableLayout.ts';

/** The item with key `pk` + `sk` (`GetItem`, consistent), or `undefined`. */
export async function getItem(
  client: DynamoDBClient,
  tableName: string,
  key: { readonly pk: string; readonly sk: string },
  operation: string,
): Promise<Item | undefined> {
  try {
    const result = await client.send(
      new GetItemCommand({
        TableName: tableName,
        Key: itemKey(key.pk, key.sk),
        ConsistentRead: true,
      }),
    );
    return result.Item;
  } catch (error) {
    throw unavailable('DynamoDB', operation, error);
  }
}

/** Every page of a query, or pages until `max` items. */
export async function queryItems(
  client: DynamoDBClient,
  input: QueryCommandInput,
  operation: string,
  max = Infinity,
): Promise<Item[]> {
  const items: Item[] = [];
  const pages = itemPages(
    (from) => client.send(new QueryCommand({ ...input, ...from })),
    operation,
  );
  for await (const page of pages) {
    items.push(...page);
    if (items.length >= max) break;
  }
  return items;
}

/** Every item of actor `actorId` whose sort key begins with `prefix` (a consistent query). */
export function queryActorItems(
  client: DynamoDBClient,
  tableName: string,
  actorId: string,
  prefix: string,
  operation: string,
): Promise<Item[]> {
  const input: QueryCommandInput = {
    TableName: tableName,
    KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
    ExpressionAttributeNames: { '#pk': Attr.pk, '#sk': Attr.sk },
    ExpressionAttributeValues: { ':pk': { S: actorPk(actorId) }, ':prefix': { S: prefix } },
    ConsistentRead: true,
  };
  return queryItems(client, input, operation);
}

/** What a query of one shard of the sparse index asks besides the shard (see {@link shardQuery}). */
export interface ShardQuery {
  /** A condition on the index's sort key, `#at`. */
  readonly at?: string;
  readonly names?: Record<string, string>;
  readonly values?: QueryCommandInput['ExpressionAttributeValues'];
  /** Further input: a limit, a projection, a count. */
  readonly input?: Partial<QueryCommandInput>;
}

/** The query of the sparse index's entries under shard key `shardKey`. */
export function shardQuery(
  tableName: string,
  shardKey: string,
  { at, names, values, input }: ShardQuery = {},
): QueryCommandInput {
  return {
    TableName: tableName,
    IndexName: OUTBOX_INDEX,
    KeyConditionExpression: at ? `#shard = :shard AND ${at}` : '#shard = :shard',
    // DynamoDB refuses a name the query does not use: `#at` only with its condition.
    ExpressionAttributeNames: { '#shard': Attr.obPk, ...(at && { '#at': Attr.obAt }), ...names },
    ExpressionAttributeValues: { ':shard': { S: shardKey }, ...values },
    ...input,
  };
}
