/** The idempotency records a turn commits for ingress messages: each one's outcome (I7). */
import { type Envelope, INGRESS } from '../adapter/envelope.ts';
import type { IdempotencyRecord, Outcome } from '../adapter/storedRecords.ts';
import type { BatonError, SerializedError } from '../errors.ts';
import type { TurnEngine } from './createEngine.ts';
import { maxOutcomeBytes, outcomeTooLarge } from './outcomePages.ts';

/** A failed outcome; its details cut to the gist when they would not fit a record. */
export function failedOutcome(
  engine: TurnEngine,
  envelope: Envelope,
  error: BatonError,
): IdempotencyRecord | undefined {
  const idempotency = idempotencyFor(engine, envelope, { ok: false, error: error.toJSON() });
  // Error details too large to store would fail every commit of the batch: keep the gist.
  const limit = maxOutcomeBytes(engine.store);
  if (idempotency && outcomeTooLarge(engine.store, idempotency)) {
    return { ...idempotency, outcome: { ok: false, error: errorGist(error.toJSON(), limit) } };
  }
  return idempotency;
}

/**
 * An error cut to its gist — its code, the start of its message, its causes' codes — for an item
 * of `limit` bytes. The causes' codes say why a message was kept as a dead letter (a
 * DEAD_LETTERED caused by MESSAGE_TOO_LARGE or INVALID_STATE waits for a fix to be deployed); the
 * innermost is what an operator reads first (a deploy's letter nests RETRYABLE, then
 * INVALID_PAYLOAD).
 */
export function errorGist(error: SerializedError, limit: number): SerializedError {
  return {
    code: error.code,
    message: error.message.slice(0, Math.min(1000, Math.floor(limit / 4))),
    details: { truncated: true, ...causeCodes(error.details) },
  };
}

/** `details`' cause and the causes nested in it, each as its code alone (`depth` at most). */
function causeCodes(details: unknown, depth = 4): { cause?: unknown } {
  const cause = (details as { cause?: { code?: unknown; details?: unknown } } | undefined)?.cause;
  return typeof cause?.code === 'string' && depth > 0
    ? { cause: { code: cause.code, details: causeCodes(cause.details, depth - 1) } }
    : {};
}

/** The outcome record of an ingress message (none for actor messages and timer fires). */
export function idempotencyFor(
  engine: TurnEngine,
  envelope: Envelope,
  outcome: Outcome,
  now = engine.clock.now(),
): IdempotencyRecord | undefined {
  if (envelope.from !== INGRESS) return undefined;
  return {
    key: envelope.id,
    actorId: envelope.to,
    outcome,
    expiresAt: now + engine.idempotencyRetentionMs,
    ...(envelope.fingerprint && { fingerprint: envelope.fingerprint }),
    // Kept only in an outcome page (see outcomePages.ts); the commit drops it from an item.
    sentAt: envelope.sentAt,
  } as IdempotencyRecord;
}
