/**
 * What every connection of a local server shares ({@link ConnectionContext}: the query engine,
 * the protocol session, the commit tracker, the caches, and the bounds a connection keeps to),
 * and the largest client message the server holds the chunks of. `createLocalServer` builds
 * it once; each `Connection` reads it.
 */
import type { Logger } from '@baton/core';
import { MAX_MESSAGE_BYTES } from '@baton/core';
import type { Clock } from '@baton/core/adapter';
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
 * The largest message a client may send in chunks: a queue message (a send's envelope, which
 * carries its payload, is refused past it) and a frame's room for what the frame adds around
 * the payload. A longer one could never be taken, so the host holds no more of it: the
 * assembler's own defaults (8 MiB a message, 16 MiB in all) let one user with a hundred
 * connections make the host hold gigabytes.
 *
 * @example
 * maxClientMessageBytes(131_072); // 1,179,648
 */
export function maxClientMessageBytes(maxFrameBytes: number): number {
  return MAX_MESSAGE_BYTES + maxFrameBytes;
}
