/**
 * Converts the core's records to DynamoDB items and back (see tableLayout.ts). JSON values
 * (state, marks, envelopes, outcomes) are stored as JSON strings: their size is then exactly
 * what the engine measures, and no DynamoDB type rule (empty sets, number precision) applies.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { convertToAttr, marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type {
  ActorRecord,
  DeadLetter,
  IdempotencyRecord,
  KeyClaim,
  OutboxItem,
  OverflowMark,
  Timer,
} from '@baton/core/adapter';
import { deletableAt } from '@baton/core/adapter';
import {
  Attr,
  actorIdOf,
  actorPk,
  CLAIM_SK,
  claimPk,
  deadLetterShardKey,
  deadLetterSk,
  IDEMPOTENCY_SK,
  idempotencyPk,
  isShortId,
  LATER_FIELDS,
  OVERFLOW_SK_PREFIX,
  outboxIndexAt,
  outboxKeyOf,
  outboxShard,
  outboxShardKey,
  outboxSk,
  overflowSk,
  RECORD_ATTRIBUTES,
  RECORD_FIELDS,
  RECORD_SK,
  type RecordField,
  timerShardKey,
  timerSk,
} from './tableLayout.ts';

export type Item = Record<string, AttributeValue>;

/** An item's key, `pk` + `sk`, as DynamoDB takes it. */
export function itemKey(pk: string, sk: string): Item {
  return { [Attr.pk]: { S: pk }, [Attr.sk]: { S: sk } };
}

/** A put's condition that no item has its key yet. */
export const IF_ABSENT = {
  ConditionExpression: 'attribute_not_exists(#pk)',
  ExpressionAttributeNames: { '#pk': Attr.pk },
} as const;

const json = (value: unknown): string => JSON.stringify(value) ?? 'null';

/**
 * `marshall`'s attribute value of one value, built directly for the kinds Baton's items hold
 * (strings, safe numbers, booleans); any other value goes through `convertToAttr`, so the
 * result, or the error, is always `marshall`'s.
 */
function toAttr(value: unknown): AttributeValue {
  if (typeof value === 'string') return { S: value };
  if (
    typeof value === 'number' &&
    value <= Number.MAX_SAFE_INTEGER &&
    value >= Number.MIN_SAFE_INTEGER
  ) {
    return { N: String(value) };
  }
  if (typeof value === 'boolean') return { BOOL: value };
  return convertToAttr(value);
}

/** DynamoDB's TTL reads epoch seconds. */
export const ttlOf = (expiresAt: number): number => Math.ceil(expiresAt / 1000);

/** Writes `fields` of `record` into `item`: each one set, as `marshall` would write it. */
function putFields(item: Item, record: ActorRecord, fields: readonly RecordField[]): void {
  for (const [field, attr, isJson] of fields) {
    const value = record[field];
    if (value !== undefined) item[attr] = toAttr(isJson ? json(value) : value);
  }
}

/**
 * An actor record. One that holds its commit's sends is in the outbox index, by its oldest
 * send's time in index steps ({@link outboxIndexAt}), so the sweeper finds it.
 */
export function recordToItem(record: ActorRecord, shards: number): Item {
  const held = record.outbox && record.outbox.length > 0 ? record.outbox : undefined;
  // Built attribute by attribute in `marshall`'s order, each as `marshall` would write it.
  const known = itemKey(actorPk(record.id), RECORD_SK);
  putFields(known, record, RECORD_FIELDS);
  // A halted actor's record: DynamoDB's TTL deletes it once it expires — but not while it
  // holds sends, which would go with it (the sweeper that retires them sets the TTL then), nor
  // while it is paused or holds parked messages (see deletableAt).
  const deletable = deletableAt(record);
  if (!held && deletable !== undefined) known[Attr.ttl] = toAttr(ttlOf(deletable));
  if (held) {
    known[Attr.outbox] = toAttr(json(held));
    known[Attr.obPk] = toAttr(outboxShardKey(outboxShard(record.id, shards)));
    let oldest = Infinity;
    for (const item of held) oldest = Math.min(oldest, item.createdAt);
    known[Attr.obAt] = toAttr(outboxIndexAt(oldest));
  }
  if (record.outboxApart) known[Attr.outboxApart] = toAttr(true);
  putFields(known, record, LATER_FIELDS);
  // What a newer Baton wrote and this one does not know goes back as it came.
  const unknown = record.unknownFields as Item | undefined;
  return unknown ? { ...unknown, ...known } : known;
}

/** The attributes of a record item this Baton knows; any other was written by a newer one. */
const KNOWN_RECORD_ATTRIBUTES: ReadonlySet<string> = new Set(RECORD_ATTRIBUTES);

export function itemToRecord(item: Item): ActorRecord {
  const raw = unmarshall(item);
  const record: Record<string, unknown> = { id: actorIdOf(raw[Attr.pk] as string) };
  for (const [field, attr, isJson] of [...RECORD_FIELDS, ...LATER_FIELDS]) {
    const value = raw[attr];
    if (value !== undefined) record[field] = isJson ? JSON.parse(value as string) : value;
  }
  if (raw[Attr.outbox] !== undefined) record.outbox = JSON.parse(raw[Attr.outbox] as string);
  if (raw[Attr.outboxApart] === true) record.outboxApart = true;
  const unknown = Object.entries(item).filter(([name]) => !KNOWN_RECORD_ATTRIBUTES.has(name));
  if (unknown.length > 0) record.unknownFields = Object.fromEntries(unknown);
  return record as unknown as ActorRecord;
}

export function outboxToItem(item: OutboxItem, shards: number): Item {
  const out = itemKey(actorPk(item.actorId), outboxSk(item.seq, item.life));
  out[Attr.envelopes] = toAttr(json(item.envelopes));
  out[Attr.createdAt] = toAttr(item.createdAt);
  out[Attr.obPk] = toAttr(outboxShardKey(outboxShard(item.actorId, shards)));
  out[Attr.obAt] = toAttr(outboxIndexAt(item.createdAt));
  return out;
}

export function itemToOutbox(item: Item): OutboxItem {
  const raw = unmarshall(item);
  return {
    actorId: actorIdOf(raw[Attr.pk] as string),
    ...outboxKeyOf(raw[Attr.sk] as string),
    envelopes: JSON.parse(raw[Attr.envelopes] as string),
    createdAt: raw[Attr.createdAt] as number,
  };
}

export function idempotencyToItem(record: IdempotencyRecord): Item {
  const out = itemKey(idempotencyPk(record.key), IDEMPOTENCY_SK);
  if (!isShortId(record.key)) out[Attr.key] = toAttr(record.key);
  out[Attr.actorId] = toAttr(record.actorId);
  out[Attr.outcome] = toAttr(json(record.outcome));
  if (record.fingerprint !== undefined) out[Attr.fingerprint] = toAttr(record.fingerprint);
  out[Attr.expiresAt] = toAttr(record.expiresAt);
  // DynamoDB TTL reads epoch seconds; it deletes within days, so reads check expiresAt too.
  out[Attr.ttl] = toAttr(ttlOf(record.expiresAt));
  return out;
}

export function itemToIdempotency(item: Item): IdempotencyRecord {
  const raw = unmarshall(item);
  return {
    key: (raw[Attr.key] as string | undefined) ?? (raw[Attr.pk] as string).slice(2),
    actorId: raw[Attr.actorId] as string,
    outcome: JSON.parse(raw[Attr.outcome] as string),
    expiresAt: raw[Attr.expiresAt] as number,
    ...(raw[Attr.fingerprint] === undefined
      ? {}
      : { fingerprint: raw[Attr.fingerprint] as string }),
  };
}

export function claimToItem(claim: KeyClaim): Item {
  return marshall({
    [Attr.pk]: claimPk(claim.key),
    [Attr.sk]: CLAIM_SK,
    ...(!isShortId(claim.key) && { [Attr.key]: claim.key }),
    [Attr.fingerprint]: claim.fingerprint,
    [Attr.expiresAt]: claim.expiresAt,
    ...(claim.sentAt === undefined ? {} : { [Attr.sentAt]: claim.sentAt }),
    [Attr.ttl]: ttlOf(claim.expiresAt),
  });
}

export function itemToClaim(item: Item): KeyClaim {
  const raw = unmarshall(item);
  return {
    key: (raw[Attr.key] as string | undefined) ?? (raw[Attr.pk] as string).slice(2),
    fingerprint: raw[Attr.fingerprint] as string,
    expiresAt: raw[Attr.expiresAt] as number,
    ...(raw[Attr.sentAt] === undefined ? {} : { sentAt: raw[Attr.sentAt] as number }),
  };
}

/**
 * Dead letters share the sparse outbox index (by `at`), so a tool can list them all. The proof
 * a redrive leaves ({@link DeadLetter.applied}) is left out of it, and expires by TTL.
 */
export function deadLetterToItem(letter: DeadLetter, shards: number): Item {
  const key = {
    [Attr.pk]: actorPk(letter.actorId),
    [Attr.sk]: deadLetterSk(letter.messageId),
    [Attr.letter]: json(letter),
  };
  if (letter.applied) {
    return marshall({ ...key, [Attr.ttl]: ttlOf(letter.applied.expiresAt) });
  }
  return marshall({
    ...key,
    [Attr.obPk]: deadLetterShardKey(outboxShard(letter.actorId, shards)),
    [Attr.obAt]: letter.at,
  });
}

export function itemToDeadLetter(item: Item): DeadLetter {
  return JSON.parse(unmarshall(item)[Attr.letter] as string);
}

/**
 * A timer, indexed by when it is due so the sweeper finds the ones overdue; one kept for a
 * dead-lettered fire is left out of the index, as it is never due.
 */
export function timerToItem(timer: Timer, shards: number): Item {
  const key = { [Attr.pk]: actorPk(timer.actorId), [Attr.sk]: timerSk(timer.id) };
  if (timer.deadLettered) return marshall({ ...key, [Attr.timer]: json(timer) });
  return marshall({
    ...key,
    [Attr.timer]: json(timer),
    [Attr.obPk]: timerShardKey(outboxShard(timer.actorId, shards)),
    [Attr.obAt]: timer.at,
  });
}

export function itemToTimer(item: Item): Timer {
  return JSON.parse(unmarshall(item)[Attr.timer] as string);
}

export function overflowToItem(actorId: string, mark: OverflowMark): Item {
  return marshall({
    [Attr.pk]: actorPk(actorId),
    [Attr.sk]: overflowSk(mark.kind, mark.peer),
    [Attr.peer]: mark.peer,
    [Attr.mark]: json(mark.mark),
    [Attr.expiresAt]: mark.expiresAt,
    [Attr.ttl]: ttlOf(mark.expiresAt),
  });
}

export function itemToOverflow(item: Item): OverflowMark {
  const raw = unmarshall(item);
  const sk = raw[Attr.sk] as string;
  const kind = sk.startsWith(OVERFLOW_SK_PREFIX.sender)
    ? 'sender'
    : sk.startsWith(OVERFLOW_SK_PREFIX.page)
      ? 'page'
      : 'channel';
  return {
    kind,
    peer: raw[Attr.peer] as string,
    mark: JSON.parse(raw[Attr.mark] as string),
    expiresAt: raw[Attr.expiresAt] as number,
  };
}
