import type { ActorRecord, IdempotencyRecord } from '@baton/core/adapter';
import { type Item, itemToIdempotency, itemToRecord } from '../dynamodb/itemCodec.ts';
import { newestOutcomes, PAGE_SK_PREFIX } from '../dynamodb/outcomePages.ts';
import { Attr, IDEMPOTENCY_SK, RECORD_SK } from '../dynamodb/tableLayout.ts';

/**
 * What one stream record of the store's table means to the reactive side: an actor record
 * committed (a new version) or an ingress message's outcome stored.
 *
 * @example
 * const change: StoreChange = { kind: 'record', record };
 */
export type StoreChange =
  | { readonly kind: 'record'; readonly record: ActorRecord }
  | { readonly kind: 'outcome'; readonly record: IdempotencyRecord }
  /** An outcome page written: the outcomes its last commit added (and any within a minute of them). */
  | { readonly kind: 'outcomes'; readonly records: readonly IdempotencyRecord[] };

/**
 * The shape shared by a Lambda `DynamoDBRecord` and a DynamoDB Streams `GetRecords` record
 * (their attribute-value types differ only in how binary is typed, which the table never uses).
 */
export interface StreamRecordLike {
  readonly eventName?: string;
  readonly dynamodb?: { readonly NewImage?: unknown };
}

/**
 * Decodes one record of the table's stream (view type `NEW_IMAGE`). Inserts and updates of
 * actor records, idempotency records and outcome pages mean something; outbox items, deletions (drains, TTL)
 * and anything else are `undefined`. Streams keep one item's changes in order but not a
 * transaction's items together, so consumers key on each actor's `ver`.
 *
 * @example
 * for (const r of event.Records) {
 *   const change = decodeStreamRecord(r);
 *   if (change?.kind === 'record') engine.onChange(change.record);
 * }
 */
export function decodeStreamRecord(record: StreamRecordLike): StoreChange | undefined {
  if (record.eventName !== 'INSERT' && record.eventName !== 'MODIFY') return undefined;
  const image = record.dynamodb?.NewImage as Item | undefined;
  const sk = image?.[Attr.sk]?.S;
  if (!image || sk === undefined) return undefined;
  if (sk === RECORD_SK) return { kind: 'record', record: itemToRecord(image) };
  if (sk === IDEMPOTENCY_SK) return { kind: 'outcome', record: itemToIdempotency(image) };
  if (sk.startsWith(PAGE_SK_PREFIX)) return { kind: 'outcomes', records: newestOutcomes(image) };
  return undefined;
}
