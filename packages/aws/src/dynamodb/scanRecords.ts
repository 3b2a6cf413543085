import { type DynamoDBClient, ScanCommand, type ScanCommandOutput } from '@aws-sdk/client-dynamodb';
import { unavailable } from '../internal/unavailable.ts';
import type { Item } from './itemCodec.ts';
import { Attr, RECORD_SK } from './tableLayout.ts';

/** A scan of the table's actor records that {@link scanRecords} makes. */
export interface RecordScan {
  /** What the records must match besides being records, over `#pk`, `#sk` and `names`. */
  readonly filter: string;
  /** The attributes read, as `ProjectionExpression`. */
  readonly projection: string;
  readonly names?: Readonly<Record<string, string>>;
  readonly values?: Readonly<Record<string, { readonly S: string }>>;
  /** The most items read, of every kind: the scan stops there. */
  readonly maxItems: number;
  /** The operation named in a failure, e.g. `Scan (listPausedActors)`. */
  readonly operation: string;
}

/**
 * Scans the table for the actor records that match `scan.filter`, handing each to `onItem`, and
 * reading at most `scan.maxItems` items: for operators' tools, since no index finds a record by
 * a field of its own. Resolves whether it read the whole table (`false` when it stopped short).
 */
export async function scanRecords(
  client: DynamoDBClient,
  tableName: string,
  scan: RecordScan,
  onItem: (item: Item) => void,
): Promise<boolean> {
  let scanned = 0;
  let next: Item | undefined;
  do {
    let page: ScanCommandOutput;
    try {
      page = await client.send(
        new ScanCommand({
          TableName: tableName,
          FilterExpression: `#sk = :record AND (${scan.filter})`,
          ProjectionExpression: scan.projection,
          ExpressionAttributeNames: { '#pk': Attr.pk, '#sk': Attr.sk, ...scan.names },
          ExpressionAttributeValues: { ':record': { S: RECORD_SK }, ...scan.values },
          // Limit counts the items read, not those that match: it bounds the scan.
          Limit: scan.maxItems - scanned,
          ...(next ? { ExclusiveStartKey: next } : {}),
        }),
      );
    } catch (error) {
      throw unavailable('DynamoDB', scan.operation, error);
    }
    for (const item of page.Items ?? []) onItem(item);
    scanned += page.ScannedCount ?? 0;
    next = page.LastEvaluatedKey;
  } while (next && scanned < scan.maxItems);
  return next === undefined;
}
