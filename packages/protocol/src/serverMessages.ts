/** The frames a server sends (protocol version 1). See the package README for the full protocol. */
import type { SerializedError } from '@baton/core';
import type { JsonPatchOp } from './JsonPatchOp.ts';
import type { ChunkMessage } from './messages.ts';

/**
 * A query's full value at instance `version`, with its content `hash`.
 *
 * @example
 * { "v": 1, "type": "result", "id": "s1", "version": 8, "hash": "a1b2", "value": { "balance": 30 } }
 */
export interface ResultMessage {
  readonly v: 1;
  readonly type: 'result';
  readonly id: string;
  readonly version: number;
  readonly hash: string;
  readonly value: unknown;
}

/**
 * The change from the value at `baseVersion`, which the client holds, to the one at `version`.
 *
 * @example
 * { "v": 1, "type": "patch", "id": "s1", "version": 9, "hash": "c3d4", "baseVersion": 8,
 *   "ops": [{ "op": "replace", "path": "/balance", "value": 35 }] }
 */
export interface PatchMessage {
  readonly v: 1;
  readonly type: 'patch';
  readonly id: string;
  readonly version: number;
  readonly hash: string;
  readonly baseVersion: number;
  readonly ops: readonly JsonPatchOp[];
}

/**
 * The value the client holds is current; the version it is known by may have moved.
 *
 * @example
 * { "v": 1, "type": "unchanged", "id": "s1", "version": 9, "hash": "c3d4" }
 */
export interface UnchangedMessage {
  readonly v: 1;
  readonly type: 'unchanged';
  readonly id: string;
  readonly version: number;
  readonly hash: string;
}

/**
 * An error for one subscription (`id`), one request (`requestId`), or — with neither — the
 * connection (e.g. a malformed frame). `error.code` is a core `ErrorCode`; a client should
 * accept codes it does not know, as newer servers may add some.
 *
 * @example
 * { "v": 1, "type": "error", "id": "s1",
 *   "error": { "code": "INVALID_PAYLOAD", "message": "args.account: expected string", "details": {} } }
 */
export interface ErrorMessage {
  readonly v: 1;
  readonly type: 'error';
  readonly id?: string;
  readonly requestId?: string;
  readonly error: SerializedError;
}

/**
 * A `send` or `ask` was accepted (enqueued) as message `messageId`.
 *
 * @example
 * { "v": 1, "type": "accepted", "requestId": "r1", "messageId": "dep-1" }
 */
export interface AcceptedMessage {
  readonly v: 1;
  readonly type: 'accepted';
  readonly requestId: string;
  readonly messageId: string;
}

/**
 * An `ask`'s reply.
 *
 * @example
 * { "v": 1, "type": "reply", "requestId": "r2", "value": 30 }
 */
export interface ReplyMessage {
  readonly v: 1;
  readonly type: 'reply';
  readonly requestId: string;
  readonly value: unknown;
}

/**
 * A `send` with `visible: true` has committed and its effects show in every query this client
 * subscribes to (read-your-writes).
 *
 * @example
 * { "v": 1, "type": "visible", "requestId": "r1", "messageId": "dep-1" }
 */
export interface VisibleMessage {
  readonly v: 1;
  readonly type: 'visible';
  readonly requestId: string;
  readonly messageId: string;
}

/**
 * The answer to a `ping`, echoing its `t`.
 *
 * @example
 * { "v": 1, "type": "pong", "t": 1718000000000 }
 */
export interface PongMessage {
  readonly v: 1;
  readonly type: 'pong';
  readonly t: number;
}

/**
 * Every frame a server sends.
 *
 * @example
 * const frame: ServerMessage = { v: 1, type: 'pong', t: Date.now() };
 */
export type ServerMessage =
  | ResultMessage
  | PatchMessage
  | UnchangedMessage
  | ErrorMessage
  | AcceptedMessage
  | ReplyMessage
  | VisibleMessage
  | PongMessage
  | ChunkMessage;
