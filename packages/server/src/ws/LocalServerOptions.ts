import type { IncomingHttpHeaders } from 'node:http';
import {
  type AnyActorDefinition,
  type AnyQueryDefinition,
  BatonError,
  ErrorCode,
  type Logger,
} from '@baton/core';
import type { ChangeFeed, Queue, Store } from '@baton/core/adapter';
import { Client } from '@baton/core/client';
import type { QueryEngineOptions } from '../QueryEngineOptions.ts';
import { type AllowedOrigins, type OriginCheck, originCheck } from '../session/allowedOrigins.ts';
import { type ConnectionLimits, resolveConnectionLimits } from '../session/connectionLimits.ts';

/**
 * What the auth hook is given for each connection attempt: the token from `?token=` in the URL
 * or from the `token.<token>` subprotocol, and the upgrade request's headers.
 *
 * @example
 * const auth = ({ token }: AuthRequest) => (token === 'secret' ? { userId: 'alice' } : undefined);
 */
export interface AuthRequest {
  readonly token?: string;
  readonly headers: IncomingHttpHeaders;
  /**
   * Ends the connection's identity at `epochMs` (epoch ms): it is then closed with code 4440 and
   * its frames refused, so that the client connects again with a fresh token. The earliest call
   * counts; a time already past refuses the connection.
   */
  readonly validUntil: (epochMs: number) => void;
  /**
   * Aborted when the hook has run `authTimeoutMs` (the connection is then closed, 4504) or the
   * server closes: pass it to what the hook awaits (`fetch(jwksUrl, { signal })`), so that a
   * verification that hangs stops instead of holding its request past the connection.
   */
  readonly signal: AbortSignal;
}

/**
 * The backend ports a local server needs: committed reads and outcomes (`store`), ingress
 * (`queue`) and committed records (`feed`).
 *
 * @example
 * const backend = createEmbeddedBackend();
 * const ports: LocalServerPorts = { store: backend.store, queue: backend.queue, feed: backend.feed };
 */
export interface LocalServerPorts {
  readonly store: Store;
  readonly queue: Queue;
  readonly feed: ChangeFeed;
}

/**
 * A running app that lends its ports and its client: what `startEmbedded` returns.
 *
 * @example
 * const app: LocalServerApp = startEmbedded({ actors: [Account] });
 */
export interface LocalServerApp {
  readonly backend: LocalServerPorts;
  readonly client: Client;
}

/**
 * Options of {@link createLocalServer}.
 *
 * @example
 * const options: LocalServerOptions = {
 *   actors: [Account],
 *   queries: [balance],
 *   backend: startEmbedded({ actors: [Account] }),
 *   auth: ({ token }) => verify(token), // throw to refuse (close code 4401)
 * };
 */
export interface LocalServerOptions extends ConnectionLimits {
  readonly actors: readonly AnyActorDefinition[];
  readonly queries: readonly AnyQueryDefinition[];
  /**
   * What the server serves: an app started with `startEmbedded` (or anything shaped like it),
   * or the ports of any backend. The server does not stop what it is given.
   */
  readonly backend: LocalServerApp | LocalServerPorts;
  /**
   * The engine's `idempotencyRetentionMs`: for a backend given as ports, give this door the value its engine has (an app lends its client). A key stays
   * bound to its message twice this from its send; with less than the engine's, a client's retry
   * past that would be a new message, applied again while the engine still keeps the first's
   * outcome. @default 14 days, the engine's default
   */
  readonly idempotencyRetentionMs?: number;
  /** @default 0: any free port */
  readonly port?: number;
  /** @default '127.0.0.1' */
  readonly host?: string;
  /**
   * Turns a connection attempt into the identity queries see as `ctx.identity`. Throw (or
   * reject) to refuse: the socket is closed with code 4401 and reason "unauthorized" (the
   * error's message goes to the log only). Call `request.validUntil(epochMs)` when the
   * identity ends (a token's expiry).
   * @default every connection is accepted, with identity `undefined`
   */
  readonly auth?: (request: AuthRequest) => unknown;
  /**
   * The web pages that may connect, by the `Origin` a browser sends with every upgrade: a list
   * of origins (`'http://localhost:5173'`) or a function `(origin) => boolean`. An upgrade from
   * any other page is refused with HTTP 403 before `auth` runs, so that a site open in the
   * developer's browser cannot connect to this server as that browser. An upgrade without
   * `Origin` (no browser's: Node's `ws`, a CLI) is not checked.
   * @default this server's own origins: `http://localhost:<port>`, `http://127.0.0.1:<port>`,
   * `http://[::1]:<port>` (and `http://<host>:<port>` for another `host`)
   */
  readonly allowedOrigins?: AllowedOrigins;
  /** How often leases are checked and lapsed subscriptions collected. @default min(leaseMs / 3, 30 s) */
  readonly heartbeatMs?: number;
  /** A connection that sends no frame for this long is closed (4408) and its subscriptions dropped. @default 90 s */
  readonly leaseMs?: number;
  /** The largest frame accepted from a client, in UTF-8 bytes. @default 131,072 (128 KiB) */
  readonly maxFrameBytes?: number;
  /**
   * Bytes sent to a client that may wait unread in its socket: past them, its frames are left
   * unread and its subscriptions' newest results held until it reads, and after 10 s the
   * connection is closed (4413), so a client that
   * stops reading (while it sends frames or acks what it never read) cannot make the host
   * buffer without bound. A client that reads connects again and resubscribes.
   * @default 8 MiB
   */
  readonly maxUnreadBytes?: number;
  /**
   * Bytes of chunked client messages still arriving that the server holds, all connections
   * together. Each connection holds at most the largest message a client may send (about
   * 1.1 MiB); past this, a chunk is refused (`UNAVAILABLE`, `CHUNK_BUFFER_FULL`: send it again
   * later), so that many connections that never finish their messages cannot exhaust memory.
   * @default 64 MiB
   */
  readonly maxAssemblingBytes?: number;
  /**
   * Connections with no user the server holds at once: those the `auth` hook gave no identity
   * (all of them without a hook), which no user's `maxConnectionsPerUser` counts. One more is
   * refused (4429), so that clients who need no token cannot open connections without bound.
   * @default 1,000
   */
  readonly maxAnonymousConnections?: number;
  /**
   * Connection attempts whose `auth` hook is still running that the server holds at once: no
   * cap counts them otherwise (their user is not known yet), and a hook that is slow (a JWKS
   * fetch) would let a stranger pile up sockets. One more is closed at once (4429), its hook not
   * run, so that its client tries again later. @default 100
   */
  readonly maxPendingAuth?: number;
  /**
   * How long the `auth` hook may take for one connection attempt: past it the connection is
   * closed (4504, "try again later"), the attempt stops counting against `maxPendingAuth`, its
   * `request.signal` is aborted and the server logs a warning. @default 10 s
   */
  readonly authTimeoutMs?: number;
  /** @default JSON lines on stdout */
  readonly logger?: Logger;
  /** Passed to the {@link QueryEngine} (e.g. `batchMs`, `scope`, `clock`). */
  readonly engine?: Partial<Omit<QueryEngineOptions, 'queries' | 'actors' | 'store' | 'feed'>>;
}

/**
 * The options with defaults filled in and the backend reduced to its ports and a client.
 *
 * @example
 * const { ports, client, leaseMs } = resolveLocalServerOptions(options, startDefault);
 */
export interface ResolvedLocalServerOptions {
  readonly ports: LocalServerPorts;
  readonly client: Client;
  readonly port: number;
  readonly host: string;
  readonly heartbeatMs: number;
  readonly leaseMs: number;
  readonly maxFrameBytes: number;
  readonly maxUnreadBytes: number;
  readonly maxAssemblingBytes: number;
  readonly limits: Required<ConnectionLimits>;
  readonly maxAnonymousConnections: number;
  readonly maxPendingAuth: number;
  readonly authTimeoutMs: number;
  /** The `allowedOrigins` given; `undefined`: the server's own, known once it listens. */
  readonly origins: OriginCheck | undefined;
}

/**
 * Checks the options, collecting every problem into one INVALID_ARGUMENT error, and fills in
 * the defaults. A running app lends its store, queue, feed and client.
 *
 * @example
 * resolveLocalServerOptions({ actors, queries, backend: startEmbedded({ actors }) }).leaseMs; // 90_000
 */
export function resolveLocalServerOptions(options: LocalServerOptions): ResolvedLocalServerOptions {
  const problems: string[] = [];
  if (!Array.isArray(options?.actors)) problems.push('actors must be an array of actor()s');
  if (!Array.isArray(options?.queries)) problems.push('queries must be an array of query()s');
  if (options?.auth !== undefined && typeof options.auth !== 'function') {
    problems.push('auth must be a function ({ token, headers }) => identity');
  }
  const number = (name: string, value: number | undefined, fallback: number, min: number) => {
    const v = value ?? fallback;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < min) {
      problems.push(`${name} must be a number ≥ ${min}, got ${String(v)}`);
    }
    return v;
  };
  const port = number('port', options?.port, 0, 0);
  const leaseMs = number('leaseMs', options?.leaseMs, 90_000, 1);
  const heartbeatMs = number(
    'heartbeatMs',
    options?.heartbeatMs,
    Math.min(Math.max(leaseMs / 3, 1), 30_000),
    1,
  );
  const maxFrameBytes = number('maxFrameBytes', options?.maxFrameBytes, 128 * 1024, 1024);
  const maxUnreadBytes = number('maxUnreadBytes', options?.maxUnreadBytes, 8 * 1024 * 1024, 1);
  const maxAssemblingBytes = number(
    'maxAssemblingBytes',
    options?.maxAssemblingBytes,
    64 * 1024 * 1024,
    1,
  );
  const limits = resolveConnectionLimits(options ?? {}, problems);
  const maxAnonymousConnections = options?.maxAnonymousConnections ?? 1_000;
  if (!Number.isSafeInteger(maxAnonymousConnections) || maxAnonymousConnections < 1) {
    problems.push(
      `maxAnonymousConnections must be an integer ≥ 1, got ${String(maxAnonymousConnections)}`,
    );
  }
  const maxPendingAuth = options?.maxPendingAuth ?? 100;
  if (!Number.isSafeInteger(maxPendingAuth) || maxPendingAuth < 1) {
    problems.push(`maxPendingAuth must be an integer ≥ 1, got ${String(maxPendingAuth)}`);
  }
  const authTimeoutMs = number('authTimeoutMs', options?.authTimeoutMs, 10_000, 1);
  if (authTimeoutMs > MAX_TIMER_MS) {
    problems.push(
      `authTimeoutMs must be at most ${MAX_TIMER_MS} (about 24.8 days), got ${authTimeoutMs}`,
    );
  }
  const origins =
    options?.allowedOrigins === undefined
      ? undefined
      : originCheck(options.allowedOrigins, problems);
  const host = options?.host ?? '127.0.0.1';
  if (typeof host !== 'string' || host === '') problems.push('host must be a host name or address');
  const given = options?.backend;
  const ports = isApp(given) ? given.backend : given;
  if (ports === undefined) {
    problems.push(
      "backend is required: pass startEmbedded({ actors }) from '@baton/embedded', or { store, queue, feed }",
    );
  } else {
    if (typeof ports?.store?.load !== 'function') problems.push('backend.store must be a Store');
    if (typeof ports?.queue?.send !== 'function') problems.push('backend.queue must be a Queue');
    if (typeof ports?.feed?.subscribe !== 'function') {
      problems.push('backend.feed must be a ChangeFeed');
    }
  }
  if (isApp(given) && options?.idempotencyRetentionMs !== undefined) {
    problems.push(
      "idempotencyRetentionMs is for a backend given as ports: an app lends its own client, which has its engine's retention; leave it out",
    );
  }
  if (problems.length > 0) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `invalid local server options: ${problems.join('; ')}`,
    );
  }
  const { store, queue, feed } = ports!;
  const retention = options.idempotencyRetentionMs;
  const client = isApp(given)
    ? given.client
    : new Client({
        actors: options.actors,
        store,
        queue,
        ...(retention === undefined ? {} : { idempotencyRetentionMs: retention }),
      });
  const settings = {
    ...{ port, host, heartbeatMs, leaseMs, maxFrameBytes, maxUnreadBytes, maxAssemblingBytes },
    ...{ limits, maxAnonymousConnections, maxPendingAuth, authTimeoutMs, origins },
  };
  return { ports: { store, queue, feed }, client, ...settings };
}

/** The longest delay setTimeout keeps (2^31 - 1 ms); a longer one fires at once. */
const MAX_TIMER_MS = 2_147_483_647;

function isApp(backend: unknown): backend is LocalServerApp {
  return (
    typeof backend === 'object' && backend !== null && 'client' in backend && 'backend' in backend
  );
}
