import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { BatonError, ErrorCode, jsonLogger, toBatonError } from '@baton/core';
import { systemClock } from '@baton/core/adapter';
import { ByteBudget, RECEIVED_SUBPROTOCOL, SUBPROTOCOL } from '@baton/protocol';
import { WebSocketServer } from 'ws';
import { QueryEngine } from '../QueryEngine.ts';
import {
  loopbackOrigins,
  type OriginCheck,
  originCheck,
  originRefused,
} from '../session/allowedOrigins.ts';
import { authenticateWithin, type ConnectAuth, isAuthTimeout } from '../session/authenticate.ts';
import { authRefusal } from '../session/authRefusal.ts';
import {
  authTimedOut,
  connectionOwner,
  tooManyAnonymousConnections,
  tooManyConnections,
  tooManyPendingAuth,
} from '../session/connectionLimits.ts';
import { ProtocolSession } from '../session/ProtocolSession.ts';
import { CloseCode } from './CloseCode.ts';
import { CommitTracker } from './CommitTracker.ts';
import { Connection } from './Connection.ts';
import { maxClientMessageBytes } from './ConnectionContext.ts';
import type { ConnectionInfo } from './ConnectionInfo.ts';
import { closeReason } from './closeReason.ts';
import { type LocalServerOptions, resolveLocalServerOptions } from './LocalServerOptions.ts';
import { ResultCache } from './ResultCache.ts';
import { readToken } from './readToken.ts';
import { SharedFrames } from './SharedFrames.ts';

/**
 * A running local server.
 *
 * @example
 * const server = await createLocalServer({ actors, queries, backend: startEmbedded({ actors }) });
 * console.log(server.url); // ws://127.0.0.1:53127
 * await server.close();
 */
export interface LocalServer {
  /** `ws://host:port`, to give to a client. */
  readonly url: string;
  /** The port listened on (the one picked when `port` was 0). */
  readonly port: number;
  /** The reactive engine behind the sockets (`stats()`, `flush()`). */
  readonly engine: QueryEngine;
  /** The open connections, as snapshots. */
  connections(): ConnectionInfo[];
  /**
   * Closes every socket (code 1001), stops listening, closes the engine, and stops the embedded
   * runtime if the server started it. Idempotent.
   */
  close(): Promise<void>;
}

/** How long `close()` waits for clients to answer the closing handshake. */
const CLOSE_GRACE_MS = 1_000;

/**
 * Serves Baton's WebSocket protocol (see `@baton/protocol`'s README) on one local port, over the
 * same {@link QueryEngine} the AWS handlers use: live query subscriptions with acks, resume and
 * patches; sends and asks into the backend, with read-your-writes; pings and leases. The token
 * comes from `?token=` or the `token.<token>` subprotocol (`baton.v1` is echoed). Every bad frame
 * is answered with an `error` to its own client; nothing one client sends affects another.
 *
 * @example
 *  * import { createLocalServer } from '@baton/server/ws';
 *
 * const app = startEmbedded({ actors: [Account] });
 * const server = await createLocalServer({
 *   actors: [Account],
 *   queries: [balance],
 *   backend: app,
 *   port: 8787,
 *   auth: ({ token }) => {
 *     if (token !== 'dev') throw new Error('unknown token');
 *     return { userId: 'alice' };
 *   },
 * });
 * // browsers connect to server.url with new BatonClient({ url: server.url, token: 'dev' })
 */
export async function createLocalServer(options: LocalServerOptions): Promise<LocalServer> {
  const logger = options.logger ?? jsonLogger();
  const settings = resolveLocalServerOptions(options);
  const { ports, leaseMs, heartbeatMs, maxFrameBytes, maxUnreadBytes, limits } = settings;
  const assembling = new ByteBudget(settings.maxAssemblingBytes);
  const { maxAnonymousConnections, maxPendingAuth, authTimeoutMs } = settings;
  const clock = options.engine?.clock ?? systemClock;
  const engine = new QueryEngine({
    logger,
    ...options.engine,
    queries: options.queries,
    actors: options.actors,
    store: ports.store,
    feed: ports.feed,
  });
  // Subscribed after the engine: when the tracker sees a commit on the feed, so has the engine.
  const tracker = new CommitTracker(ports.store, ports.feed);
  const session = new ProtocolSession({
    queries: options.queries,
    client: settings.client,
    clock,
    limits,
    scope: options.engine?.scope,
    maxFrameBytes,
    logger,
  });
  const cache = new ResultCache();
  const frames = new SharedFrames();
  const context = {
    ...{ engine, session, tracker, cache, frames, clock, logger },
    leaseMs,
    maxUnreadBytes,
    maxChunkedBytes: maxClientMessageBytes(maxFrameBytes, ports.store.limits),
    assembling,
  };
  const connections = new Set<Connection>();
  /**
   * Connection attempts whose auth hook is still running (and has run less than
   * `authTimeoutMs`), each with what aborts its hook's `signal`: at most `maxPendingAuth`.
   */
  const upgrading = new Map<Duplex, AbortController>();
  let nextId = 1;
  let closing: Promise<void> | undefined;
  /** The pages that may connect: the option's, else this server's own once it listens. */
  let origins: OriginCheck | undefined = settings.origins;

  const wss = new WebSocketServer({
    noServer: true,
    // Frames up to 8x the limit are read and refused with an error; larger ones close the socket.
    maxPayload: maxFrameBytes * 8,
    // Acks by count when the client speaks them; per subscription for older clients.
    handleProtocols: (protocols) =>
      protocols.has(RECEIVED_SUBPROTOCOL)
        ? RECEIVED_SUBPROTOCOL
        : protocols.has(SUBPROTOCOL)
          ? SUBPROTOCOL
          : false,
  });
  /**
   * How many sockets the user `owner` holds (`undefined`: those with no user): a closed
   * connection counts until its socket is gone, which takes a client that does not read the
   * close up to 30 s, so that closing a socket does not free a place for one more.
   */
  const ownedBy = (owner: string | undefined) => {
    let held = 0;
    for (const connection of connections) if (connection.owner === owner) held++;
    return held;
  };
  const http = createServer((_request, response) => {
    response.writeHead(426, { 'content-type': 'text/plain', upgrade: 'websocket' });
    response.end('This is a Baton WebSocket endpoint: connect with a WebSocket client.\n');
  });
  http.on('clientError', (_error, socket) => socket.destroy());

  /** Completes the handshake only to close the socket at once, with a code the client reads. */
  const refuse = (
    request: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    code: number,
    reason: string,
  ) => {
    if (closing || socket.destroyed) return socket.destroy();
    wss.handleUpgrade(request, socket, head, (ws) => ws.close(code, closeReason(reason)));
  };

  const upgrade = async (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => {});
    // A browser always names the page that opens a socket: a foreign one is refused before
    // anything else runs for it.
    const origin = request.headers.origin;
    if (origin !== undefined) {
      origins ??= originCheck(loopbackOrigins((http.address() as AddressInfo).port, settings.host));
      if (!origins.allows(origin)) {
        const refusal = originRefused(origin, origins, "the server's allowedOrigins option");
        logger.warn('connection refused: its page is on an origin not allowed', { origin });
        return forbidden(socket, refusal.message);
      }
    }
    // No cap counts an attempt whose user is not known yet but this one: a slow hook must not
    // let a stranger hold sockets without bound. Refused before its hook runs.
    if (upgrading.size >= maxPendingAuth) {
      const refusal = tooManyPendingAuth(maxPendingAuth);
      return refuse(request, socket, head, CloseCode.TOO_MANY_CONNECTIONS, refusal.message);
    }
    let auth: ConnectAuth = { identity: undefined };
    let refusal: string | undefined;
    let timedOut = false;
    const abort = new AbortController();
    upgrading.set(socket, abort);
    try {
      const attempt = { token: readToken(request), headers: request.headers };
      // Waited for no longer than authTimeoutMs, nor past the server's close.
      auth = await authenticateWithin(options.auth, attempt, clock, authTimeoutMs, abort);
    } catch (error) {
      if (closing) {
        // The socket is destroyed below.
      } else if (isAuthTimeout(error)) {
        timedOut = true;
        logger.warn('connection closed: the auth hook did not settle in time', {
          authTimeoutMs,
        });
      } else {
        refusal = authRefusal(error, logger);
      }
    } finally {
      upgrading.delete(socket);
    }
    if (timedOut) {
      const reason = authTimedOut(authTimeoutMs).message;
      return refuse(request, socket, head, CloseCode.AUTH_TIMEOUT, reason);
    }
    if (closing || socket.destroyed) return socket.destroy();
    wss.handleUpgrade(request, socket, head, (ws) => {
      if (refusal !== undefined) return ws.close(CloseCode.UNAUTHORIZED, closeReason(refusal));
      const owner = connectionOwner(auth.identity);
      const max = limits.maxConnectionsPerUser;
      if (owner !== undefined && ownedBy(owner) >= max) {
        return ws.close(CloseCode.TOO_MANY_CONNECTIONS, tooManyConnections(max).message);
      }
      if (owner === undefined && ownedBy(undefined) >= maxAnonymousConnections) {
        const refusal = tooManyAnonymousConnections(maxAnonymousConnections);
        return ws.close(CloseCode.TOO_MANY_CONNECTIONS, refusal.message);
      }
      const connection = new Connection(ws, nextId++, auth, context, socket, owner);
      connections.add(connection);
      ws.on('close', () => connections.delete(connection));
    });
  };
  http.on('upgrade', (request, socket, head) => {
    upgrade(request, socket, head).catch((error: unknown) => {
      logger.error('websocket upgrade failed', { error: toBatonError(error).message });
      socket.destroy();
    });
  });

  const heartbeat = setInterval(() => {
    const now = clock.now();
    // A connection closed here leaves the set when its socket closes (see ownedBy).
    for (const connection of connections) {
      if (connection.closed) continue;
      if (connection.closeIfAuthLapsed(now) || connection.closeIfNotReading(now)) continue;
      if (connection.expired(now)) {
        connection.close(CloseCode.LEASE_EXPIRED, `no frame within ${leaseMs} ms: lease expired`);
      } else connection.evictChunks();
    }
    engine.collect(now);
  }, heartbeatMs);
  heartbeat.unref();

  try {
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(settings.port, settings.host, () => resolve());
    });
  } catch (error) {
    clearInterval(heartbeat);
    tracker.close();
    engine.close();
    throw error;
  }
  const { port } = http.address() as AddressInfo;
  const host = settings.host.includes(':') ? `[${settings.host}]` : settings.host;

  const close = async () => {
    clearInterval(heartbeat);
    for (const connection of connections) connection.close(1001, 'server closing');
    connections.clear();
    for (const [socket, abort] of upgrading) {
      abort.abort(new BatonError(ErrorCode.UNAVAILABLE, 'the server is closing'));
      socket.destroy();
    }
    // Sockets that do not finish the closing handshake in time are cut.
    const grace = setTimeout(() => {
      for (const socket of wss.clients) socket.terminate();
    }, CLOSE_GRACE_MS);
    await new Promise<void>((resolve) => wss.close(() => resolve()));
    clearTimeout(grace);
    await new Promise<void>((resolve) => {
      http.close(() => resolve());
      http.closeAllConnections();
    });
    tracker.close();
    engine.close();
  };

  return {
    url: `ws://${host}:${port}`,
    port,
    engine,
    connections: () =>
      [...connections].filter((c) => !c.closed).map((connection) => connection.info()),
    close: () => {
      closing ??= close();
      return closing;
    },
  };
}

/** Refuses an upgrade with HTTP 403 and `message` as its body. */
function forbidden(socket: Duplex, message: string): void {
  const body = `${message}\n`;
  socket.end(
    `HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}
