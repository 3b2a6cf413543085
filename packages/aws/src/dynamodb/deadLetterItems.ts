/**
 * Reading the dead letters kept as items (`A#<actorId>` / `D#<message id>`): one actor's by a
 * query of its partition, every actor's through the sparse outbox index, where each dead letter
 * has a key of its own shard (`DEAD#<shard>`) — and the proof a redrive leaves has none. Counting
 * them, which only the sweeper does, is in countDeadLetters.ts.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DeadLetter } from '@baton/core/adapter';
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

/** One actor's dead letters (the turns' part of `Store.listDeadLetters`). */
export async function listActorDeadLetters(
  table: DeadLettersTable,
  actorId: string,
): Promise<DeadLetter[]> {
  const { client, tableName } = table;
  const operation = 'Query (listDeadLetters)';
  return liveOldestFirst(
    await queryActorItems(client, tableName, actorId, DEAD_LETTER_SK_PREFIX, operation),
  );
}

/** See `Store.listDeadLetters`: oldest first, without the proofs redrives left. */
export async function listDeadLetters(
  table: DeadLettersTable,
  actorId?: string,
): Promise<DeadLetter[]> {
  if (actorId !== undefined) return listActorDeadLetters(table, actorId);
  const operation = 'Query (listDeadLetters)';
  const { client, tableName } = table;
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
  return liveOldestFirst(found.filter((item): item is Item => item !== undefined));
}

/** The dead letters of `items`, oldest first, without the proofs redrives left. */
function liveOldestFirst(items: Item[]): DeadLetter[] {
  return items
    .map(itemToDeadLetter)
    .filter((letter) => !letter.applied)
    .sort((a, b) => a.at - b.at);
}
