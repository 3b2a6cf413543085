/**
 * Reads of the sparse index across its shards that stop at a bound: for operators' tools
 * (`baton status`), which must not page a big table for minutes, nor read all it holds.
 */
import type { DynamoDBClient, QueryCommandInput } from '@aws-sdk/client-dynamodb';
import type { DeadLetter } from '@baton/core/adapter';
import { unavailable } from '../internal/unavailable.ts';
import { QueryCommand } from '../sdk.ts';
import type { DeadLettersTable } from './deadLetterItems.ts';
import { type Item, itemToDeadLetter } from './itemCodec.ts';
import { getItem, shardQuery } from './readItems.ts';
import { Attr, actorIdOf, deadLetterShardKey, outboxShardKey } from './tableLayout.ts';

/** What a bounded read found, and whether it read all there was (`false`: stopped at the bound). */
export interface Bounded<T> {
  readonly found: T;
  readonly complete: boolean;
}

/** One page of a query from `from` (its start when undefined): its items, and where the next starts. */
export type ReadPage<Q> = (
  query: Q,
  limit: number,
  from: Item | undefined,
) => Promise<{ readonly items: Item[]; readonly next: Item | undefined }>;

/**
 * The items of `queries` (one per shard, each read from its start), at most `maxItems` in all.
 * They are read side by side in rounds, each sharing what is left of the bound among the
 * queries with more to read, so a full shard gets what empty ones leave.
 */
export async function boundedReads<Q>(
  queries: readonly Q[],
  maxItems: number,
  readPage: ReadPage<Q>,
): Promise<Bounded<Item[]>> {
  const items: Item[] = [];
  let open = queries.map((query) => ({ query, from: undefined as Item | undefined }));
  while (open.length > 0 && items.length < maxItems) {
    const left = maxItems - items.length;
    // Fewer items left than queries: one each for the first, the rest wait for the next round.
    const round = open.slice(0, left);
    const share = Math.floor(left / round.length);
    const pages = await Promise.all(
      round.map(async ({ query, from }) => ({ query, ...(await readPage(query, share, from)) })),
    );
    for (const page of pages) items.push(...page.items);
    const more = pages.flatMap(({ query, next }) => (next ? [{ query, from: next }] : []));
    open = [...more, ...open.slice(round.length)];
  }
  return { found: items, complete: open.length === 0 };
}

/** {@link boundedReads} of DynamoDB queries; a failed one is UNAVAILABLE, naming `operation`. */
function boundedQueries(
  client: DynamoDBClient,
  queries: readonly QueryCommandInput[],
  maxItems: number,
  operation: string,
): Promise<Bounded<Item[]>> {
  return boundedReads(queries, maxItems, async (input, limit, from) => {
    try {
      const page = await client.send(
        new QueryCommand({ ...input, Limit: limit, ExclusiveStartKey: from }),
      );
      return { items: page.Items ?? [], next: page.LastEvaluatedKey };
    } catch (error) {
      throw unavailable('DynamoDB', operation, error);
    }
  });
}

/**
 * Every actor's dead letters (parked messages too), oldest first, as `Store.listDeadLetters`
 * reads them, from at most `maxItems` of the index's keys (each then read whole). Each shard
 * is read oldest first, so the oldest letter found is the oldest there is.
 */
export async function listDeadLettersBounded(
  table: DeadLettersTable,
  maxItems: number,
): Promise<Bounded<DeadLetter[]>> {
  const { client, tableName } = table;
  const shards = Array.from({ length: table.shards }, (_, shard) =>
    shardQuery(tableName, deadLetterShardKey(shard)),
  );
  const keys = await boundedQueries(client, shards, maxItems, 'Query (listDeadLetters)');
  const found = await Promise.all(
    keys.found.map((key) => {
      const at = { pk: key[Attr.pk]?.S ?? '', sk: key[Attr.sk]?.S ?? '' };
      return getItem(client, tableName, at, 'GetItem (listDeadLetters)');
    }),
  );
  const letters = found
    .filter((item): item is Item => item !== undefined)
    .map(itemToDeadLetter)
    .filter((letter) => !letter.applied)
    .sort((a, b) => a.at - b.at);
  return { found: letters, complete: keys.complete };
}

/**
 * The actors with outbox items older than `olderThan`, as `Store.listOutboxActors` lists them,
 * from at most `maxItems` of the index's entries (an actor may have many). Each shard is read
 * oldest first, so those found are the actors waiting longest.
 */
export async function listOutboxActorsBounded(
  table: DeadLettersTable,
  olderThan: number,
  maxItems: number,
): Promise<Bounded<string[]>> {
  const shards = Array.from({ length: table.shards }, (_, shard) =>
    outboxQuery(table.tableName, shard, olderThan),
  );
  const read = await boundedQueries(table.client, shards, maxItems, 'Query (listOutboxActors)');
  return { found: byOldestEntry(read.found), complete: read.complete };
}

/** The query of one shard's outbox entries older than `olderThan`: their actor and time. */
export const outboxQuery = (tableName: string, shard: number, olderThan: number) =>
  shardQuery(tableName, outboxShardKey(shard), {
    at: '#at < :before',
    names: { '#pk': Attr.pk },
    values: { ':before': { N: String(olderThan) } },
    input: { ProjectionExpression: '#pk, #at' },
  });

/** The actors of outbox index entries, by their oldest entry's time, oldest first. */
export function byOldestEntry(items: readonly Item[]): string[] {
  const oldest = new Map<string, number>();
  for (const item of items) {
    const pk = item[Attr.pk]?.S;
    if (!pk) continue;
    const actorId = actorIdOf(pk);
    // The index's sort key: every entry has one.
    const at = Number(item[Attr.obAt]?.N);
    if (at < (oldest.get(actorId) ?? Infinity)) oldest.set(actorId, at);
  }
  return [...oldest].sort((a, b) => a[1] - b[1]).map(([actorId]) => actorId);
}
