import { type DynamoDBClient, ScanCommand, type ScanCommandOutput } from '@aws-sdk/client-dynamodb';
import { unavailable } from '../internal/unavailable.ts';
import type { Item } from './itemCodec.ts';
import { Attr, actorIdOf, RECORD_SK } from './tableLayout.ts';

/** What {@link listPausedActors} found. */
export interface PausedActors {
  /** The paused actors it came upon, with who paused each and when (epoch ms), in table order. */
  readonly actors: ReadonlyArray<{ readonly id: string; readonly at: number; readonly by: string }>;
  /** Whether it read the whole table: `false` when it stopped at `maxItems`. */
  readonly complete: boolean;
}

/**
 * The actors an operator holds paused (`pauseActor`), for operators (`baton status`). No index
 * finds them (a pause is a field of the record), so it scans the table, reading at most
 * `maxItems` items of every kind: a tool's call, never a handler's.
 *
 * @example
 * const { actors, complete } = await listPausedActors(dynamodb, 'bank-actors', { maxItems: 10_000 });
 */
export async function listPausedActors(
  client: DynamoDBClient,
  tableName: string,
  { maxItems }: { readonly maxItems: number },
): Promise<PausedActors> {
  const actors: Array<{ id: string; at: number; by: string }> = [];
  let scanned = 0;
  let next: Item | undefined;
  do {
    let page: ScanCommandOutput;
    try {
      page = await client.send(
        new ScanCommand({
          TableName: tableName,
          FilterExpression: '#sk = :record AND attribute_exists(#paused)',
          ProjectionExpression: '#pk, #paused',
          ExpressionAttributeNames: { '#pk': Attr.pk, '#sk': Attr.sk, '#paused': Attr.paused },
          ExpressionAttributeValues: { ':record': { S: RECORD_SK } },
          // Limit counts the items read, not those that match: it bounds the scan.
          Limit: maxItems - scanned,
          ...(next ? { ExclusiveStartKey: next } : {}),
        }),
      );
    } catch (error) {
      throw unavailable('DynamoDB', 'Scan (listPausedActors)', error);
    }
    for (const item of page.Items ?? []) {
      const paused = JSON.parse(item[Attr.paused]?.S ?? '{}') as { at?: number; by?: string };
      actors.push({
        id: actorIdOf(item[Attr.pk]?.S ?? ''),
        at: paused.at ?? 0,
        by: paused.by ?? '',
      });
    }
    scanned += page.ScannedCount ?? 0;
    next = page.LastEvaluatedKey;
  } while (next && scanned < maxItems);
  return { actors, complete: next === undefined };
}
