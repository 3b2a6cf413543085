import { BatonError, ErrorCode, toBatonError } from '@baton/core';
import { Client } from '@baton/core/client';
import {
  offeredProtocols,
  SUBPROTOCOL,
  tokenFromHandshake,
  UNACKED_SUBPROTOCOL,
} from '@baton/protocol';
import {
  authExpired,
  authenticate,
  authLapsed,
  authRefusal,
  type ConnectAuth,
  connectionOwner,
  originCheck,
  originRefused,
  ProtocolSession,
  tooManyConnections,
} from '@baton/server/session';
import type { APIGatewayProxyWebsocketEventV2 } from 'aws-lambda';
import { handleFrame } from './handleFrame.ts';
import { Pusher } from './Pusher.ts';
import { resolveReactiveOptions, type WebSocketHandlerOptions } from './WebSocketOptions.ts';

/**
 * The event API Gateway gives a WebSocket Lambda: `APIGatewayProxyWebsocketEventV2`, plus the
 * query string and headers it adds on `$connect`.
 *
 * @example
 * const event: WebSocketEvent = { requestContext: { routeKey: '$default', connectionId: 'abc=' }, body: '…' };
 */
export type WebSocketEvent = APIGatewayProxyWebsocketEventV2 & {
  readonly queryStringParameters?: Readonly<Record<string, string | undefined>> | null;
  readonly headers?: Readonly<Record<string, string | undefined>> | null;
};

/**
 * What the handler answers API Gateway: on `$connect` a non-2xx status refuses the connection,
 * and `Sec-WebSocket-Protocol` echoes the `baton.v1` subprotocol when the client offered it.
 *
 * @example
 * const response: WebSocketResponse = { statusCode: 200 };
 */
export interface WebSocketResponse {
  readonly statusCode: number;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

/**
 * The WebSocket Lambda of an API Gateway WebSocket API, for the routes `$connect`,
 * `$disconnect` and `$default`, speaking Baton's protocol (see `@baton/protocol`'s README):
 * - `$connect`: an upgrade from a page whose origin `allowedOrigins` does not list is refused
 *   with 403. The token (`?token=` or the `token.<token>` subprotocol) goes to `auth`; a
 *   throw refuses with 401 "unauthorized" (the reason goes to the log only). The connection is
 *   stored with a lease of `leaseMs`, and the end of its identity if `auth` set one
 *   (`validUntil`): a frame after it gets an `error` frame and the connection is closed.
 * - `$disconnect`: removes the connection, its subscriptions and instances left unused.
 * - `$default`: one client frame — `subscribe` runs the query against committed state, records
 *   its reads and pushes the result; `send`/`ask` enqueue through the core client and answer
 *   `accepted` (the reply or `visible` comes from {@link streamHandler}); `ping` renews the
 *   lease. Bad input gets an `error` frame to that connection only; the handler never throws
 *   for it.
 *
 * @example
 * const { dynamodb, sqs } = createAwsClients();
 * const store = new DynamoStore({ client: dynamodb, tableName: process.env.TABLE_NAME! });
 * const queue = new SqsQueue({ client: sqs, queueUrl: process.env.QUEUE_URL! });
 * export const handler = websocketHandler({
 *   actors: [Account],
 *   queries: [balance],
 *   store,
 *   queue,
 *   dynamodb,
 *   connectionsTable: process.env.CONNECTIONS_TABLE!,
 *   auth: ({ token }) => verify(token),
 * });
 */
export function websocketHandler(
  options: WebSocketHandlerOptions,
): (event: WebSocketEvent) => Promise<WebSocketResponse> {
  const context = resolveReactiveOptions(options);
  if (typeof options.queue?.send !== 'function') {
    throw new BatonError(ErrorCode.INVALID_ARGUMENT, 'queue must be a Queue (the inbox queue)');
  }
  const problems: string[] = [];
  const origins =
    options.allowedOrigins === undefined
      ? undefined
      : originCheck(options.allowedOrigins, problems);
  if (problems.length > 0) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `invalid WebSocket handler options: ${problems.join('; ')}`,
    );
  }
  const client = new Client({
    actors: options.actors,
    store: options.store,
    queue: options.queue,
    clock: context.clock,
    ...(options.idempotencyRetentionMs === undefined
      ? {}
      : { idempotencyRetentionMs: options.idempotencyRetentionMs }),
  });
  const session = new ProtocolSession({
    queries: options.queries,
    client,
    clock: context.clock,
    limits: context.limits,
    scope: context.scope,
    logger: context.logger,
  });
  const frames = { ...context, session };
  const { registry, logger, clock } = context;

  const connect = async (event: WebSocketEvent): Promise<WebSocketResponse> => {
    const headers = lowerCase(event.headers);
    const origin = headers.origin;
    if (origins && origin !== undefined && !origins.allows(origin)) {
      logger.warn('connection refused: its page is on an origin not allowed', { origin });
      return { statusCode: 403, body: originRefused(origin, origins, ORIGIN_SETTING).message };
    }
    const protocols = headers['sec-websocket-protocol'];
    const attempt = {
      headers,
      ...optional('token', tokenFromHandshake(event.queryStringParameters?.token, protocols)),
    };
    let auth: ConnectAuth;
    try {
      auth = await authenticate(options.auth, attempt, clock);
    } catch (error) {
      return { statusCode: 401, body: authRefusal(error, logger) };
    }
    const { domainName, stage, connectionId } = event.requestContext;
    const owner = connectionOwner(auth.identity);
    await registry.connections.put({
      connectionId,
      ...auth,
      expiresAt: clock.now() + context.leaseMs,
      endpoint: `https://${domainName}/${stage}`,
      ...(owner === undefined ? {} : { owner }),
    });
    // Counted after it registered, so that connects side by side see each other: each that
    // counts more than the cap leaves (at worst every one of a burst), never more than it stay.
    const max = context.limits.maxConnectionsPerUser;
    if (owner !== undefined) {
      const held = await registry.connections.owned(owner, max);
      if (held > max) {
        await registry.connections.remove(connectionId);
        logger.warn('connection refused: its user holds the most connections it may', {
          owner,
          held: held - 1,
          max,
        });
        return { statusCode: 429, body: tooManyConnections(max).message };
      }
    }
    // This host pushes without waiting for acks: a client that can do without them is told so.
    const offered = offeredProtocols(protocols);
    const selected = offered.includes(UNACKED_SUBPROTOCOL)
      ? UNACKED_SUBPROTOCOL
      : offered.includes(SUBPROTOCOL)
        ? SUBPROTOCOL
        : undefined;
    return selected
      ? { statusCode: 200, headers: { 'Sec-WebSocket-Protocol': selected } }
      : { statusCode: 200 };
  };

  return async (event) => {
    const { routeKey, connectionId } = event.requestContext;
    try {
      switch (routeKey) {
        case '$connect':
          return await connect(event);
        case '$disconnect':
          await registry.removeConnection(connectionId);
          return { statusCode: 200 };
        default: {
          const pusher = new Pusher(context.pushes);
          const connection = await pusher.connection(connectionId);
          // Not registered: swept after its lease lapsed, or $connect failed. It reconnects.
          if (!connection) await pusher.disconnect(connectionId);
          else if (authLapsed(connection.validUntil, clock.now())) {
            // Its token expired: told why, closed; it reconnects with a fresh one.
            await pusher.closeWith(connectionId, authExpired(connection.validUntil!));
          } else {
            await handleFrame(frames, pusher, connection, event.body ?? '', event.isBase64Encoded);
          }
          return { statusCode: 200 };
        }
      }
    } catch (error) {
      // Only the registry failing gets here (client input never throws): let API Gateway see it.
      logger.error('websocket route failed', {
        routeKey,
        connectionId,
        error: toBatonError(error).message,
      });
      return { statusCode: 500, body: 'internal error' };
    }
  };
}

/** Where a deployed app's pages are allowed, for a refusal to name. */
const ORIGIN_SETTING =
  "BatonApp's allowedOrigins prop (or websocketHandler's allowedOrigins option)";

function lowerCase(
  headers: Readonly<Record<string, string | undefined>> | null | undefined,
): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers ?? {})) out[name.toLowerCase()] = value;
  return out;
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
