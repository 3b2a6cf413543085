/**
 * The `TransactItems` of one commit: the actor record on its version condition (version and
 * life), the outbox
 * items, the idempotency records on "absent or expired", the outcome page (its outcomes on the
 * same condition), then replaced outcomes, dead letters,
 * overflow marks, timers, dead-letter deletes and timer deletes.
 */
import type { Put, TransactWriteItem } from '@aws-sdk/client-dynamodb';
import type { Clock, Commit } from '@baton/core/adapter';
import {
  deadLetterToItem,
  IF_ABSENT,
  type Item,
  idempotencyToItem,
  itemKey,
  outboxToItem,
  overflowToItem,
  recordToItem,
  timerToItem,
} from './itemCodec.ts';
import { pageWriteItem } from './outcomePages.ts';
import { Attr, actorPk, deadLetterSk, timerSk } from './tableLayout.ts';

/** Where a commit's items go and how they are laid out (a {@link DynamoStore}'s settings). */
export interface CommitTarget {
  readonly tableName: string;
  /** The outbox index shard count. */
  readonly shards: number;
  /** Decides whether a stored idempotency record has expired. */
  readonly clock: Clock;
  /** Put the outcome page whole when the write begins it (see `pageWriteItem`). */
  readonly wholePage: boolean;
}

/**
 * Keep the record first, then the outbox, then the conditional idempotency records:
 * {@link mapTransactionError} reads `CancellationReasons` by that order.
 */
export function commitItems(commit: Commit, target: CommitTarget): TransactWriteItem[] {
  const { record, expectedVer } = commit;
  const { tableName: TableName, shards, clock, wholePage } = target;
  const items: TransactWriteItem[] = [
    {
      Put: {
        TableName,
        Item: recordToItem(record, shards),
        ...(expectedVer === 0 ? IF_ABSENT : atVersion(expectedVer, record.life)),
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
  ];
  for (const item of commit.outbox) {
    items.push(putOf(TableName, outboxToItem(item, shards)));
  }
  for (const outcome of commit.idempotency) {
    items.push({
      Put: {
        TableName,
        Item: idempotencyToItem(outcome),
        ConditionExpression: 'attribute_not_exists(#pk) OR #expiresAt <= :now',
        ExpressionAttributeNames: { '#pk': Attr.pk, '#expiresAt': Attr.expiresAt },
        ExpressionAttributeValues: { ':now': { N: String(clock.now()) } },
      },
    });
  }
  // The outcome page after the idempotency records: mapTransactionError finds it there.
  if (commit.outcomes?.records.length) {
    const whole = wholePage && commit.outcomes.begins === true;
    items.push(pageWriteItem(TableName, record.id, commit.outcomes, clock.now(), whole));
  }
  for (const outcome of commit.replaceIdempotency ?? []) {
    items.push(putOf(TableName, idempotencyToItem(outcome)));
  }
  for (const letter of commit.deadLetters?.put ?? []) {
    items.push(putOf(TableName, deadLetterToItem(letter, shards)));
  }
  for (const mark of commit.overflow ?? []) {
    items.push(putOf(TableName, overflowToItem(record.id, mark)));
  }
  for (const timer of commit.timers?.put ?? []) {
    items.push(putOf(TableName, timerToItem(timer, shards)));
  }
  for (const messageId of commit.deadLetters?.remove ?? []) {
    items.push(deleteOf(TableName, record.id, deadLetterSk(messageId)));
  }
  for (const id of commit.timers?.remove ?? []) {
    items.push(deleteOf(TableName, record.id, timerSk(id)));
  }
  return items;
}

/**
 * The condition that the stored record is at `ver` of life `life` (`undefined`: a record
 * written without one): a new life of the actor counts its versions from 0 again, and a
 * worker's warm record of an earlier life must not commit over it.
 */
export function atVersion(
  ver: number,
  life: string | undefined,
): Required<
  Pick<Put, 'ConditionExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'>
> {
  const expected = { ':expected': { N: String(ver) } };
  return {
    ConditionExpression: `#ver = :expected AND ${
      life === undefined ? 'attribute_not_exists(#life)' : '#life = :life'
    }`,
    ExpressionAttributeNames: { '#ver': Attr.ver, '#life': Attr.life },
    ExpressionAttributeValues:
      life === undefined ? expected : { ...expected, ':life': { S: life } },
  };
}

/** Puts one item, whatever is stored under its key. */
function putOf(TableName: string, Item: Item): TransactWriteItem {
  return { Put: { TableName, Item } };
}

/** Deletes one of the actor's own items; deleting an absent one is not an error. */
function deleteOf(TableName: string, actorId: string, sk: string): TransactWriteItem {
  return {
    Delete: { TableName, Key: itemKey(actorPk(actorId), sk) },
  };
}
