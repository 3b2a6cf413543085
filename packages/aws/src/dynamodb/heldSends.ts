/**
 * Retiring the sends an actor record holds, once the sweeper drained them: the record is
 * written again without them. A halted record went without its TTL while it held them (see
 * `recordToItem`), so that they were not deleted unsent; the same write gives it its TTL.
 */
import { type DynamoDBClient, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { awsErrorName, unavailable } from '../internal/unavailable.ts';
import { atVersion } from './commitItems.ts';
import { itemKey, ttlOf } from './itemCodec.ts';
import { Attr, actorPk, RECORD_SK } from './tableLayout.ts';

/** The table the records are in. */
export interface RecordsTable {
  readonly client: DynamoDBClient;
  readonly tableName: string;
}

/** See `Store.retireHeldOutbox`: one conditional `UpdateItem`. */
export async function retireHeldOutbox(
  table: RecordsTable,
  actorId: string,
  ver: number,
  life: string | undefined,
  expiresAt: number | undefined,
): Promise<void> {
  const at = atVersion(ver, life);
  const halted = expiresAt !== undefined;
  try {
    await table.client.send(
      new UpdateItemCommand({
        TableName: table.tableName,
        Key: itemKey(actorPk(actorId), RECORD_SK),
        UpdateExpression: `SET #ver = :next${halted ? ', #ttl = :ttl' : ''} REMOVE #outbox, #apart, #obPk, #obAt`,
        ConditionExpression: at.ConditionExpression,
        ExpressionAttributeNames: {
          ...at.ExpressionAttributeNames,
          '#outbox': Attr.outbox,
          '#apart': Attr.outboxApart,
          '#obPk': Attr.obPk,
          '#obAt': Attr.obAt,
          ...(halted && { '#ttl': Attr.ttl }),
        },
        ExpressionAttributeValues: {
          ...at.ExpressionAttributeValues,
          ':next': { N: String(ver + 1) },
          ...(halted && { ':ttl': { N: String(ttlOf(expiresAt)) } }),
        },
      }),
    );
  } catch (error) {
    // A commit replaced the record since: its sends are gone from it already.
    if (awsErrorName(error) === 'ConditionalCheckFailedException') return;
    throw unavailable('DynamoDB', 'UpdateItem (retireHeldOutbox)', error);
  }
}
