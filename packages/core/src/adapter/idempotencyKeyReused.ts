import { BatonError, ErrorCode } from '../errors.ts';

/**
 * Whether a stored outcome answers the message with `fingerprint`. A record or a request
 * without a fingerprint (stored before fingerprints existed) is taken to match, as before.
 *
 * @example
 * if (!answersMessage(record, messageFingerprint(name, payload))) throw idempotencyKeyReused(message);
 */
export function answersMessage(
  record: { readonly fingerprint?: string | undefined },
  fingerprint: string | undefined,
): boolean {
  return (
    record.fingerprint === undefined ||
    fingerprint === undefined ||
    record.fingerprint === fingerprint
  );
}

/**
 * The error for an idempotency key reused for another message: every ingress path (the core
 * `Client`, the WebSocket hosts) refuses with this one, never with the first message's outcome.
 *
 * @example
 * throw idempotencyKeyReused({ id: envelope.id, to: 'account/alice', name: 'deposit' });
 */
export function idempotencyKeyReused(message: {
  readonly id: string;
  readonly to: string;
  readonly name?: string | undefined;
}): BatonError {
  return new BatonError(
    ErrorCode.IDEMPOTENCY_KEY_REUSED,
    `the idempotency key of ${message.id} was already used for another message (another name or payload) to ${message.to}; its outcome is not returned: use a fresh key for a new message`,
    { details: { messageId: message.id, to: message.to, name: message.name } },
  );
}
