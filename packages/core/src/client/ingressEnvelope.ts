/**
 * The envelope of a message from outside (`client.send`, `ask`, `check`), checked before anything
 * is enqueued: its idempotency key and trace context, the caller's right to send it
 * (`authorize`), and its payload against the handler's schema.
 */
import { authorizeMessage } from '../access.ts';
import type { ActorRef } from '../actor.ts';
import { type Envelope, INGRESS, ingressMessageId } from '../adapter/envelope.ts';
import { messageFingerprint } from '../adapter/fingerprint.ts';
import { parseTraceparent } from '../adapter/traceContext.ts';
import type { Caller } from '../caller.ts';
import { BatonError, ErrorCode } from '../errors.ts';
import type { Registry } from '../registry.ts';
import { clip } from '../shared/clip.ts';
import { parseStored } from '../storedPayload.ts';
import type { SendOptions } from './clientOptions.ts';

/** Who a message speaks for, and what a refusal of an implicit anonymous caller adds. */
export interface Sender {
  readonly caller: Caller;
  readonly hint: string | undefined;
}

/**
 * Message `name` to `to` with `payload`, sent at `now` by `sender`: its id is the idempotency
 * key's (a fresh one without), scoped by target and caller. Throws INVALID_ARGUMENT,
 * FORBIDDEN or INVALID_PAYLOAD, saying what to change.
 */
export function ingressEnvelope(
  registry: Registry,
  now: number,
  { caller, hint }: Sender,
  to: ActorRef,
  name: string,
  payload: unknown,
  options: SendOptions,
): Envelope {
  const key = options.idempotencyKey;
  if (key !== undefined && (typeof key !== 'string' || key.length === 0 || key.length > 200)) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      'idempotencyKey must be a non-empty string of at most 200 characters',
    );
  }
  if (options.traceparent !== undefined && !parseTraceparent(options.traceparent)) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `traceparent must be a W3C trace context, 00-<32 hex>-<16 hex>-<2 hex> with non-zero ids, got ${JSON.stringify(clip(String(options.traceparent)))}`,
    );
  }
  // The message as its receiver reads it: JSON.
  const { stored } = parseStored(`the payload of "${name}" to ${to.id}`, payload, (p) =>
    authorizeMessage(registry, caller, to.id, name, p, hint),
  );
  return {
    id: ingressMessageId(to.id, key ?? globalThis.crypto.randomUUID(), caller),
    from: INGRESS,
    seq: 0,
    to: to.id,
    name,
    payload: stored,
    sentAt: now,
    fingerprint: messageFingerprint(name, stored),
    ...(options.awaited === true ? { awaited: true as const } : {}),
    // An envelope without one is anonymous: the common case costs no bytes.
    ...(caller.kind === 'anonymous' ? {} : { caller }),
    ...(options.traceparent === undefined ? {} : { traceparent: options.traceparent }),
  };
}
