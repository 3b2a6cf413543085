/**
 * Reading the dead letters kept as items (`A#<actorId>` / `D#<message id>`): one actor's by a
 * query of its partition, every actor's through the sparse outbox index, where each dead letter
 * has a key of its own shard (`DEAD#<shard>`) — and the proof a redrive leaves has none.
 */
import { type DynamoDBClient, QueryCommand } from '@aws-sdk/client-dynamodb';
import type { DeadLetter } from '@baton/core/adapter';
import { unavailable } from '../internal/unavailable.ts';
import { type Item, itemToDeadLetter } from './itemCodec.ts';
import { getItem, queryActorItems, queryItems, shardQuery } from './readItems.ts';
import {
  Attr,
  actorPk,
  DEAD_LETTER_SK_PREFIX,
  deadLetterShardKey,
  deadLetterSk,
} from './tableLayout.ts';

/** The table the dead letters are in, and how many index shards it spreads them over. */
export interface DeadLettersTable {
  readonly client: DynamoDBClient;
  readonly tableName: string;
  readonly shards: number;
}

/** See `Store.readDeadLetter`. */
export async function readDeadLetter(
  table: DeadLettersTable,
  actorId: string,
  messageId: string,
): Promise<DeadLetter | undefined> {
  const key = { pk: actorPk(actorId), sk: deadLetterSk(messageId) };
  const item = await getItem(table.client, table.tableName, key, 'GetItem (readDeadLetter)');
  return item && itemToDeadLetter(item);
}

/** See `Store.listDeadLetters`: oldest first, without the proofs redrives left. */
export async function listDeadLetters(
  table: DeadLettersTable,
  actorId?: string,
): Promise<DeadLetter[]> {
  const operation = 'Query (listDeadLetters)';
  const { client, tableName } = table;
  let items: Item[];
  if (actorId !== undefined) {
    items = await queryActorItems(client, tableName, actorId, DEAD_LETTER_SK_PREFIX, operation);
  } else {
    // The sparse index holds keys only: find every dead letter there, then read each.
    const shards = Array.from({ length: table.shards }, (_, shard) =>
      queryItems(client, shardQuery(tableName, deadLetterShardKey(shard)), operation),
    );
    const keys = (await Promise.all(shards)).flat();
    const found = await Promise.all(
      keys.map((key) => {
        const at = { pk: key[Attr.pk]?.S ?? '', sk: key[Attr.sk]?.S ?? '' };
        return getItem(client, tableName, at, 'GetItem (listDeadLetters)');
      }),
    );
    items = found.filter((item): item is Item => item !== undefined);
  }
  return items
    .map(itemToDeadLetter)
    .filter((letter) => !letter.applied)
    .sort((a, b) => a.at - b.at);
}

/**
 * See `Store.countDeadLetters`: the keys the sparse index holds under each shard's dead-letter
 * key, counted there (a redrive's proof has none), without reading a letter.
 */
export async function countDeadLetters(table: DeadLettersTable): Promise<number> {
  const { client, tableName } = table;
  const countShard = async (shard: number) => {
    let count = 0;
    let from: Item | undefined;
    do {
      const input = shardQuery(tableName, deadLetterShardKey(shard), {
        input: { Select: 'COUNT' },
      });
      let page: { Count?: number; LastEvaluatedKey?: Item };
      try {
        page = await client.send(new QueryCommand({ ...input, ExclusiveStartKey: from }));
      } catch (error) {
        throw unavailable('DynamoDB', 'Query (countDeadLetters)', error);
      }
      count += page.Count ?? 0;
      from = page.LastEvaluatedKey;
    } while (from);
    return count;
  };
  const counts = await Promise.all(Array.from({ length: table.shards }, (_, s) => countShard(s)));
  return counts.reduce((sum, n) => sum + n, 0);
}
