import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { BatonError, ErrorCode, toBatonError } from '@baton/core';
import { MAX_FRAME_BYTES } from '@baton/protocol';
import {
  type AllowedOrigins,
  loopbackOrigins,
  type OriginCheck,
  originCheck,
  originRefused,
} from '@baton/server/session';
import { type WebSocket, WebSocketServer } from 'ws';
import type { WebSocketEvent, WebSocketResponse } from '../websocket/websocketHandler.ts';
import {
  type ConnectionSettings,
  connectionSettings,
  GatewayConnection,
} from './GatewayConnection.ts';
import { TokenBucket } from './TokenBucket.ts';

/**
 * Options of {@link LocalWebSocketGateway}.
 *
 * @example
 * const options: LocalWebSocketGatewayOptions = { handler: (event) => handle(event), stage: 'dev' };
 */
export interface LocalWebSocketGatewayOptions {
  /** The WebSocket Lambda: called with `$connect`, `$default` and `$disconnect` events. */
  readonly handler: (event: WebSocketEvent) => Promise<WebSocketResponse | undefined>;
  /** @default 0: a free port */
  readonly port?: number;
  /** @default 'local' */
  readonly stage?: string;
  /** A connection without a message either way for this long is closed. @default 10 min (API Gateway's) */
  readonly idleTimeoutMs?: number;
  /** Every connection is closed after this long. @default 2 h (API Gateway's) */
  readonly maxConnectionMs?: number;
  /** Called when a handler call fails (it is otherwise ignored, as API Gateway does). */
  readonly onError?: (error: unknown) => void;
  /**
   * `PostToConnection` calls allowed per second, from a bucket of `burst` (API Gateway's
   * account limit: 10,000/s, 5,000 burst); a call past it is refused with 429
   * `LimitExceededException`, as API Gateway does. @default no limit
   */
  readonly postLimit?: { readonly perSecond: number; readonly burst?: number };
  /**
   * The web pages that may connect, by the `Origin` a browser sends with every upgrade (a list
   * of origins, or a function): an upgrade from another page is refused with 403 before
   * `$connect`, so that a site open in the developer's browser cannot connect as that browser.
   * An upgrade without `Origin` (no browser's) is not checked. API Gateway itself checks no
   * origin: see `websocketHandler`'s `allowedOrigins`.
   * @default the gateway's own: `http://localhost:<port>`, `http://127.0.0.1:<port>`, `http://[::1]:<port>`
   */
  readonly allowedOrigins?: AllowedOrigins;
  /**
   * Bytes posted to a connection that may wait unread in its socket. Past them, its client's
   * frames are left unread and posts to it wait, until it reads; if it does not within
   * `unreadGraceMs`, the connection is closed (4413, as the local server does) and posts to it
   * are answered 410 `GoneException`, as API Gateway drops a client that does not keep up.
   * @default 8 MiB (the local server's)
   */
  readonly maxUnreadBytes?: number;
  /** How long a connection may stay over `maxUnreadBytes` before it is closed. @default 10 s */
  readonly unreadGraceMs?: number;
}

/**
 * API Gateway's WebSocket API emulated on loopback, for tests and local runs: a WebSocket
 * endpoint that calls the handler with `$connect` (a non-2xx `statusCode` rejects the upgrade
 * with that status; a `Sec-WebSocket-Protocol` response header picks the subprotocol),
 * `$default` for every message (one at a time per connection) and `$disconnect` on close; and,
 * on the same port, the management API the real `ApiGatewayManagementApiClient` talks to:
 * `POST /{stage}/@connections/{id}` (the body as one text frame; 410 `GoneException` for an
 * unknown connection, 413 past 128 KB), `GET` (connection info) and `DELETE` (close). A client
 * that leaves more than `maxUnreadBytes` unread has its frames left unread and posts to it
 * wait, until it reads; one that does not read within `unreadGraceMs` is closed (4413).
 *
 * @example
 * const gateway = await LocalWebSocketGateway.start({ handler: (event) => handler(event) });
 * const client = new BatonClient({ url: gateway.url, WebSocket });
 * // handlers push with new ApiGatewayManagementApiClient({ endpoint: gateway.managementEndpoint })
 * await gateway.close();
 */
export class LocalWebSocketGateway {
  readonly #options: LocalWebSocketGatewayOptions;
  readonly #http: Server;
  readonly #wss: WebSocketServer;
  readonly #sockets = new Map<string, GatewayConnection>();
  readonly #settings: ConnectionSettings;
  /** The subprotocol each accepted upgrade request answers with. */
  readonly #protocols = new WeakMap<IncomingMessage, string>();
  /** Handler calls not yet settled, awaited by `close()`. */
  readonly #calls = new Set<Promise<unknown>>();
  readonly stage: string;
  #port = 0;
  /** The post limit's bucket; none without a `postLimit`. */
  readonly #posts: TokenBucket | undefined;
  #throttled = 0;
  /** Posts still to fail with a 500, by connection (see `failPosts`). */
  readonly #failing = new Map<string, number>();
  /** The pages that may connect: the option's, else the gateway's own once it listens. */
  #origins: OriginCheck | undefined;

  private constructor(options: LocalWebSocketGatewayOptions) {
    this.#options = options;
    this.stage = options.stage ?? 'local';
    const problems: string[] = [];
    if (options.allowedOrigins !== undefined) {
      this.#origins = originCheck(options.allowedOrigins, problems);
    }
    this.#settings = connectionSettings(options, problems);
    if (problems.length > 0) {
      throw new BatonError(
        ErrorCode.INVALID_ARGUMENT,
        `invalid local gateway options: ${problems.join('; ')}`,
      );
    }
    const limit = options.postLimit;
    this.#posts = limit && new TokenBucket(limit.perSecond, limit.burst ?? limit.perSecond);
    this.#wss = new WebSocketServer({
      noServer: true,
      maxPayload: MAX_FRAME_BYTES,
      handleProtocols: (_offered, request) => this.#protocols.get(request) ?? false,
    });
    this.#http = createServer((request, response) => {
      this.#manage(request, response).catch((error: unknown) => {
        this.#options.onError?.(error);
        reply(response, 500, 'InternalServerErrorException', toBatonError(error).message);
      });
    });
    this.#http.on('upgrade', (request, socket, head) => {
      socket.on('error', () => {});
      this.#upgrade(request, socket, head).catch((error: unknown) => {
        this.#options.onError?.(error);
        socket.destroy();
      });
    });
  }

  /**
   * Starts the gateway on `127.0.0.1`.
   *
   * @example
   * const gateway = await LocalWebSocketGateway.start({ handler, port: 0 });
   */
  static async start(options: LocalWebSocketGatewayOptions): Promise<LocalWebSocketGateway> {
    const gateway = new LocalWebSocketGateway(options);
    await new Promise<void>((resolve, reject) => {
      gateway.#http.once('error', reject);
      gateway.#http.listen(options.port ?? 0, '127.0.0.1', () => resolve());
    });
    gateway.#port = (gateway.#http.address() as AddressInfo).port;
    return gateway;
  }

  /** `ws://127.0.0.1:{port}/{stage}`: where clients connect. */
  get url(): string {
    return `ws://127.0.0.1:${this.#port}/${this.stage}`;
  }

  /** `http://127.0.0.1:{port}/{stage}`: the `endpoint` of an `ApiGatewayManagementApiClient`. */
  get managementEndpoint(): string {
    return `http://127.0.0.1:${this.#port}/${this.stage}`;
  }

  /** How many posts the `postLimit` refused so far. */
  get throttled(): number {
    return this.#throttled;
  }

  /** The ids of the open connections. */
  connectionIds(): string[] {
    return [...this.#sockets.keys()];
  }

  /**
   * Bytes posted to a connection that its client has not read yet (past the operating system's
   * buffers): at most `maxUnreadBytes` and one frame. 0 for a connection that is gone.
   */
  unreadBytes(connectionId: string): number {
    return this.#sockets.get(connectionId)?.unreadBytes ?? 0;
  }

  /**
   * Answers the next `count` posts to a connection with 500 `InternalServerErrorException`, as
   * API Gateway may: for tests of what a push that fails does.
   */
  failPosts(connectionId: string, count = 1): void {
    this.#failing.set(connectionId, count);
  }

  /**
   * Cuts a connection without calling `$disconnect`, as when API Gateway's disconnect event is
   * lost: the registry still holds it until a push finds it gone.
   */
  lose(connectionId: string): void {
    const connection = this.#sockets.get(connectionId);
    if (!connection) return;
    connection.announce = false;
    this.#forget(connectionId);
    connection.ws.terminate();
  }

  /** Closes every connection (each with `$disconnect`) and stops listening. */
  async close(): Promise<void> {
    const pending = [...this.#sockets.values()].map((connection) => {
      connection.close(1001, 'going away');
      return connection.queue;
    });
    const grace = setTimeout(() => {
      for (const ws of this.#wss.clients) ws.terminate();
    }, 1_000);
    await Promise.all(pending);
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
    clearTimeout(grace);
    await new Promise<void>((resolve) => {
      this.#http.close(() => resolve());
      this.#http.closeAllConnections();
    });
    // $disconnect calls started by the closes above.
    while (this.#calls.size > 0) await Promise.all(this.#calls);
  }

  #event(connectionId: string, routeKey: string, eventType: string, extra: object): WebSocketEvent {
    const now = Date.now();
    return {
      requestContext: {
        routeKey,
        eventType,
        connectionId,
        domainName: `127.0.0.1:${this.#port}`,
        stage: this.stage,
        apiId: 'local',
        requestId: randomUUID(),
        messageId: randomUUID(),
        extendedRequestId: randomUUID(),
        requestTime: new Date(now).toISOString(),
        requestTimeEpoch: now,
        messageDirection: 'IN',
        connectedAt: this.#sockets.get(connectionId)?.connectedAt.getTime() ?? now,
      },
      isBase64Encoded: false,
      ...extra,
    } as unknown as WebSocketEvent;
  }

  async #upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const origin = request.headers.origin;
    if (origin !== undefined) {
      const port = (this.#http.address() as AddressInfo).port;
      this.#origins ??= originCheck(loopbackOrigins(port));
      const origins = this.#origins;
      if (!origins.allows(origin)) {
        return refuseUpgrade(
          socket,
          403,
          originRefused(origin, origins, "the gateway's allowedOrigins option").message,
        );
      }
    }
    const connectionId = randomBytes(12).toString('base64');
    const url = new URL(request.url ?? '/', 'http://localhost');
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    const query = Object.fromEntries(url.searchParams);
    const response = await this.#options.handler(
      this.#event(connectionId, '$connect', 'CONNECT', {
        headers,
        queryStringParameters: Object.keys(query).length > 0 ? query : undefined,
      }),
    );
    const status = response?.statusCode ?? 200;
    if (status < 200 || status > 299) return refuseUpgrade(socket, status, response?.body ?? '');
    const protocol = Object.entries(response?.headers ?? {}).find(
      ([name]) => name.toLowerCase() === 'sec-websocket-protocol',
    )?.[1];
    if (protocol !== undefined) this.#protocols.set(request, protocol);
    this.#wss.handleUpgrade(request, socket, head, (ws) => this.#accept(connectionId, ws, request));
  }

  #accept(connectionId: string, ws: WebSocket, request: IncomingMessage): void {
    const connection = new GatewayConnection(ws, request, this.#settings);
    this.#sockets.set(connectionId, connection);
    ws.on('message', (data, isBinary) => {
      if (!connection.heard) return;
      connection.touch();
      const body = isBinary
        ? (data as Buffer).toString('base64')
        : (data as Buffer).toString('utf8');
      const event = this.#event(connectionId, '$default', 'MESSAGE', {
        body,
        isBase64Encoded: isBinary,
      });
      this.#call(connection, event);
    });
    ws.on('error', () => {});
    ws.on('close', () => {
      const announce = connection.announce;
      this.#forget(connectionId);
      if (announce) {
        this.#call(connection, this.#event(connectionId, '$disconnect', 'DISCONNECT', {}));
      }
    });
  }

  /** Calls the handler after the connection's earlier calls. */
  #call(connection: GatewayConnection, event: WebSocketEvent): void {
    const call = connection.queue.then(() =>
      this.#options.handler(event).catch((error: unknown) => this.#options.onError?.(error)),
    );
    connection.queue = call;
    this.#calls.add(call);
    void call.finally(() => this.#calls.delete(call));
  }

  #forget(connectionId: string): void {
    this.#sockets.get(connectionId)?.closed();
    this.#sockets.delete(connectionId);
  }

  /** The management API: `/{stage}/@connections/{id}`. */
  async #manage(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const match = /^\/([^/]+)\/@connections\/([^/]+)$/.exec(path);
    if (!match || match[1] !== this.stage) {
      const message = `no route ${request.method} ${path}: use /${this.stage}/@connections/{connectionId}`;
      return reply(response, 403, 'ForbiddenException', message);
    }
    const connectionId = decodeURIComponent(match[2]!);
    const body = await readBody(request);
    const connection = this.#sockets.get(connectionId);
    const gone = () => reply(response, 410, 'GoneException', `connection ${connectionId} is gone`);
    if (!connection?.open) return gone();
    switch (request.method) {
      case 'POST': {
        if (this.#posts && !this.#posts.take()) {
          this.#throttled++;
          return reply(response, 429, 'LimitExceededException', 'Rate exceeded');
        }
        const failing = this.#failing.get(connectionId) ?? 0;
        if (failing > 0) {
          this.#failing.set(connectionId, failing - 1);
          return reply(response, 500, 'InternalServerErrorException', 'Internal server error');
        }
        if (body.length > MAX_FRAME_BYTES) {
          const message = `message is ${body.length} bytes, over the ${MAX_FRAME_BYTES}-byte limit`;
          return reply(response, 413, 'PayloadTooLargeException', message);
        }
        // Answered once the frame is handed to the socket (not when the client reads it), as
        // API Gateway answers; past `maxUnreadBytes` unread, once the client reads.
        if (!(await connection.post(body.toString('utf8')))) return gone();
        response.writeHead(200, { 'content-type': 'application/json' }).end();
        return;
      }
      case 'GET': {
        // The management API's JSON names, as the SDK reads them.
        const info = {
          connectedAt: connection.connectedAt.toISOString(),
          lastActiveAt: connection.lastActiveAt.toISOString(),
          identity: { sourceIp: connection.sourceIp, userAgent: connection.userAgent },
        };
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(info));
        return;
      }
      case 'DELETE':
        connection.close(1000, 'closed by the server');
        response.writeHead(204).end();
        return;
      default:
        return reply(response, 403, 'ForbiddenException', `method ${request.method} not allowed`);
    }
  }
}

/** Answers an upgrade with a status that refuses it, and `body`. */
function refuseUpgrade(socket: Duplex, status: number, body: string): void {
  socket.end(
    `HTTP/1.1 ${status} Refused\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

function reply(response: ServerResponse, status: number, type: string, message: string): void {
  if (response.headersSent) return;
  response
    .writeHead(status, { 'content-type': 'application/json', 'x-amzn-errortype': type })
    .end(JSON.stringify({ message }));
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
