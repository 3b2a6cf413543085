/**
 * Envelopes and actor ids: the names every part of Baton shares.
 *
 * An actor id is `type/key`. An envelope's `id` is unique over time, in namespaces that can
 * never meet: `<from>:<life>.<seq>` for actor senders (see {@link actorMessageId}; an actor
 * type holds no `:` or `/`, so the id has a `/` before its first `:`), `ingress:[…]` for client ingress, scoped by target actor
 * and caller (see {@link ingressMessageId}), and `timer:[…]` for the fire of a durable timer. A
 * client's idempotency key therefore can never name, or shadow, a message an actor sent.
 */
import { type Caller, callerDigest, isCaller } from '../caller.ts';
import { canonicalJson } from '../shared/canonicalJson.ts';

export { actorId, parseActorId } from '../shared/actorId.ts';

/** The `from` of messages that enter through a client rather than from an actor. */
export const INGRESS = 'ingress';
/** The `from` of a durable timer's fire: a message the actor scheduled to itself. */
export const TIMER = 'timer';

export interface Envelope {
  readonly id: string;
  /** The sender: an actor id, {@link INGRESS} or {@link TIMER}. */
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
   * Ingress only: set on a client's ask (and on a host's request that waits for its outcome, a
   * WebSocket ask or visible send), whose caller waits for its outcome, so is told DEAD_LETTERED
   * if the message is kept as a dead letter. A plain send's caller waits for nothing. It is no
   * part of the `fingerprint`: a send and an ask under one key are one message.
   */
  readonly awaited?: true;
  /**
   * Set on a dead letter sent back to its actor: the dead letter's `at`. The engine applies the
   * message only while that dead letter is still kept, so a redrive applies it once.
   */
  readonly redrive?: number;
  /**
   * Set on a redrive with force: applied even to a life of its actor other than the one its
   * letter was kept in (see `ofEndedLife`), which a plain redrive, checked again when it is
   * applied, leaves kept.
   */
  readonly redriveForced?: true;
  /**
   * W3C trace context: given at ingress (`SendOptions.traceparent`, or the ingress's
   * `traceparent` header) and carried by every message sent in consequence, each naming the
   * span of the handling that sent it (see traceContext.ts).
   */
  readonly traceparent?: string;
  /**
   * Set on a timer's fire: which timer, and which scheduling of it. The engine applies it only
   * while that timer is stored (its name, payload and trace come from there), then removes it.
   */
  readonly timer?: { readonly id: string; readonly gen: string };
  /**
   * Ingress only: who sent it, as the door (or `Client`) named them — what the handler sees as
   * `ctx.caller`. Actors and timers are named by `from`.
   */
  readonly caller?: Caller;
  /** Set on an actor's `ctx.ask`: the ask's id, which the reply names. */
  readonly ask?: string;
  /**
   * Set on the reply to an ask (its payload is the outcome): the ask's id. The asker applies it
   * to its continuation only while the ask's timeout timer is stored, and removes that timer.
   */
  readonly replyTo?: string;
  /**
   * Set by a drain on a message of a sender's life that ended before it went out (the sender
   * halted, and its record expired while the message waited in its outbox). A new life of the
   * sender counts its `seq` from 1 again, so the receiver's mark for the sender tells nothing of
   * this one: it is kept as a dead letter (DEAD_LETTERED), never applied unless redriven.
   */
  readonly lifeEnded?: true;
  /**
   * Keyed ingress only: when the claim that binds its key to it lapses (`KeyClaim.expiresAt`),
   * after which the key may bind a message sent anew, which has this one's id and is taken as a
   * new one. Its dead letter, kept that long, is then too old to tell whether it was applied
   * (see `keyClaimLapsed`). Workers neither read nor check it.
   */
  readonly keyHeldUntil?: number;
  /**
   * The envelope format of the Baton that wrote it ({@link ENVELOPE_FORMAT}), absent for format 1.
   * A Baton that adds a field older code must not ignore (as `lifeEnded` would have been)
   * raises it on the envelopes that carry the field.
   */
  readonly format?: number;
}

/**
 * The envelope format this Baton reads. A worker leaves a message of a newer format in the inbox
 * ({@link isNewerEnvelope}), redelivered, until it runs the newer Baton: applied by older code, the
 * message would lose the meaning of the fields that code does not know.
 */
export const ENVELOPE_FORMAT = 1;

/**
 * What a worker logs (error, with `actor`, `messageId` and `format`) for an inbox message a newer
 * Baton wrote, left in the inbox with the messages behind it until the worker runs that Baton.
 */
export const NEWER_ENVELOPE_LOG = 'message of a newer Baton left in the inbox';

/** Whether a newer Baton wrote `envelope`, in a format this one must not apply. */
export function isNewerEnvelope(envelope: Envelope): boolean {
  return (envelope.format ?? 1) > ENVELOPE_FORMAT;
}

/**
 * The id of the `seq`-th message an actor sent in its life `life`: unique over every life of
 * the actor, since a new life counts `seq` from 1 again. A record written before lives existed
 * has none, and its messages keep the `<from>:<seq>` they had.
 *
 * @example
 * actorMessageId('order/o-1', 3, 'k3j9x2m1qa0z'); // 'order/o-1:k3j9x2m1qa0z.3'
 */
export function actorMessageId(from: string, seq: number, life?: string): string {
  return life === undefined ? `${from}:${seq}` : `${from}:${life}.${seq}`;
}

/**
 * The id of an ingress message: the client's idempotency key scoped by its target actor and,
 * unless anonymous, a digest of the caller ({@link callerDigest}: a pseudonym, which a reader
 * who guesses the caller can check) — so one key used for two actors, or by two callers, names
 * two messages, and the same caller retrying with the same key names the same one.
 *
 * @example
 * ingressMessageId('account/alice', 'dep-1'); // 'ingress:["account/alice","dep-1"]'
 * ingressMessageId('account/alice', 'dep-1', { kind: 'user', identity: { userId: 'u1' } });
 * // 'ingress:["account/alice","dep-1","<22 characters>"]'
 */
export function ingressMessageId(to: string, key: string, caller?: Caller): string {
  const scope =
    caller === undefined || caller.kind === 'anonymous'
      ? [to, key]
      : [to, key, callerDigest(caller)];
  return `ingress:${canonicalJson(scope, 'an ingress id')}`;
}

/**
 * The target and key of an id made by {@link ingressMessageId}, if it is one, and whether it
 * was made for `caller`: a host hands an outcome only to the caller whose message it answers.
 *
 * @example
 * const id = ingressMessageId('account/alice', 'dep-1', caller);
 * ingressIdBelongsTo(id, caller); // true
 * ingressIdBelongsTo(id, { kind: 'anonymous' }); // false
 */
export function ingressIdBelongsTo(id: string, caller: Caller): boolean {
  const scope = ingressScope(id);
  return scope !== undefined && ingressMessageId(scope[0], scope[1], caller) === id;
}

/**
 * The target actor of an id made by {@link ingressMessageId}, if it is one.
 *
 * @example
 * ingressTarget(ingressMessageId('account/alice', 'dep-1')); // 'account/alice'
 * ingressTarget('account/bob:k3j9x2m1qa0z.3'); // undefined
 */
export function ingressTarget(id: string): string | undefined {
  return ingressScope(id)?.[0];
}

function ingressScope(id: string): [string, string] | undefined {
  if (!id.startsWith('ingress:')) return undefined;
  let scope: unknown;
  try {
    scope = JSON.parse(id.slice('ingress:'.length));
  } catch {
    return undefined;
  }
  if (!Array.isArray(scope) || typeof scope[0] !== 'string' || typeof scope[1] !== 'string') {
    return undefined;
  }
  return [scope[0], scope[1]];
}

/** The `to` of an effect's runs: `$effect/<name>` (an actor type never starts with `$`). */
export function effectTarget(name: string): string {
  return `$effect/${name}`;
}

/** The effect name of a `to` made by {@link effectTarget}, else `undefined`. */
export function effectOf(to: string): string | undefined {
  return to.startsWith('$effect/') ? to.slice('$effect/'.length) : undefined;
}

/**
 * The inbox message group of an envelope: its target actor; for an effect, the effect and the
 * actor that asked for it, so each actor's effects run in order without holding up others'.
 */
export function messageGroup(envelope: Envelope): string {
  return effectOf(envelope.to) === undefined ? envelope.to : `${envelope.to}/${envelope.from}`;
}

/** The message name of an ask's reply until the asker gives it its continuation's. */
export const ASK_REPLY = '$reply';

/** The id of the timer that holds an ask's continuation and fires its timeout. */
export function askTimerId(askId: string): string {
  return `ask:${askId}`;
}

/** The id of the fire of one scheduling (`gen`) of an actor's timer `id`. */
export function timerMessageId(actorId: string, id: string, gen: string): string {
  return `${TIMER}:${canonicalJson([actorId, id, gen], 'a timer id')}`;
}

/** Whether an actor sent it (not a client, not a timer): it travels on a channel with `seq`/`prev`. */
export function isActorSender(envelope: Envelope): boolean {
  return envelope.from !== INGRESS && envelope.from !== TIMER;
}

export function encodeEnvelope(envelope: Envelope): string {
  return JSON.stringify(envelope);
}

export function decodeEnvelope(body: string): Envelope | undefined {
  try {
    const value = JSON.parse(body) as Record<string, unknown>;
    for (const field in FIELDS) if (typeof value[field] !== FIELDS[field]) return undefined;
    for (const field in OPTIONAL_FIELDS) {
      const given = value[field];
      if (given !== undefined && typeof given !== OPTIONAL_FIELDS[field]) return undefined;
    }
    if (
      (value.awaited === undefined || value.awaited === true) &&
      (value.timer === undefined || isTimerRef(value.timer)) &&
      (value.caller === undefined || isCaller(value.caller)) &&
      (value.lifeEnded === undefined || value.lifeEnded === true)
    ) {
      return value as unknown as Envelope;
    }
  } catch {
    // fall through: not an envelope (`null` or not JSON)
  }
  return undefined;
}

/** The type of each field every envelope has. */
const FIELDS: Readonly<Record<string, string>> = {
  id: 'string',
  from: 'string',
  seq: 'number',
  to: 'string',
  name: 'string',
  sentAt: 'number',
};

/**
 * The type of each field an envelope may have, but for `timer`, `caller`, `awaited` and
 * `lifeEnded`.
 */
const OPTIONAL_FIELDS: Readonly<Record<string, string>> = {
  prev: 'number',
  fingerprint: 'string',
  redrive: 'number',
  traceparent: 'string',
  ask: 'string',
  replyTo: 'string',
  format: 'number',
};

function isTimerRef(value: unknown): boolean {
  const ref = value as { id?: unknown; gen?: unknown } | null;
  return (
    typeof ref === 'object' &&
    ref !== null &&
    typeof ref.id === 'string' &&
    typeof ref.gen === 'string'
  );
}
