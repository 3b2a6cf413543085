import { type DynamoDBClient, ScanCommand, type ScanCommandOutput } from '@aws-sdk/client-dynamodb';
import type { FailingMessage } from '@baton/core/adapter';
import { unavailable } from '../internal/unavailable.ts';
import type { Item } from './itemCodec.ts';
import { Attr, actorIdOf, RECORD_SK } from './tableLayout.ts';

/** What {@link listFailingActors} found. */
export interface FailingActors {
  /** The actors it came upon whose inbox stops at a failing message, in table order. */
  readonly actors: ReadonlyArray<{ readonly id: string; readonly failing: FailingMessage }>;
  /** Whether it read the whole table: `false` when it stopped at `maxItems`. */
  readonly complete: boolean;
}

/**
 * The actors whose inbox stops at a message whose handler keeps failing (`ActorRecord.failing`):
 * the messages behind it in their queue wait. For operators (`baton backlog`). No index finds
 * them (it is a field of the record), so it scans the table, reading at most `maxItems` items of
 * every kind: a tool's call, never a handler's.
 *
 * @example
 * const { actors, complete } = await listFailingActors(dynamodb, 'bank-actors', { maxItems: 10_000 });
 */
export async function listFailingActors(
  client: DynamoDBClient,
  tableName: string,
  { maxItems }: { readonly maxItems: number },
): Promise<FailingActors> {
  const actors: Array<{ id: string; failing: FailingMessage }> = [];
  let scanned = 0;
  let next: Item | undefined;
  do {
    let page: ScanCommandOutput;
    try {
      page = await client.send(
        new ScanCommand({
          TableName: tableName,
          FilterExpression: '#sk = :record AND attribute_exists(#failing)',
          ProjectionExpression: '#pk, #failing',
          ExpressionAttributeNames: { '#pk': Attr.pk, '#sk': Attr.sk, '#failing': Attr.failing },
          ExpressionAttributeValues: { ':record': { S: RECORD_SK } },
          // Limit counts the items read, not those that match: it bounds the scan.
          Limit: maxItems - scanned,
          ...(next ? { ExclusiveStartKey: next } : {}),
        }),
      );
    } catch (error) {
      throw unavailable('DynamoDB', 'Scan (listFailingActors)', error);
    }
    for (const item of page.Items ?? []) {
      const text = item[Attr.failing]?.S;
      if (text === undefined) continue;
      actors.push({
        id: actorIdOf(item[Attr.pk]?.S ?? ''),
        failing: JSON.parse(text) as FailingMessage,
      });
    }
    scanned += page.ScannedCount ?? 0;
    next = page.LastEvaluatedKey;
  } while (next && scanned < maxItems);
  return { actors, complete: next === undefined };
}
