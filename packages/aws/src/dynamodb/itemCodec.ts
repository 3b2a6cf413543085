/**
 * Converts the core's records to DynamoDB items and back (see tableLayout.ts). JSON values
 * (state, marks, envelopes, outcomes) are stored as JSON strings: their size is then exactly
 * what the engine measures, and no DynamoDB type rule (empty sets, number precision) applies.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type {
  ActorRecord,
  DeadLetter,
  IdempotencyRecord,
  KeyClaim,
  OutboxItem,
  OverflowMark,
  Timer,
} from '@baton/core/adapter';
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
  OUTBOX_SK_PREFIX,
  OVERFLOW_SK_PREFIX,
  outboxShard,
  outboxShardKey,
  outboxSk,
  overflowSk,
  RECORD_ATTRIBUTES,
  RECORD_SK,
  timerShardKey,
  timerSk,
} from './tableLayout.ts';

export type Item = Record<string, AttributeValue>;

const json = (value: unknown): string => JSON.stringify(value) ?? 'null';

/**
 * An actor record. One that holds its commit's sends is in the outbox index, by its oldest
 * send, so the sweeper finds it.
 */
export function recordToItem(record: ActorRecord, shards: number): Item {
  const held = record.outbox && record.outbox.length > 0 ? record.outbox : undefined;
  // What a newer Baton wrote and this one does not know goes back as it came.
  const unknown = (record.unknownFields ?? {}) as Item;
  const known = marshall({
    [Attr.pk]: actorPk(record.id),
    [Attr.sk]: RECORD_SK,
    [Attr.ver]: record.ver,
    ...(record.life === undefined ? {} : { [Attr.life]: record.life }),
    ...(record.format === undefined ? {} : { [Attr.format]: record.format }),
    [Attr.state]: json(record.state),
    ...(record.stateVersion === undefined ? {} : { [Attr.stateVersion]: record.stateVersion }),
    [Attr.inboxOffset]: record.inboxOffset,
    ...(record.inboxQueue === undefined ? {} : { [Attr.inboxQueue]: record.inboxQueue }),
    [Attr.marks]: json(record.marks),
    [Attr.sentSeq]: record.sentSeq,
    ...(record.channels ? { [Attr.channels]: json(record.channels) } : {}),
    ...(record.overflowedAt === undefined ? {} : { [Attr.overflowedAt]: record.overflowedAt }),
    ...(record.timerEpoch === undefined ? {} : { [Attr.timerEpoch]: record.timerEpoch }),
    // A halted actor's record: DynamoDB's TTL deletes it once it expires.
    ...(record.expiresAt === undefined
      ? {}
      : { [Attr.expiresAt]: record.expiresAt, [Attr.ttl]: Math.ceil(record.expiresAt / 1000) }),
    ...(held
      ? {
          [Attr.outbox]: json(held),
          [Attr.obPk]: outboxShardKey(outboxShard(record.id, shards)),
          [Attr.obAt]: Math.min(...held.map((item) => item.createdAt)),
        }
      : {}),
    ...(record.outboxApart ? { [Attr.outboxApart]: true } : {}),
    ...(record.paused ? { [Attr.paused]: json(record.paused) } : {}),
    ...(record.parked === undefined ? {} : { [Attr.parked]: record.parked }),
    ...(record.outcomePage ? { [Attr.outcomePage]: json(record.outcomePage) } : {}),
  });
  return { ...unknown, ...known };
}

/** The attributes of a record item this Baton knows; any other was written by a newer one. */
const KNOWN_RECORD_ATTRIBUTES: ReadonlySet<string> = new Set(RECORD_ATTRIBUTES);

export function itemToRecord(item: Item): ActorRecord {
  const raw = unmarshall(item);
  const unknown = Object.entries(item).filter(([name]) => !KNOWN_RECORD_ATTRIBUTES.has(name));
  return {
    id: actorIdOf(raw[Attr.pk] as string),
    ver: raw[Attr.ver] as number,
    ...(raw[Attr.life] === undefined ? {} : { life: raw[Attr.life] as string }),
    state: JSON.parse(raw[Attr.state] as string),
    ...(raw[Attr.stateVersion] === undefined
      ? {}
      : { stateVersion: raw[Attr.stateVersion] as number }),
    inboxOffset: raw[Attr.inboxOffset] as string,
    ...(raw[Attr.inboxQueue] === undefined ? {} : { inboxQueue: raw[Attr.inboxQueue] as string }),
    marks: JSON.parse(raw[Attr.marks] as string),
    sentSeq: raw[Attr.sentSeq] as number,
    ...(raw[Attr.channels] === undefined
      ? {}
      : { channels: JSON.parse(raw[Attr.channels] as string) }),
    ...(raw[Attr.overflowedAt] === undefined
      ? {}
      : { overflowedAt: raw[Attr.overflowedAt] as number }),
    ...(raw[Attr.expiresAt] === undefined ? {} : { expiresAt: raw[Attr.expiresAt] as number }),
    ...(raw[Attr.timerEpoch] === undefined ? {} : { timerEpoch: raw[Attr.timerEpoch] as number }),
    ...(raw[Attr.outbox] === undefined ? {} : { outbox: JSON.parse(raw[Attr.outbox] as string) }),
    ...(raw[Attr.outboxApart] === true ? { outboxApart: true } : {}),
    ...(raw[Attr.paused] === undefined ? {} : { paused: JSON.parse(raw[Attr.paused] as string) }),
    ...(raw[Attr.parked] === undefined ? {} : { parked: raw[Attr.parked] as number }),
    ...(raw[Attr.format] === undefined ? {} : { format: raw[Attr.format] as number }),
    ...(raw[Attr.outcomePage] === undefined
      ? {}
      : { outcomePage: JSON.parse(raw[Attr.outcomePage] as string) }),
    ...(unknown.length === 0 ? {} : { unknownFields: Object.fromEntries(unknown) }),
  };
}

export function outboxToItem(item: OutboxItem, shards: number): Item {
  return marshall({
    [Attr.pk]: actorPk(item.actorId),
    [Attr.sk]: outboxSk(item.seq),
    [Attr.envelopes]: json(item.envelopes),
    [Attr.createdAt]: item.createdAt,
    [Attr.obPk]: outboxShardKey(outboxShard(item.actorId, shards)),
    [Attr.obAt]: item.createdAt,
  });
}

export function itemToOutbox(item: Item): OutboxItem {
  const raw = unmarshall(item);
  return {
    actorId: actorIdOf(raw[Attr.pk] as string),
    seq: Number((raw[Attr.sk] as string).slice(OUTBOX_SK_PREFIX.length)),
    envelopes: JSON.parse(raw[Attr.envelopes] as string),
    createdAt: raw[Attr.createdAt] as number,
  };
}

export function idempotencyToItem(record: IdempotencyRecord): Item {
  return marshall({
    [Attr.pk]: idempotencyPk(record.key),
    [Attr.sk]: IDEMPOTENCY_SK,
    ...(isShortId(record.key) ? {} : { [Attr.key]: record.key }),
    [Attr.actorId]: record.actorId,
    [Attr.outcome]: json(record.outcome),
    ...(record.fingerprint === undefined ? {} : { [Attr.fingerprint]: record.fingerprint }),
    [Attr.expiresAt]: record.expiresAt,
    // DynamoDB TTL reads epoch seconds; it deletes within days, so reads check expiresAt too.
    [Attr.ttl]: Math.ceil(record.expiresAt / 1000),
  });
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
    ...(isShortId(claim.key) ? {} : { [Attr.key]: claim.key }),
    [Attr.fingerprint]: claim.fingerprint,
    [Attr.expiresAt]: claim.expiresAt,
    ...(claim.sentAt === undefined ? {} : { [Attr.sentAt]: claim.sentAt }),
    [Attr.ttl]: Math.ceil(claim.expiresAt / 1000),
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

/** Dead letters share the sparse outbox index (by `at`), so a tool can list them all. */
export function deadLetterToItem(letter: DeadLetter, shards: number): Item {
  return marshall({
    [Attr.pk]: actorPk(letter.actorId),
    [Attr.sk]: deadLetterSk(letter.messageId),
    [Attr.letter]: json(letter),
    [Attr.obPk]: deadLetterShardKey(outboxShard(letter.actorId, shards)),
    [Attr.obAt]: letter.at,
  });
}

export function itemToDeadLetter(item: Item): DeadLetter {
  return JSON.parse(unmarshall(item)[Attr.letter] as string);
}

/** A timer, indexed by when it is due so the sweeper finds the ones overdue. */
export function timerToItem(timer: Timer, shards: number): Item {
  return marshall({
    [Attr.pk]: actorPk(timer.actorId),
    [Attr.sk]: timerSk(timer.id),
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
    [Attr.ttl]: Math.ceil(mark.expiresAt / 1000),
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
