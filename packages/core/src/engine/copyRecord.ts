import type { ActorRecord } from '../adapter/storedRecords.ts';

/** A record being built: a fresh copy whose fields the caller sets before handing it out. */
export type RecordDraft = { -readonly [K in keyof ActorRecord]: ActorRecord[K] };

/**
 * A shallow copy of `record`, as `{ ...record }` gives it but for a field set to undefined,
 * left out as JSON leaves it out; made field by field. A turn copies its record a few times for each message, and the
 * records reaching one spread come in more hidden classes than V8 keeps apart (their fields are
 * generalized as they change), which makes each spread cost about ten times this copy.
 */
export function copyRecord(record: ActorRecord): RecordDraft {
  const copy: RecordDraft = {
    id: record.id,
    ver: record.ver,
    state: record.state,
    inboxOffset: record.inboxOffset,
    marks: record.marks,
    sentSeq: record.sentSeq,
  };
  if (record.life !== undefined) copy.life = record.life;
  if (record.format !== undefined) copy.format = record.format;
  if (record.unknownFields !== undefined) copy.unknownFields = record.unknownFields;
  if (record.stateVersion !== undefined) copy.stateVersion = record.stateVersion;
  if (record.inboxQueue !== undefined) copy.inboxQueue = record.inboxQueue;
  if (record.channels !== undefined) copy.channels = record.channels;
  if (record.overflowedAt !== undefined) copy.overflowedAt = record.overflowedAt;
  if (record.expiresAt !== undefined) copy.expiresAt = record.expiresAt;
  if (record.timerEpoch !== undefined) copy.timerEpoch = record.timerEpoch;
  if (record.outbox !== undefined) copy.outbox = record.outbox;
  if (record.outboxApart !== undefined) copy.outboxApart = record.outboxApart;
  if (record.paused !== undefined) copy.paused = record.paused;
  if (record.parked !== undefined) copy.parked = record.parked;
  if (record.outcomePage !== undefined) copy.outcomePage = record.outcomePage;
  if (record.failing !== undefined) copy.failing = record.failing;
  return copy;
}

/**
 * Every field of a record, which {@link copyRecord} copies: a field added to `ActorRecord` fails
 * to compile here until it is listed, and copyRecord's test then fails until it copies it.
 */
export const RECORD_FIELDS = {
  id: true,
  ver: true,
  life: true,
  format: true,
  unknownFields: true,
  state: true,
  stateVersion: true,
  inboxOffset: true,
  inboxQueue: true,
  marks: true,
  sentSeq: true,
  channels: true,
  overflowedAt: true,
  expiresAt: true,
  timerEpoch: true,
  outbox: true,
  outboxApart: true,
  paused: true,
  parked: true,
  outcomePage: true,
  failing: true,
} as const satisfies Record<keyof ActorRecord, true>;
