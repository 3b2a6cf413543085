/** The frames a client sends (protocol version 1). See the package README for the full protocol. */
import type { ChunkMessage, ResumePoint } from './messages.ts';

/**
 * Subscribes to a query. `id` is chosen by the client and names the subscription on this
 * connection; `resume` is set after a reconnect and is answered by `unchanged`, `patch` or
 * `result`.
 *
 * @example
 * { "v": 1, "type": "subscribe", "id": "s1", "query": "balance", "args": { "account": "alice" },
 *   "resume": { "version": 7, "hash": "9f2c" } }
 */
export interface SubscribeMessage {
  readonly v: 1;
  readonly type: 'subscribe';
  readonly id: string;
  readonly query: string;
  readonly args: unknown;
  readonly resume?: ResumePoint;
}

/**
 * Ends a subscription.
 *
 * @example
 * { "v": 1, "type": "unsubscribe", "id": "s1" }
 */
export interface UnsubscribeMessage {
  readonly v: 1;
  readonly type: 'unsubscribe';
  readonly id: string;
}

/**
 * Sends a message to an actor; answered by `accepted` (or `error`), and with `visible: true`
 * later by `visible` once the send's commit shows in every query this client subscribes to.
 * Re-sending with the same `requestId` and `idempotencyKey` is idempotent.
 *
 * @example
 * { "v": 1, "type": "send", "requestId": "r1", "to": "account/alice", "name": "deposit",
 *   "payload": { "amount": 5 }, "idempotencyKey": "dep-1", "visible": true }
 */
export interface SendMessage {
  readonly v: 1;
  readonly type: 'send';
  readonly requestId: string;
  /** The target actor id, `type/key`. */
  readonly to: string;
  readonly name: string;
  readonly payload: unknown;
  readonly idempotencyKey: string;
  readonly visible?: boolean;
  /** A W3C trace context the message (and what it causes) carries. */
  readonly traceparent?: string;
}

/**
 * Sends a message to an actor and waits for the handler's reply: answered by `accepted`, then
 * `reply` (or `error`).
 *
 * @example
 * { "v": 1, "type": "ask", "requestId": "r2", "to": "account/alice", "name": "balance",
 *   "payload": {}, "idempotencyKey": "bal-1" }
 */
export interface AskMessage {
  readonly v: 1;
  readonly type: 'ask';
  readonly requestId: string;
  readonly to: string;
  readonly name: string;
  readonly payload: unknown;
  readonly idempotencyKey: string;
  /** A W3C trace context the message (and what it causes) carries. */
  readonly traceparent?: string;
}

/**
 * Acknowledges the push of `version` on subscription `id`. The server holds at most one
 * unacknowledged push per subscription and sends the newest value after the ack.
 *
 * @example
 * { "v": 1, "type": "ack", "id": "s1", "version": 8 }
 */
export interface AckMessage {
  readonly v: 1;
  readonly type: 'ack';
  readonly id: string;
  readonly version: number;
}

/**
 * Acknowledges the pushes of several subscriptions in one frame: `versions` maps each
 * subscription id to the version acknowledged, as one `ack` each would. A client that gets
 * several pushes at once (one commit moving several of its queries) answers them with one
 * frame, so they count once against the connection's frame rate. At least one entry.
 *
 * @example
 * { "v": 1, "type": "acks", "versions": { "s1": 8, "s2": 3 } }
 */
export interface AcksMessage {
  readonly v: 1;
  readonly type: 'acks';
  readonly versions: Readonly<Record<string, number>>;
}

/**
 * Acknowledges every push among the first `frames` frames the server sent on this socket: the
 * client has read and applied them. Spoken on the `baton.v1.received` subprotocol, where it
 * replaces `ack` and `acks`: one small frame per read, however many subscriptions it covers.
 * Frames are counted as WebSocket messages (each `chunk` is one), from 1 on each socket.
 *
 * @example
 * { "v": 1, "type": "received", "frames": 57 }
 */
export interface ReceivedMessage {
  readonly v: 1;
  readonly type: 'received';
  readonly frames: number;
}

/**
 * A heartbeat that keeps the socket and its subscription leases alive; `t` comes back in the
 * `pong`.
 *
 * @example
 * { "v": 1, "type": "ping", "t": 1718000000000 }
 */
export interface PingMessage {
  readonly v: 1;
  readonly type: 'ping';
  readonly t: number;
}

/**
 * Every frame a client sends.
 *
 * @example
 * const frame: ClientMessage = { v: 1, type: 'unsubscribe', id: 's1' };
 */
export type ClientMessage =
  | SubscribeMessage
  | UnsubscribeMessage
  | SendMessage
  | AskMessage
  | AckMessage
  | AcksMessage
  | ReceivedMessage
  | PingMessage
  | ChunkMessage;
