/**
 * Where a commit's writes go besides the record: its outcomes (a page, or an item each) and its
 * sends (held in the record, or outbox items apart).
 */
import { jsonSize } from '../adapter/conflicts.ts';
import type { StoreLimits } from '../adapter/ports.ts';
import type {
  ActorRecord,
  IdempotencyRecord,
  OutboxItem,
  OutcomePageWrite,
  PagedOutcome,
} from '../adapter/storedRecords.ts';
import type { Writable } from '../shared/Writable.ts';
import type { PendingWrites } from './commitParts.ts';
import { copyRecord } from './copyRecord.ts';
import { appendOutcomes } from './outcomePages.ts';

/**
 * The record a commit writes, at `ver`, and where its outcomes go: appended to the record's
 * current outcome page when the store keeps pages (one item), else one idempotency record each.
 * Each carries its message's `sentAt` (`idempotencyFor`), which only a page keeps. `measured`
 * is their summed `outcomeBytes`, when the caller has it already. The record is copied once.
 */
export function placeOutcomes(
  record: ActorRecord,
  ver: number,
  writes: PendingWrites,
  limits: StoreLimits,
  measured?: number,
): { record: ActorRecord; writes: PendingWrites } {
  const replaced = writes.replaceIdempotency?.map(withoutSentAt);
  const rest = replaced ? { ...writes, replaceIdempotency: replaced } : writes;
  const next = copyRecord(record);
  next.ver = ver;
  if (!record.outcomePage) {
    const idempotency = writes.idempotency.map(withoutSentAt);
    return { record: next, writes: { ...rest, idempotency } };
  }
  if (writes.idempotency.length === 0) return { record: next, writes: rest };
  const { state, write } = appendOutcomes(
    record.outcomePage,
    writes.idempotency as readonly PagedOutcome[],
    limits,
    measured,
  );
  next.outcomePage = state;
  return { record: next, writes: paged(rest, write) };
}

/**
 * `writes` with their outcomes in `page` instead of items: copied field by field, as records
 * are (see copyRecord). Every field of the writes is listed in {@link PENDING_FIELDS}.
 */
function paged(writes: PendingWrites, page: OutcomePageWrite): PendingWrites {
  const placed: Writable<PendingWrites> = {
    outbox: writes.outbox,
    idempotency: [],
    outcomes: page,
  };
  if (writes.replaceIdempotency) placed.replaceIdempotency = writes.replaceIdempotency;
  if (writes.deadLetters) placed.deadLetters = writes.deadLetters;
  if (writes.overflow) placed.overflow = writes.overflow;
  if (writes.timers) placed.timers = writes.timers;
  return placed;
}

/** The fields {@link paged} copies or sets: one added to `PendingWrites` fails to compile here. */
export const PENDING_FIELDS = {
  outbox: true,
  idempotency: true,
  replaceIdempotency: true,
  outcomes: true,
  deadLetters: true,
  overflow: true,
  timers: true,
} as const satisfies Record<keyof PendingWrites, true>;

function withoutSentAt(outcome: IdempotencyRecord): IdempotencyRecord {
  if (!('sentAt' in outcome)) return outcome;
  const { sentAt: _, ...rest } = outcome as PagedOutcome;
  return rest;
}

/**
 * `jsonSize` of `placed`, the copy of `record` that {@link placeOutcomes} made, from `bytes`,
 * the size of `record`: they differ only in `ver` and the outcome page state, so only those
 * two are measured.
 */
export function placedBytes(record: ActorRecord, placed: ActorRecord, bytes: number): number {
  let size = bytes + jsonSize(placed.ver) - jsonSize(record.ver);
  // placeOutcomes gives a new page state only to a record that has one.
  if (placed.outcomePage !== record.outcomePage) {
    size += jsonSize(placed.outcomePage) - jsonSize(record.outcomePage);
  }
  return size;
}

/**
 * Where a commit's sends go: held in the record when they fit there, so the commit can be one
 * write of one item, else in outbox items apart (and the record says so). `bytes` is the
 * record's size when it holds them (measured to decide). `recordBytes`, the size of `record`
 * when the caller knows it, spares a walk of the whole record: only the sends are measured.
 */
export function placeSends(
  record: ActorRecord,
  outbox: readonly OutboxItem[],
  limits: StoreLimits,
  recordBytes?: number,
): { record: ActorRecord; apart: readonly OutboxItem[]; bytes?: number } {
  if (outbox.length === 0) return { record, apart: [] };
  const holding = { ...record, outbox };
  const bytes =
    recordBytes === undefined ? jsonSize(holding) : heldBytes(record, outbox, recordBytes);
  if (bytes <= limits.maxItemBytes) return { record: holding, apart: [], bytes };
  const { life } = record;
  const apart = life === undefined ? outbox : outbox.map((item) => ({ ...item, life }));
  return { record: { ...record, outboxApart: true }, apart };
}

/** What marking a record whose sends go apart adds to it: a comma and `"outboxApart":true`. */
const OUTBOX_APART_BYTES = ',"outboxApart":true'.length;

/**
 * How much {@link placeSends} may grow `record` at its commit, after the turn measured it: the
 * `outboxApart` mark, when the commit's sends do not fit in the record. A turn keeps this room,
 * or a record that passed its size check could fail every commit, and its actor with it.
 */
export function apartMarkGrowth(record: ActorRecord): number {
  return record.outboxApart ? 0 : OUTBOX_APART_BYTES;
}

/** What holding sends adds to a record that holds none, besides them: a comma and `"outbox":`. */
const OUTBOX_MEMBER_BYTES = ',"outbox":'.length;

/** `jsonSize({ ...record, outbox })`, from `bytes`, the size of `record`. */
function heldBytes(record: ActorRecord, outbox: readonly OutboxItem[], bytes: number): number {
  const sends = jsonSize(outbox);
  // A record always has members (its id), so the sends come after a comma, or replace its own.
  return record.outbox === undefined
    ? bytes + OUTBOX_MEMBER_BYTES + sends
    : bytes - jsonSize(record.outbox) + sends;
}
