/**
 * What every connection of a local server shares ({@link ConnectionContext}: the query engine,
 * the protocol session, the commit tracker, the caches, and the bounds a connection keeps to),
 * and the largest client message the server holds the chunks of. `createLocalServer` builds
 * it once; each `Connection` reads it.
 */
import type { Logger } from '@baton/core';
import { MAX_MESSAGE_BYTES } from '@baton/core';
import { type Clock, payloadLimit, type StoreLimits } from '@baton/core/adapter';
import type { ByteBudget } from '@baton/protocol';
import type { QueryEngine } from '../QueryEngine.ts';
import type { ProtocolSession } from '../session/ProtocolSession.ts';
import type { CommitTracker } from './CommitTracker.ts';
import type { ResultCache } from './ResultCache.ts';
import type { SharedFrames } from './SharedFrames.ts';

/**
 * What every connection of a server shares.
 *
 * @example
 * const context: ConnectionContext = { engine, session, tracker, cache, frames, clock, logger, leaseMs };
 */
export interface ConnectionContext {
  readonly engine: QueryEngine;
  /** The protocol: frames, access, caps and replies, shared with the API Gateway host. */
  readonly session: ProtocolSession;
  readonly tracker: CommitTracker;
  readonly cache: ResultCache;
  /** Result frames encoded once for all the server's subscriptions. */
  readonly frames: SharedFrames;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly leaseMs: number;
  /** Bytes that may wait unread in a client's socket before the connection is closed (4413). */
  readonly maxUnreadBytes: number;
  /**
   * The most bytes of chunked client messages a connection holds, one message or several
   * together: the largest message a client may send (see {@link maxClientMessageBytes}).
   */
  readonly maxChunkedBytes: number;
  /** What all connections hold of chunked client messages together (`maxAssemblingBytes`). */
  readonly assembling: ByteBudget;
}

/**
 * The largest message a client may send in chunks: the largest payload the doors take (half the
 * store's item, `payloadLimit`; never past a queue message) and a frame's room for what the frame
 * adds around it. A longer one could never be taken, so the host holds no more of it: the
 * assembler's own defaults (8 MiB a message, 16 MiB in all) let one user with a hundred
 * connections make the host hold gigabytes.
 *
 * @example
 * maxClientMessageBytes(131_072, store.limits); // 331,072 on the embedded store's 400,000
 */
export function maxClientMessageBytes(maxFrameBytes: number, limits: StoreLimits): number {
  return Math.min(payloadLimit(limits), MAX_MESSAGE_BYTES) + maxFrameBytes;
}
