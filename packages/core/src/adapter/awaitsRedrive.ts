import { ErrorCode, type SerializedError } from '../errors.ts';
import type { IdempotencyRecord } from './storedRecords.ts';

/**
 * Whether an ingress message's outcome waits still: DEAD_LETTERED, while its actor keeps its
 * letter for a redrive that needs no force — the letter of a client's plain send, whose client
 * waited for no answer — or ACTOR_PAUSED, while the message is parked at its paused actor. The
 * engine marks such an outcome (`details.awaitsRedrive`) in the commit that keeps the letter,
 * and replaces it in the commit that ends the letter: a redrive's (or a resume's) applies the
 * message (its real outcome), a purge's leaves DEAD_LETTERED unmarked, for good. A read of the
 * outcome is given it as it is; an ask, or a WebSocket request that waits, under the key goes on
 * waiting, so that no caller is told DEAD_LETTERED (or ACTOR_PAUSED) of a message a plain
 * redrive (or the resume) may apply still.
 *
 * @example
 * const record = await store.readIdempotency(messageId);
 * if (record && !awaitsRedrive(record)) answer(record.outcome);
 */
export function awaitsRedrive(record: Pick<IdempotencyRecord, 'outcome'>): boolean {
  const { outcome } = record;
  return !outcome.ok && outcome.error.details.awaitsRedrive === true;
}

/**
 * Whether `record` is the outcome held for a client's message parked at its paused actor: no
 * outcome yet, which the resume replaces with the message's own.
 */
export function heldAtPause(record: Pick<IdempotencyRecord, 'outcome'>): boolean {
  return (
    awaitsRedrive(record) &&
    !record.outcome.ok &&
    record.outcome.error.code === ErrorCode.ACTOR_PAUSED
  );
}

/** `error` marked as the outcome of a message whose letter waits for a redrive ({@link awaitsRedrive}). */
export function markedAwaitingRedrive(error: SerializedError): SerializedError {
  return { ...error, details: { ...error.details, awaitsRedrive: true } };
}

/** The outcome `record` as final: its letter was purged ({@link awaitsRedrive} no more). */
export function endedWithoutRedrive(record: IdempotencyRecord): IdempotencyRecord {
  const { outcome } = record;
  if (outcome.ok) return record;
  const { awaitsRedrive: _, ...details } = outcome.error.details;
  return { ...record, outcome: { ok: false, error: { ...outcome.error, details } } };
}
