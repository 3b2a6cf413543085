/**
 * Envelopes and actor ids: the names every part of Baton shares.
 *
 * An actor id is `type/key`. An envelope's `id` is unique: `<from>:<seq>` for actor senders,
 * the idempotency key for client ingress.
 */

/** The `from` of messages that enter through a client rather than from an actor. */
export const INGRESS = 'ingress';

export interface Envelope {
  readonly id: string;
  /** The sender: an actor id, or {@link INGRESS}. */
  readonly from: string;
  /** The sender's sequence number (1, 2, …) for actor senders; 0 for ingress. */
  readonly seq: number;
  readonly to: string;
  readonly name: string;
  readonly payload: unknown;
  readonly sentAt: number;
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
      typeof value.sentAt === 'number'
    ) {
      return value as Envelope;
    }
  } catch {
    // fall through: not an envelope
  }
  return undefined;
}
