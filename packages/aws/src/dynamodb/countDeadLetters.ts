/**
 * Counting the dead letters kept as items, for the sweeper's report: apart from
 * deadLetterItems.ts, so a worker's store, which never counts them, bundles none of it.
 */
import { QueryCommand } from '@aws-sdk/client-dynamodb';
import { unavailable } from '../internal/unavailable.ts';
import type { DeadLettersTable } from './deadLetterItems.ts';
import type { Item } from './itemCodec.ts';
import { shardQuery } from './readItems.ts';
import { deadLetterShardKey } from './tableLayout.ts';

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
