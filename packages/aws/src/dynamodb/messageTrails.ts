/**
 * What operators did to one message of an actor, kept beside its dead letter: that they ended it
 * while it failed at the head of its actor's inbox (`baton actors end-failing`), and how often
 * they redrove its letter, last when and by whom. An item of its own (`A#<actorId>` /
 * `N#<sha256 of message id>`), which the CLI writes and reads and no turn touches: the engine
 * writes a letter kept again after a redrive whole, so a note on the letter item would go with
 * it, while this one stays. It expires {@link MESSAGE_TRAIL_RETENTION_MS} after its last write
 * (TTL); a letter applied or purged leaves it until then.
 */
import { type DynamoDBClient, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { sha256 } from '../internal/sha256.ts';
import { awsErrorName, unavailable } from '../internal/unavailable.ts';
import { batchGetItems } from './batchItems.ts';
import { type Item, itemKey, ttlOf } from './itemCodec.ts';
import { Attr, actorIdOf, actorPk, MESSAGE_TRAIL_SK_PREFIX } from './tableLayout.ts';

/** What operators did to one message (see the module's comment). */
export interface MessageTrail {
  readonly actorId: string;
  readonly messageId: string;
  /** An operator ended it while it failed at its actor's head: its next delivery kept it. */
  readonly ended?: { readonly at: number; readonly by: string };
  /**
   * Its letter redriven: `count` keepings of it redriven (a keeping redriven twice counts once:
   * the second sends nothing its actor applies), the last redrive's time and operator, and the
   * `at` of the letter it redrove (the letter's `at` is newer once it was kept again since).
   */
  readonly redriven?: {
    readonly count: number;
    readonly at: number;
    readonly by: string;
    readonly letterAt: number;
  };
}

/** How long a trail is kept after its last write: a letter kept longer loses it. */
export const MESSAGE_TRAIL_RETENTION_MS = 90 * 24 * 60 * 60 * 1000;

/** The item's attributes beside its key and `ttl`. */
const TRAIL = {
  messageId: 'messageId',
  endedAt: 'endedAt',
  endedBy: 'endedBy',
  redrives: 'redrives',
  redrivenAt: 'redrivenAt',
  redrivenBy: 'redrivenBy',
  redriveOf: 'redriveOf',
} as const;

/** The table the trails are in. */
export interface MessageTrailsTable {
  readonly client: DynamoDBClient;
  readonly tableName: string;
}

const keyOf = (actorId: string, messageId: string): Item =>
  itemKey(actorPk(actorId), `${MESSAGE_TRAIL_SK_PREFIX}${sha256(messageId)}`);

/**
 * The trails of these messages that are kept (one consistent BatchGetItem per 100), in no
 * particular order; a message no operator acted on has none.
 *
 * @example
 * const trails = await readMessageTrails(table, letters.map(({ actorId, messageId }) => ({ actorId, messageId })));
 */
export async function readMessageTrails(
  table: MessageTrailsTable,
  messages: ReadonlyArray<{ readonly actorId: string; readonly messageId: string }>,
): Promise<MessageTrail[]> {
  if (messages.length === 0) return [];
  const keys = new Map<string, Item>();
  for (const { actorId, messageId } of messages) {
    const key = keyOf(actorId, messageId);
    keys.set(`${key[Attr.pk]!.S}\n${key[Attr.sk]!.S}`, key);
  }
  const items = await batchGetItems(
    table.client,
    table.tableName,
    'BatchGetItem (readMessageTrails)',
    [...keys.values()],
  );
  return items.map(trailOf);
}

/** The trail an item holds. */
function trailOf(item: Item): MessageTrail {
  const n = (name: string) => Number(item[name]?.N ?? 0);
  const s = (name: string) => item[name]?.S ?? '';
  return {
    actorId: actorIdOf(s(Attr.pk)),
    messageId: s(TRAIL.messageId),
    ...(item[TRAIL.endedAt] && { ended: { at: n(TRAIL.endedAt), by: s(TRAIL.endedBy) } }),
    ...(item[TRAIL.redrives] && {
      redriven: {
        count: n(TRAIL.redrives),
        at: n(TRAIL.redrivenAt),
        by: s(TRAIL.redrivenBy),
        letterAt: n(TRAIL.redriveOf),
      },
    }),
  };
}

/**
 * Records that `by` ended message `messageId` of `actorId` at `at` (the end its record holds:
 * written again, it changes nothing). `now` starts the trail's retention again.
 */
export async function trailEnded(
  table: MessageTrailsTable,
  actorId: string,
  messageId: string,
  ended: { readonly at: number; readonly by: string },
  now: number,
): Promise<void> {
  await update(table, 'UpdateItem (trailEnded)', actorId, messageId, now, {
    expression: 'SET #endedAt = :endedAt, #endedBy = :endedBy',
    names: { '#endedAt': TRAIL.endedAt, '#endedBy': TRAIL.endedBy },
    values: { ':endedAt': { N: String(ended.at) }, ':endedBy': { S: ended.by } },
  });
}

/**
 * Records that `by` redrove, at `now`, the letter of message `messageId` of `actorId` kept at
 * `letterAt`: counted once per keeping (a redrive of a keeping redriven already only moves the
 * last redrive's time and operator on).
 */
export async function trailRedriven(
  table: MessageTrailsTable,
  actorId: string,
  messageId: string,
  letterAt: number,
  by: string,
  now: number,
): Promise<void> {
  const last = {
    expression: 'SET #redrivenAt = :now, #redrivenBy = :by',
    names: { '#redrivenAt': TRAIL.redrivenAt, '#redrivenBy': TRAIL.redrivenBy },
    values: { ':now': { N: String(now) }, ':by': { S: by } },
  };
  const counted = {
    expression: `${last.expression}, #redriveOf = :of ADD #redrives :one`,
    condition: 'attribute_not_exists(#redriveOf) OR #redriveOf <> :of',
    names: { ...last.names, '#redriveOf': TRAIL.redriveOf, '#redrives': TRAIL.redrives },
    values: { ...last.values, ':of': { N: String(letterAt) }, ':one': { N: '1' } },
  };
  const operation = 'UpdateItem (trailRedriven)';
  if (await update(table, operation, actorId, messageId, now, counted)) return;
  await update(table, operation, actorId, messageId, now, last);
}

/**
 * One UpdateItem of a trail, which also keeps its message id and its TTL. Resolves `false` when
 * `change.condition` failed (nothing written).
 */
async function update(
  table: MessageTrailsTable,
  operation: string,
  actorId: string,
  messageId: string,
  now: number,
  change: {
    readonly expression: string;
    readonly condition?: string;
    readonly names: Record<string, string>;
    readonly values: Item;
  },
): Promise<boolean> {
  try {
    await table.client.send(
      new UpdateItemCommand({
        TableName: table.tableName,
        Key: keyOf(actorId, messageId),
        UpdateExpression: change.expression.replace(
          /^SET /,
          'SET #messageId = :messageId, #ttl = :ttl, ',
        ),
        ...(change.condition && { ConditionExpression: change.condition }),
        ExpressionAttributeNames: {
          ...change.names,
          '#messageId': TRAIL.messageId,
          '#ttl': Attr.ttl,
        },
        ExpressionAttributeValues: {
          ...change.values,
          ':messageId': { S: messageId },
          ':ttl': { N: String(ttlOf(now + MESSAGE_TRAIL_RETENTION_MS)) },
        },
      }),
    );
    return true;
  } catch (error) {
    if (change.condition && awsErrorName(error) === 'ConditionalCheckFailedException') return false;
    throw unavailable('DynamoDB', operation, error);
  }
}
