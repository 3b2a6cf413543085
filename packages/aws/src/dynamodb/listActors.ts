import { type DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { BatonError, ErrorCode } from '@baton/core';
import type { ActorRecord } from '@baton/core/adapter';
import { type Item, itemToRecord } from './itemCodec.ts';
import { itemPages } from './itemPages.ts';
import { Attr, actorPk, RECORD_SK } from './tableLayout.ts';

/** A page of {@link listActors}: the records, and where the next page starts (if any). */
export interface ActorPage {
  readonly records: readonly ActorRecord[];
  /** Pass it as `cursor` for the next page; absent on the last one. */
  readonly cursor?: string;
}

/**
 * The records of one actor type, a page at a time, for operators (`baton actors list`). It
 * scans the table — every item, not only the type's — so it is a tool's call, never a
 * handler's.
 *
 * @example
 * let page = await listActors(dynamodb, 'bank-actors', 'account', { limit: 50 });
 * while (page.cursor) page = await listActors(dynamodb, 'bank-actors', 'account', { cursor: page.cursor });
 */
export async function listActors(
  client: DynamoDBClient,
  tableName: string,
  type: string,
  options: {
    readonly limit?: number;
    readonly cursor?: string;
    /** Only the actors whose key starts with it (`baton inspect`'s search). */
    readonly keyPrefix?: string;
  } = {},
): Promise<ActorPage> {
  const limit = options.limit ?? 50;
  const records: ActorRecord[] = [];
  const start = options.cursor === undefined ? undefined : fromCursor(options.cursor);
  const pages = itemPages(
    (from) =>
      client.send(
        new ScanCommand({
          TableName: tableName,
          FilterExpression: 'begins_with(#pk, :prefix) AND #sk = :record',
          ExpressionAttributeNames: { '#pk': Attr.pk, '#sk': Attr.sk },
          ExpressionAttributeValues: {
            ':prefix': { S: actorPk(`${type}/${options.keyPrefix ?? ''}`) },
            ':record': { S: RECORD_SK },
          },
          Limit: Math.max(limit - records.length, 1) * 4,
          ...from,
        }),
      ),
    'Scan (listActors)',
    start,
  );
  for await (const items of pages) {
    for (const item of items) {
      records.push(itemToRecord(item));
      // A page ends on a record, so the next one starts right after it.
      if (records.length === limit) {
        const last = { [Attr.pk]: item[Attr.pk]!, [Attr.sk]: item[Attr.sk]! };
        return { records, cursor: Buffer.from(JSON.stringify(last)).toString('base64url') };
      }
    }
  }
  return { records };
}

/** The key a page's `cursor` names; INVALID_ARGUMENT for text no page returned. */
function fromCursor(cursor: string): Item {
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    key = undefined;
  }
  const { [Attr.pk]: pk, [Attr.sk]: sk } = (key ?? {}) as Item;
  if (typeof pk?.S !== 'string' || typeof sk?.S !== 'string') {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `"${cursor.slice(0, 40)}" is not a cursor a page of actors returned: pass the one the last page printed, unchanged`,
    );
  }
  return { [Attr.pk]: pk, [Attr.sk]: sk };
}
