import type { BatonError } from '@baton/core';

/**
 * The part of a WebSocket the client uses: the browser's global `WebSocket` and the `ws`
 * package's both fit.
 *
 * @example
 * const socket: WebSocketLike = new WebSocket('ws://127.0.0.1:8787', ['baton.v1']);
 */
export interface WebSocketLike {
  readonly readyState: number;
  /** The subprotocol the server selected (`''` or absent: none). */
  readonly protocol?: string;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: any) => void) | null;
  onmessage: ((event: any) => void) | null;
  onclose: ((event: any) => void) | null;
  onerror: ((event: any) => void) | null;
}

/**
 * A WebSocket constructor, e.g. `globalThis.WebSocket` or `import { WebSocket } from 'ws'`.
 *
 * @example
 * const client = new BatonClient({ url, WebSocket: (await import('ws')).WebSocket });
 */
export type WebSocketConstructor = new (
  url: string,
  protocols?: string | string[],
) => WebSocketLike;

/**
 * Timer functions, injectable for tests (defaults: the global `setTimeout`/`clearTimeout`).
 *
 * @example
 * const timers: Timers = { setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout };
 */
export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/**
 * Options of {@link BatonClient}.
 *
 * @example
 * const options: BatonClientOptions = {
 *   url: 'wss://example.execute-api.eu-west-1.amazonaws.com/prod',
 *   token: async () => (await auth.session()).accessToken,
 *   reconnect: { minMs: 1_000, maxMs: 16_000 },
 * };
 */
export interface BatonClientOptions {
  /** The server's WebSocket URL (`ws://` or `wss://`). */
  readonly url: string;
  /**
   * Sent on every (re)connect, as the subprotocol `token.<token>` when it is made of token
   * characters (a JWT is), else as the query parameter `?token=`. A function is called for each
   * connect, so it can refresh an expired token: the server closes a connection when its token
   * expires (`validUntil`; `jwtAuth` uses the JWT's `exp`). Ahead of the `exp` of a JWT from the
   * function (a minute, or a quarter of its life if less), the client asks it for a fresh one
   * and renews the connection with it, the old socket serving until then. When the server
   * refuses or expires the token (close code 4401 or 4440), every query shows an
   * `UNAUTHENTICATED` error; the client then reconnects with a token from the function, or, given
   * a string, stops for good (`closed`), as the same token would be refused again. @default none
   */
  readonly token?: string | (() => string | Promise<string>);
  /** @default globalThis.WebSocket */
  readonly WebSocket?: WebSocketConstructor;
  /**
   * Backoff between reconnect attempts: attempt n waits a random time between half and all of
   * `min(maxMs, minMs · 2ⁿ)`. A connection that drops within `stableMs` of opening counts as a
   * failed attempt (the backoff keeps growing); one that stayed up longer starts it over.
   * @default { minMs: 1_000, maxMs: 16_000, stableMs: 5_000 }
   */
  readonly reconnect?: {
    readonly minMs?: number;
    readonly maxMs?: number;
    readonly stableMs?: number;
  };
  /** Heartbeat interval, inside API Gateway's 10-minute idle limit. @default 5 minutes */
  readonly pingMs?: number;
  /** A connection that has received nothing this long after a ping is dropped. @default 30 s */
  readonly pongTimeoutMs?: number;
  /**
   * The connection is renewed after this long, ahead of API Gateway's 2-hour limit (or sooner,
   * with a fresh token: `token`). @default 110 minutes
   */
  readonly maxConnectionMs?: number;
  /** How long `ask` waits for its reply. @default 30 s */
  readonly askTimeoutMs?: number;
  /**
   * How long a query stays subscribed after its last listener left, so that a component that
   * re-mounts (or a route that comes back) finds its data. @default 1_000 ms
   */
  readonly keepAliveMs?: number;
  /** Told of problems no caller receives: malformed frames, connection-level errors. */
  readonly onError?: (error: BatonError) => void;
  /**
   * Draws request-id prefixes, and default idempotency keys only where there is no Web Crypto
   * (keys come from `crypto.randomUUID`, else `crypto.getRandomValues`). @default Math.random
   */
  readonly random?: () => number;
  /** @default the global timers */
  readonly timers?: Timers;
}
