/**
 * The single-table layout of {@link DynamoStore}: key shapes, attribute names, the sweeper's
 * index, and the item-size budget that keeps every item the engine accepts inside DynamoDB's
 * 400 KB limit. The package README documents the same layout for operators.
 */
import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import type { ActorRecord, StoreLimits } from '@baton/core/adapter';
import { sha256 } from '../internal/sha256.ts';

/** Attribute names, short and fixed: each one counts against the item size. */
export const Attr = {
  pk: 'pk',
  sk: 'sk',
  ver: 'ver',
  life: 'life',
  format: 'fmt',
  state: 'state',
  stateVersion: 'sv',
  inboxOffset: 'inboxOffset',
  inboxQueue: 'inboxQueue',
  marks: 'marks',
  sentSeq: 'sentSeq',
  channels: 'channels',
  overflowedAt: 'overflowedAt',
  timerEpoch: 'te',
  peer: 'peer',
  mark: 'mark',
  envelopes: 'envelopes',
  createdAt: 'createdAt',
  obPk: 'obPk',
  obAt: 'obAt',
  actorId: 'actorId',
  outcome: 'outcome',
  fingerprint: 'fingerprint',
  key: 'ikey',
  letter: 'letter',
  timer: 'timer',
  expiresAt: 'expiresAt',
  ttl: 'ttl',
  outbox: 'outbox',
  outboxApart: 'apart',
  paused: 'ps',
  parked: 'pn',
  outcomePage: 'op',
  failing: 'fl',
  sentAt: 'sentAt',
} as const;

/**
 * The sparse global secondary index over outbox items: `obPk` (shard) + `obAt` (createdAt).
 *
 * @example
 * // IAM for the sweeper: Query on `${tableArn}/index/${OUTBOX_INDEX}`
 */
export const OUTBOX_INDEX = 'outbox';

/** The attribute DynamoDB's TTL deletes expired items by, in both of Baton's tables. */
export const TTL_ATTRIBUTE: typeof Attr.ttl = 'ttl';

/**
 * The sort key prefix of message trails: what operators did to one message (an end, redrives),
 * kept beside its dead letter (`N#` and the digest of the message id; see messageTrails.ts).
 * Only the CLI reads and writes them; the worker's bundle leaves this out.
 */
export const MESSAGE_TRAIL_SK_PREFIX = 'N#';
/** The sort key of an actor record. */
export const RECORD_SK = 'R';
/** The sort key prefix of outbox items. */
export const OUTBOX_SK_PREFIX = 'O#';
/** The sort key of an idempotency record. */
export const IDEMPOTENCY_SK = 'I';
/** The sort key of an effect's done-mark. */
export const EFFECT_DONE_SK = 'E';
/** The sort key prefix of dead letters. */
export const DEAD_LETTER_SK_PREFIX = 'D#';
/** The sort key prefix of timers. */
export const TIMER_SK_PREFIX = 'T#';
/**
 * The sort key prefixes of overflow marks: a receiver's sender marks, a sender's channels, the
 * pages of state an actor moved out (a workflow's history).
 */
export const OVERFLOW_SK_PREFIX = { sender: 'M#', channel: 'C#', page: 'H#' } as const;
/** Outbox seqs are padded to this many digits so sort keys order like numbers (2^53 has 16). */
const SEQ_DIGITS = 16;
/** At most this many outbox index shards (`OUTBOX#0` … `OUTBOX#99`). */
export const MAX_OUTBOX_SHARDS = 100;

export const actorPk = (actorId: string): string => `A#${actorId}`;
/** The partition key prefix of idempotency records (the outcomes of client messages). */
export const IDEMPOTENCY_PK_PREFIX = 'I#';
export const idempotencyPk = (key: string): string => `${IDEMPOTENCY_PK_PREFIX}${boundedKey(key)}`;
/**
 * The partition key prefix of key claims (`Store.claimKey`): apart from the outcomes, so that
 * the ingress may create claims without being able to write an outcome.
 */
export const CLAIM_PK_PREFIX = 'K#';
/** The sort key of a key claim. */
export const CLAIM_SK = 'K';
export const claimPk = (key: string): string => `${CLAIM_PK_PREFIX}${boundedKey(key)}`;
/** The partition key of an effect run's done-mark, by the run's idempotency key. */
export const effectDonePk = (key: string): string => `E#${boundedKey(key)}`;
/** A dead letter's sort key: the digest of its message id (the id itself is in the item). */
export const deadLetterSk = (messageId: string): string =>
  `${DEAD_LETTER_SK_PREFIX}${digest(messageId)}`;
/** An overflow mark's sort key: its kind and the digest of the peer (the id is in the item). */
export const overflowSk = (kind: keyof typeof OVERFLOW_SK_PREFIX, peer: string): string =>
  `${OVERFLOW_SK_PREFIX[kind]}${digest(peer)}`;
/** The index shard key of dead letters: they share the sparse outbox index, apart by prefix. */
export const deadLetterShardKey = (shard: number): string => `DEAD#${shard}`;
/** A timer's sort key: the digest of its id (the id is in the item). */
export const timerSk = (id: string): string => `${TIMER_SK_PREFIX}${digest(id)}`;
/** The index shard key of timers, sorted there by when they are due. */
export const timerShardKey = (shard: number): string => `TIMER#${shard}`;

/** Longest id kept as it is in a key; longer ones (scoped ingress ids) are hashed. */
export const MAX_KEY_ID_BYTES = 900;

/**
 * An id as a key part: itself when short, else `#sha256:` and its digest, so every key stays
 * inside DynamoDB's limits (2,048 bytes for a partition key, 1,024 for a sort key).
 */
export function boundedKey(id: string): string {
  return isShortId(id) ? id : `#sha256:${digest(id)}`;
}

/** Whether {@link boundedKey} keeps `id` as it is (else the item stores the id whole besides). */
export function isShortId(id: string): boolean {
  return Buffer.byteLength(id, 'utf8') <= MAX_KEY_ID_BYTES;
}

const digest = (id: string): string => sha256(id);
/**
 * An outbox item's sort key: its seq, padded, then the life that committed it, so that a new
 * life of the actor, which counts its seqs from 1 again, never writes over an earlier life's
 * item nor deletes one. Items of records without a life (and from before items kept it) have
 * none.
 */
export const outboxSk = (seq: number, life?: string): string =>
  `${OUTBOX_SK_PREFIX}${String(seq).padStart(SEQ_DIGITS, '0')}${life === undefined ? '' : `#${life}`}`;

/** The seq and life of an outbox item's sort key ({@link outboxSk}). */
export function outboxKeyOf(sk: string): { seq: number; life?: string } {
  const start = OUTBOX_SK_PREFIX.length;
  const seq = Number(sk.slice(start, start + SEQ_DIGITS));
  const life = sk.slice(start + SEQ_DIGITS + 1);
  return life === '' ? { seq } : { seq, life };
}
export const outboxShardKey = (shard: number): string => `OUTBOX#${shard}`;

/** The step the outbox index files send times in (see {@link outboxIndexAt}). */
export const OUTBOX_INDEX_STEP_MS = 5_000;

/**
 * The time an outbox is filed under in the outbox index (`obAt`): its oldest send's, rounded
 * down to {@link OUTBOX_INDEX_STEP_MS}. An actor sends in most of its commits, and each rewrites
 * its record: an index key that changed would cost two index writes (the old entry deleted, the
 * new one put), one that stays the same costs none. So an actor's commits within a step write
 * no index entry, and the sweeper may list an outbox up to one step before it is as old as it
 * asked.
 */
export function outboxIndexAt(createdAt: number): number {
  return createdAt - (createdAt % OUTBOX_INDEX_STEP_MS);
}

/** The actor id of an `A#…` partition key. */
export function actorIdOf(pk: string): string {
  return pk.slice(2);
}

/** Which outbox index shard an actor's items go to: a stable hash (FNV-1a) of its id. */
export function outboxShard(actorId: string, shards: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < actorId.length; i++) {
    hash ^= actorId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % shards;
}

/** A field of the actor record, its item attribute, and whether it is stored as JSON text. */
export type RecordField = readonly [field: keyof ActorRecord, attr: string, json: boolean];

/** The record's fields stored as JSON text: the others are stored as they are. */
const JSON_FIELDS: ReadonlySet<string> = new Set([
  'state',
  'marks',
  'channels',
  'paused',
  'outcomePage',
  'failing',
]);

/** `fields`, each with its attribute (named alike in {@link Attr}) and whether it is JSON. */
const recordFields = (
  fields: readonly (keyof typeof Attr & keyof ActorRecord)[],
): readonly RecordField[] => fields.map((field) => [field, Attr[field], JSON_FIELDS.has(field)]);

/**
 * The record's fields stored as they are, or (`json`) as JSON text, in `marshall`'s order of
 * the item's attributes: a field left out (`undefined`) writes no attribute, an attribute
 * missing reads back as no field.
 */
export const RECORD_FIELDS: readonly RecordField[] = recordFields([
  'ver',
  'life',
  'format',
  'state',
  'stateVersion',
  'inboxOffset',
  'inboxQueue',
  'marks',
  'sentSeq',
  'channels',
  'overflowedAt',
  'timerEpoch',
  'expiresAt',
]);

/** Fields written after the record's sends (see recordToItem), the same way. */
export const LATER_FIELDS: readonly RecordField[] = recordFields([
  'paused',
  'parked',
  'outcomePage',
  'failing',
]);

/**
 * Every attribute of an actor record item this Baton writes: its size overhead counts their
 * names, and a record read back keeps any other attribute as one a newer Baton wrote.
 */
export const RECORD_ATTRIBUTES: readonly string[] = [
  Attr.pk,
  Attr.sk,
  ...RECORD_FIELDS.map(([, attr]) => attr),
  Attr.ttl,
  Attr.outbox,
  Attr.obPk,
  Attr.obAt,
  Attr.outboxApart,
  ...LATER_FIELDS.map(([, attr]) => attr),
];

/** DynamoDB's item size limit: 400 KB, attribute names included. */
export const DYNAMODB_ITEM_BYTES = 400 * 1024;
/** DynamoDB stores a number in at most 21 bytes (38 significant digits). */
const MAX_NUMBER_BYTES = 21;

/**
 * The most an item can take in DynamoDB beyond `jsonSize` of the port object it stores. The
 * port object's JSON holds every variable string of the item (the actor id, the state and
 * marks as JSON, the envelopes as JSON, the outcome as JSON) at least as long as the item
 * does; what the item adds is its attribute names, fixed key parts and numbers.
 */
export function overhead(
  names: readonly string[],
  fixed: readonly string[],
  numbers: number,
): number {
  const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
  return (
    names.reduce((n, s) => n + bytes(s), 0) +
    fixed.reduce((n, s) => n + bytes(s), 0) +
    numbers * MAX_NUMBER_BYTES
  );
}

/**
 * The overhead (see {@link overhead}) of the actor record, the largest of any item's: the
 * others' are checked against it in tableLayout.test.ts, so only this one is worked out here.
 */
export const RECORD_OVERHEAD = overhead(
  RECORD_ATTRIBUTES,
  // A record holding sends is in the outbox index (its shard key); `apart` is a boolean.
  [actorPk(''), RECORD_SK, outboxShardKey(MAX_OUTBOX_SHARDS - 1)],
  // ver, format, stateVersion, sentSeq, overflowedAt, timerEpoch, expiresAt, ttl, obAt, parked
  10,
);

/**
 * The limits {@link DynamoStore} announces to the engine: DynamoDB's 100 items and 4 MB per
 * transaction (4,000,000 bytes leaves room for 100 items' overhead under 4 MiB), and an item
 * limit of 400 KB less the largest item overhead ({@link RECORD_OVERHEAD}), so an item whose `jsonSize` passes
 * the engine's check always fits DynamoDB.
 *
 * @example
 * DYNAMO_STORE_LIMITS.maxItemBytes; // 409_263 (409,600 less the actor record's 337)
 */
export const DYNAMO_STORE_LIMITS: StoreLimits = Object.freeze({
  maxTransactionItems: 100,
  maxTransactionBytes: 4_000_000,
  maxItemBytes: DYNAMODB_ITEM_BYTES - RECORD_OVERHEAD,
  // DynamoDB bills an update by the whole item, before or after, and every commit updates its
  // page until the page closes: an 8 KB page cost a commit about 9 write units on average (a
  // transaction's 2 per KB of a page half full), a 1 KB page costs 2 to 4.
  outcomePageBytes: 1024,
});

/**
 * The table {@link DynamoStore} expects: on-demand, string keys `pk` + `sk`, the sparse
 * `outbox` index (`obPk` + `obAt`, keys only) the sweeper queries, and a stream of new images
 * (the reactive queries' change source). Enable TTL on `ttl` as well ({@link createTable} does
 * both).
 *
 * @example
 * await client.send(new CreateTableCommand(tableDefinition('baton')));
 */
export function tableDefinition(tableName: string): CreateTableCommandInput {
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' },
    AttributeDefinitions: [
      { AttributeName: Attr.pk, AttributeType: 'S' },
      { AttributeName: Attr.sk, AttributeType: 'S' },
      { AttributeName: Attr.obPk, AttributeType: 'S' },
      { AttributeName: Attr.obAt, AttributeType: 'N' },
    ],
    KeySchema: [
      { AttributeName: Attr.pk, KeyType: 'HASH' },
      { AttributeName: Attr.sk, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: [
      {
        IndexName: OUTBOX_INDEX,
        KeySchema: [
          { AttributeName: Attr.obPk, KeyType: 'HASH' },
          { AttributeName: Attr.obAt, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'KEYS_ONLY' },
      },
    ],
  };
}
