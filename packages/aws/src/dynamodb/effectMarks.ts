/**
 * Effect done-marks on DynamoDB: one small item per effect run (`E#<key>` / `E`), with a TTL, so
 * a copy of an effect request that arrives after SQS's 5-minute dedupe window is skipped.
 * Per effect it costs one write, and one consistent read per batch of its group.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Clock } from '@baton/core/adapter';
import { batchGetItems, batchPutItems } from './batchItems.ts';
import { type Item, itemKey, ttlOf } from './itemCodec.ts';
import { Attr, EFFECT_DONE_SK, effectDonePk } from './tableLayout.ts';

/** Where the marks live, and the clock that tells an expired one (TTL deletes within days). */
export interface EffectMarksTable {
  readonly client: DynamoDBClient;
  readonly tableName: string;
  readonly clock: Clock;
}

const keyOf = (key: string): Item => itemKey(effectDonePk(key), EFFECT_DONE_SK);

/** Which of `keys` have an unexpired done-mark (one consistent BatchGetItem per 100 keys). */
export async function readEffectsDone(
  table: EffectMarksTable,
  keys: readonly string[],
): Promise<ReadonlySet<string>> {
  if (keys.length === 0) return new Set();
  const byPk = new Map(keys.map((key) => [effectDonePk(key), key]));
  const found = await batchGetItems(
    table.client,
    table.tableName,
    'BatchGetItem (readEffectsDone)',
    [...byPk.keys()].map((pk) => keyOf(byPk.get(pk)!)),
  );
  const now = table.clock.now();
  const done = new Set<string>();
  for (const item of found) {
    const key = byPk.get(item[Attr.pk]?.S ?? '');
    if (key !== undefined && Number(item[Attr.expiresAt]?.N ?? 0) > now) done.add(key);
  }
  return done;
}

/** Puts a done-mark for each of `keys`, expiring at `expiresAt` (epoch ms). */
export async function markEffectsDone(
  table: EffectMarksTable,
  keys: readonly string[],
  expiresAt: number,
): Promise<void> {
  const items = keys.map((key) => ({
    ...keyOf(key),
    [Attr.expiresAt]: { N: String(expiresAt) },
    [Attr.ttl]: { N: String(ttlOf(expiresAt)) },
  }));
  await batchPutItems(table.client, table.tableName, 'BatchWriteItem (markEffectsDone)', items);
}
