/**
 * What a `Client` is made with, and what its calls take and give: the options of a send,
 * an ask and a signal, and a send's result.
 */
import type { AnyActorDefinition } from '../actor.ts';
import type { Clock, Queue, Store } from '../adapter/ports.ts';
import type { Caller } from '../caller.ts';
import type { EventInput, EventSchemas } from '../workflow/workflow.ts';

/** What a `Client` sends through, reads from and checks messages against. */
export interface ClientOptions {
  readonly actors: readonly AnyActorDefinition[];
  readonly store: Store;
  readonly queue: Queue;
  /** @default the system clock */
  readonly clock?: Clock;
  /** How long `ask` waits for the reply. @default 30 s */
  readonly askTimeoutMs?: number;
  /**
   * The engine's `idempotencyRetentionMs`: how long an outcome is kept. A key stays bound to its
   * message (claimed) twice that from its send, past the end of any outcome of it. @default 14 days
   */
  readonly idempotencyRetentionMs?: number;
}

export interface SendOptions {
  /**
   * Makes the send idempotent: a message with a key already accepted (within 14 days) is not
   * processed again. Pass the same key when retrying. A key is scoped by its target actor (and
   * `caller`) and bound to its message when first sent: used again for another message (another
   * name or payload) it is refused with IDEMPOTENCY_KEY_REUSED, also while the first message
   * still waits to be processed.
   * @default a receipt: the send's time, a random nonce and a tag only the app's doors make
   */
  readonly idempotencyKey?: string;
  /**
   * Who is calling, as the host authenticated them (e.g. `callerOf(identity)`): the message is
   * refused (FORBIDDEN) unless this caller may send it — a public handler whose `authorize` lets
   * it through — and the handler sees it as `ctx.caller`. Keys are scoped by it, so one caller
   * can neither shadow nor read another's messages.
   * @default the client's own: anonymous, or the system for `client.asSystem()`
   */
  readonly caller?: Caller;
  /**
   * A W3C `traceparent` (`00-<trace id>-<parent id>-<flags>`): the message, and every message
   * sent in consequence, carries the trace, and handlers log its ids.
   * @default none
   */
  readonly traceparent?: string;
  /**
   * Marks the message as one its caller waits for the outcome of ({@link Envelope.awaited}), as
   * `ask` does: for a host that waits for it by its own means (a WebSocket ask, a visible
   * send). Told DEAD_LETTERED, such a caller may act on that answer, so a redrive of the dead
   * letter needs force. It does not change the message: a send and an ask under one key are
   * one message, and the first decides — an ask under the key of a plain send whose message is
   * kept as a dead letter is not told DEAD_LETTERED but waits with it (`awaitsRedrive`).
   * @default false
   */
  readonly awaited?: boolean;
}

/** What `cancel` and `terminate` take: a send's options, and why (kept in the instance's error). */
export type EndOptions = SendOptions & { readonly reason?: string };

export interface AskOptions extends SendOptions {
  /** @default the client's askTimeoutMs */
  readonly timeoutMs?: number;
}

/**
 * The payload and options of `client.signal`: a payload its event's schema takes (optional when
 * it takes `undefined`), or anything when the workflow declares no `events`.
 */
export type SignalArgs<Events extends EventSchemas, Name extends string> =
  undefined extends EventInput<Events, Name>
    ? [payload?: EventInput<Events, Name>, options?: SendOptions]
    : [payload: EventInput<Events, Name>, options?: SendOptions];

/** What a send resolves with once its message is accepted. */
export interface SendResult {
  readonly messageId: string;
  /**
   * When the message was first sent (a retry's is its first send's): passed to
   * `Store.readIdempotency`, it spares the read every outcome page of messages sent before.
   */
  readonly sentAt: number;
}
