/**
 * Baton's WebSocket wire protocol, version 1: every frame is one JSON object with a `type` and
 * the protocol version `v`. The frames themselves are in `clientMessages.ts` and
 * `serverMessages.ts`; `decodeFrame.ts` checks text against them.
 */
import type { ClientMessage } from './clientMessages.ts';
import type { ServerMessage } from './serverMessages.ts';

/**
 * The protocol version this package speaks. A frame with another `v` is refused.
 *
 * @example
 * const ping: PingMessage = { v: PROTOCOL_VERSION, type: 'ping', t: Date.now() };
 */
export const PROTOCOL_VERSION = 1;

/**
 * The versions a decoder accepts (today just {@link PROTOCOL_VERSION}).
 *
 * @example
 * if (!SUPPORTED_VERSIONS.includes(frame.v)) console.warn('old client');
 */
export const SUPPORTED_VERSIONS: readonly number[] = [PROTOCOL_VERSION];

/**
 * API Gateway's WebSocket message limit: the largest frame either side sends or accepts.
 *
 * @example
 * const frames = splitFrame(text, MAX_FRAME_BYTES);
 */
export const MAX_FRAME_BYTES = 128 * 1024;

/**
 * The most characters of an id a client chooses: a subscription's `id`, a request's
 * `requestId`, an `idempotencyKey`, a `chunkId`. A host keeps such ids while they live and sends
 * them back with every answer, so a longer one is refused (INVALID_PAYLOAD), not held.
 *
 * @example
 * if (id.length > MAX_ID_LENGTH) throw new Error('pick a shorter subscription id');
 */
export const MAX_ID_LENGTH = 256;

/**
 * The frame types each side sends, in a stable order.
 *
 * @example
 * CLIENT_MESSAGE_TYPES.includes('subscribe'); // true
 */
export const CLIENT_MESSAGE_TYPES = [
  'subscribe',
  'unsubscribe',
  'send',
  'ask',
  'ack',
  'acks',
  'received',
  'ping',
  'chunk',
] as const satisfies readonly ClientMessage['type'][];

/** @example SERVER_MESSAGE_TYPES.includes('patch'); // true */
export const SERVER_MESSAGE_TYPES = [
  'result',
  'patch',
  'unchanged',
  'error',
  'accepted',
  'reply',
  'visible',
  'pong',
  'chunk',
] as const satisfies readonly ServerMessage['type'][];

/**
 * A subscriber's last known result: where a resumed subscription starts from.
 *
 * @example
 * const resume: ResumePoint = { version: 7, hash: '9f2c' };
 */
export interface ResumePoint {
  /** The instance version of the last result the client holds. */
  readonly version: number;
  /** That result's content hash, as the server sent it. */
  readonly hash: string;
}

/**
 * The highest version a client's resume may raise a shared query instance to. A resume raises
 * the instance's version to the client's, so that versions never go back for it after a server
 * restarted or an instance was dropped; the instance is shared, so without a bound one client
 * could raise it to the last safe integer, past which it cannot count, and freeze every other
 * subscriber's view. 2^52 leaves 2^52 changes before that.
 */
export const MAX_RESUME_VERSION = 2 ** 52;

/**
 * The version an instance must reach for a client resuming from `resume`: the one it holds when
 * the instance's result is the one it holds (`hash`), else the next; at most
 * {@link MAX_RESUME_VERSION}, and 0 for a fresh subscription.
 *
 * @example
 * resumeFloor({ version: 7, hash: '9f2c' }, '9f2c'); // 7
 */
export function resumeFloor(resume: ResumePoint | undefined, hash: string | undefined): number {
  if (resume === undefined) return 0;
  const floor = hash === resume.hash ? resume.version : resume.version + 1;
  return Math.min(floor, MAX_RESUME_VERSION);
}

/**
 * One piece of a frame too large to send whole; either side may send it (see `splitFrame` and
 * `ChunkAssembler`). The joined `data` of all `count` pieces is the original frame's text,
 * which must not itself be a chunk.
 *
 * @example
 * { "v": 1, "type": "chunk", "chunkId": "k7f3-1", "index": 0, "count": 3, "data": "{\"v\":1,\"ty" }
 */
export interface ChunkMessage {
  readonly v: 1;
  readonly type: 'chunk';
  /** Names the split frame; unique per sender and connection. */
  readonly chunkId: string;
  /** 0-based position of this piece. */
  readonly index: number;
  /** How many pieces the frame was split into. */
  readonly count: number;
  /** This piece of the frame's text. */
  readonly data: string;
}

/**
 * Any protocol frame.
 *
 * @example
 * const text = encodeMessage({ v: 1, type: 'pong', t: 1 } satisfies Message);
 */
export type Message = ClientMessage | ServerMessage;
