import { BatonError, callerDigest, callerOf, ErrorCode } from '@baton/core';

/**
 * Abuse limits both WebSocket hosts apply, so that one client cannot exhaust a host: how many
 * subscriptions a connection may hold, how many frames it may send per second, and how many
 * connections one user may hold.
 *
 * @example
 * const limits: ConnectionLimits = { maxSubscriptions: 100, maxFramesPerSecond: 200 };
 */
export interface ConnectionLimits {
  /** Subscriptions one connection may hold at once; one more is LIMIT_EXCEEDED. @default 100 */
  readonly maxSubscriptions?: number;
  /**
   * Frames one connection may send per second (every frame counts, pings included); a frame
   * past it is dropped and answered RATE_LIMITED (the first ten a second), retryable after the
   * second ends. A connection that sends more than twice it in one second is closed (1008, or
   * `DeleteConnection` on API Gateway). A live page acks every push, so leave room for its
   * pushes too. @default 200
   */
  readonly maxFramesPerSecond?: number;
  /**
   * Connections one user may hold at once; one more is refused (429 at the handshake on API
   * Gateway, close code 4429 locally). A user is an identity the `auth` hook returned, compared
   * whole (as canonical JSON): one that changes with each token (`iat`, `exp`) gets a cap per
   * token, and one shared by many people (`{ tenant }`) one cap for them all. Anonymous
   * connections are not counted: bound them with the stage's throttle (the local host, with its
   * `maxAnonymousConnections`), or require auth. A
   * connection counts until it closes, or its lease lapses and it is swept. @default 100
   */
  readonly maxConnectionsPerUser?: number;
}

/** The limits with their defaults, checked: a problem per bad option in `problems`. */
export function resolveConnectionLimits(
  limits: ConnectionLimits,
  problems: string[],
): Required<ConnectionLimits> {
  const count = (name: keyof ConnectionLimits, fallback: number) => {
    const value = limits[name] ?? fallback;
    if (!Number.isSafeInteger(value) || value < 1) {
      problems.push(`${name} must be an integer ≥ 1, got ${String(value)}`);
    }
    return value;
  };
  return {
    maxSubscriptions: count('maxSubscriptions', 100),
    maxFramesPerSecond: count('maxFramesPerSecond', 200),
    maxConnectionsPerUser: count('maxConnectionsPerUser', 100),
  };
}

/**
 * The key a user's connections are counted under: a digest of its caller, or `undefined` for an
 * anonymous connection (not counted) or an identity that is not JSON.
 *
 * @example
 * connectionOwner({ userId: 'alice' }); // 22 characters
 * connectionOwner(undefined); // undefined
 */
export function connectionOwner(identity: unknown): string | undefined {
  const caller = callerOf(identity);
  if (caller.kind !== 'user') return undefined;
  try {
    return callerDigest(caller);
  } catch {
    return undefined;
  }
}

/**
 * The LIMIT_EXCEEDED error of a connection attempt past `max` for its user.
 *
 * @example
 * refuse(tooManyConnections(100).message);
 */
export function tooManyConnections(max: number): BatonError {
  return new BatonError(
    ErrorCode.LIMIT_EXCEEDED,
    `this user holds ${max} connections, the most it may: close some (other tabs or devices) first`,
    { details: { limit: max } },
  );
}

/**
 * The LIMIT_EXCEEDED error of a connection attempt with no user past `max` such connections
 * (the local host's `maxAnonymousConnections`). Its message fits a close frame's reason.
 *
 * @example
 * refuse(tooManyAnonymousConnections(1000).message);
 */
export function tooManyAnonymousConnections(max: number): BatonError {
  return new BatonError(
    ErrorCode.LIMIT_EXCEEDED,
    `the server holds ${max} connections with no user, the most it may: connect with a token, or try again later`,
    { details: { limit: max } },
  );
}

/**
 * The LIMIT_EXCEEDED error of a connection attempt that finds `max` others waiting for the app's
 * `auth` hook (the local host's `maxPendingAuth`). Its message fits a close frame's reason.
 *
 * @example
 * refuse(tooManyPendingAuth(100).message);
 */
export function tooManyPendingAuth(max: number): BatonError {
  return new BatonError(
    ErrorCode.LIMIT_EXCEEDED,
    `the server is checking the tokens of ${max} connections, the most it may: try again later`,
    { details: { limit: max } },
  );
}

/**
 * The UNAVAILABLE error of a connection attempt whose `auth` hook ran past `timeoutMs` (the
 * local host's `authTimeoutMs`). Its message fits a close frame's reason.
 *
 * @example
 * ws.close(CloseCode.AUTH_TIMEOUT, authTimedOut(10_000).message);
 */
export function authTimedOut(timeoutMs: number): BatonError {
  return new BatonError(
    ErrorCode.UNAVAILABLE,
    `the server could not check the token within ${timeoutMs} ms: try again later`,
    { details: { timeoutMs } },
  );
}

/**
 * The LIMIT_EXCEEDED error for a subscribe past `max`.
 *
 * @example
 * if (held >= max) throw tooManySubscriptions(max);
 */
export function tooManySubscriptions(max: number): BatonError {
  return new BatonError(
    ErrorCode.LIMIT_EXCEEDED,
    `this connection holds ${max} subscriptions, the most it may: unsubscribe from one first`,
    { details: { limit: max } },
  );
}

/**
 * The RATE_LIMITED error for a frame past `max` in the current second.
 *
 * @example
 * throw rateLimited(50, 300);
 */
export function rateLimited(max: number, retryAfterMs: number): BatonError {
  return new BatonError(
    ErrorCode.RATE_LIMITED,
    `this connection sent more than ${max} frames in one second; the frame was dropped: send it again after ${retryAfterMs} ms, and fewer at once`,
    { details: { limit: max }, retryAfterMs },
  );
}

/**
 * The RATE_LIMITED error of a connection closed for sending `frames` frames in one second, more
 * than twice `max`: each frame past `max` was refused, and a client that sends on regardless is
 * not served a refusal per frame for as long as it likes. Its message fits a close frame's reason.
 *
 * @example
 * ports.close(tooManyFrames(200, 401));
 */
export function tooManyFrames(max: number, frames: number): BatonError {
  return new BatonError(
    ErrorCode.RATE_LIMITED,
    `sent more than ${2 * max} frames in one second (twice the cap of ${max}): closed; reconnect and send fewer`,
    { details: { limit: max, frames } },
  );
}

/**
 * What becomes of a connection's frame by its number `frame` in its second, against the cap
 * `max`: the first `max` pass, the next `max` are refused (RATE_LIMITED), the one after them
 * closes the connection, and any later one (handled beside it, or before the close took) is
 * dropped; as is a frame a host could not count (0: its connection is gone).
 *
 * @example
 * frameOutcome(201, 200); // 'refuse'
 */
export function frameOutcome(frame: number, max: number): 'pass' | 'refuse' | 'close' | 'drop' {
  if (frame < 1) return 'drop';
  if (frame <= max) return 'pass';
  if (frame <= 2 * max) return 'refuse';
  return frame === 2 * max + 1 ? 'close' : 'drop';
}

/**
 * Counts a connection's frames in one-second windows: the port through which a protocol session
 * applies `maxFramesPerSecond`. The count goes on past the cap, so that the session can tell a
 * burst (refused) from a flood (closed), see {@link frameOutcome}. The local host keeps it in
 * memory ({@link MemoryFrameCounter}); the API Gateway host in the connection's registry item, as
 * Lambdas share no memory.
 *
 * @example
 * const frames: FrameCounter = { count: (second) => registry.countFrame(id, second) };
 */
export interface FrameCounter {
  /**
   * Counts a frame in second `second` (epoch seconds): its number in that second, from 1 (frames
   * counted side by side get different numbers), or 0 if the connection is gone. A counter in
   * memory answers at once: no promise per frame.
   */
  count(second: number): number | Promise<number>;
}

/**
 * A {@link FrameCounter} in memory, for one connection of a host that holds its connections.
 *
 * @example
 * const frames = new MemoryFrameCounter();
 * frames.count(Math.floor(clock.now() / 1000)); // 1: the first frame of its second
 */
export class MemoryFrameCounter implements FrameCounter {
  #second = -1;
  #count = 0;

  count(second: number): number {
    if (second !== this.#second) {
      this.#second = second;
      this.#count = 0;
    }
    return ++this.#count;
  }
}
