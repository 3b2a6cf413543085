/**
 * Envelopes and actor ids: the names every part of Baton shares.
 *
 * An actor id is `type/key`. An envelope's `id` is unique, in one of two namespaces that can
 * never meet: `<from>:<seq>` for actor senders (an actor type holds no `:` or `/`, so the id
 * has a `/` before its first `:`), and `ingress:[…]` for client ingress, scoped by target actor
 * and caller (see {@link ingressMessageId}). A client's idempotency key therefore can never
 * name, or shadow, a message an actor sent.
 */
import { canonicalJson } from './canonicalJson.ts';

/** The `from` of messages that enter through a client rather than from an actor. */
export const INGRESS = 'ingress';

export interface Envelope {
  readonly id: string;
  /** The sender: an actor id, or {@link INGRESS}. */
  readonly from: string;
  /** The sender's sequence number (1, 2, …) for actor senders; 0 for ingress. */
  readonly seq: number;
  /**
   * Actor senders: the `seq` of the sender's previous message to the same target, 0 when this
   * one opens the channel. The receiver compares it with the last `seq` it applied from the
   * sender, so it tells "already applied" from "missing" (a gap is reported, never swallowed).
   */
  readonly prev?: number;
  readonly to: string;
  readonly name: string;
  readonly payload: unknown;
  readonly sentAt: number;
  /**
   * Ingress only: a digest of `name` and `payload`, stored with the message's outcome, so a key
   * reused for another message is refused (IDEMPOTENCY_KEY_REUSED) instead of answered.
   */
  readonly fingerprint?: string;
  /**
   * Set on a dead letter sent back to its actor: the dead letter's `at`. The engine applies the
   * message only while that dead letter is still kept, so a redrive applies it once.
   */
  readonly redrive?: number;
  /**
   * W3C trace context: given at ingress (`SendOptions.traceparent`, or the ingress's
   * `traceparent` header) and carried by every message sent in consequence, each naming the
   * span of the handling that sent it (see traceContext.ts).
   */
  readonly traceparent?: string;
}

/** The id of the `seq`-th message an actor sent. */
export function actorMessageId(from: string, seq: number): string {
  return `${from}:${seq}`;
}

/**
 * The id of an ingress message: the client's idempotency key scoped by its target actor and,
 * where there is one, the caller's identity — so one key used for two actors, or by two users,
 * names two messages.
 *
 * @example
 * ingressMessageId('account/alice', 'dep-1'); // 'ingress:["account/alice","dep-1"]'
 * ingressMessageId('account/alice', 'dep-1', { user: 'u1' }); // 'ingress:["account/alice","dep-1",{"user":"u1"}]'
 */
export function ingressMessageId(to: string, key: string, caller?: unknown): string {
  const scope = caller === undefined ? [to, key] : [to, key, caller];
  return `ingress:${canonicalJson(scope, 'the caller identity')}`;
}

export function actorId(type: string, key: string): string {
  return `${type}/${key}`;
}

/** Splits `type/key` at the first slash (keys may hold slashes). */
export function parseActorId(id: string): { type: string; key: string } | undefined {
  const slash = id.indexOf('/');
  if (slash <= 0 || slash === id.length - 1) return undefined;
  return { type: id.slice(0, slash), key: id.slice(slash + 1) };
}

export function isActorSender(envelope: Envelope): boolean {
  return envelope.from !== INGRESS;
}

export function encodeEnvelope(envelope: Envelope): string {
  return JSON.stringify(envelope);
}

export function decodeEnvelope(body: string): Envelope | undefined {
  try {
    const value = JSON.parse(body) as Partial<Envelope>;
    if (
      typeof value.id === 'string' &&
      typeof value.from === 'string' &&
      typeof value.seq === 'number' &&
      typeof value.to === 'string' &&
      typeof value.name === 'string' &&
      typeof value.sentAt === 'number' &&
      (value.prev === undefined || typeof value.prev === 'number') &&
      (value.fingerprint === undefined || typeof value.fingerprint === 'string') &&
      (value.redrive === undefined || typeof value.redrive === 'number') &&
      (value.traceparent === undefined || typeof value.traceparent === 'string')
    ) {
      return value as Envelope;
    }
  } catch {
    // fall through: not an envelope
  }
  return undefined;
}
