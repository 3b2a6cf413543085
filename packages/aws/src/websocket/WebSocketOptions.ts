import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  type AnyActorDefinition,
  type AnyQueryDefinition,
  jsonLogger,
  type Logger,
} from '@baton/core';
import {
  type Clock,
  invalidArgument,
  type Queue,
  Registry,
  type Store,
  systemClock,
} from '@baton/core/adapter';
import { type EvaluateEnvironment, identityScope } from '@baton/server/evaluation';
import {
  type AllowedOrigins,
  type ConnectionLimits,
  resolveConnectionLimits,
} from '@baton/server/session';
import { type ManagementClientFactory, managementClients, type PusherContext } from './Pusher.ts';
import type { PushOptions } from './PushQueue.ts';
import { ConnectionRegistry } from './registry/ConnectionRegistry.ts';

/**
 * What the `$connect` auth hook is given: the token (from `?token=` or the `token.<token>`
 * subprotocol) and the request's headers (names in lower case).
 *
 * @example
 * const auth = ({ token }: ConnectAuthRequest) => verifyJwt(token); // throw to refuse (401)
 */
export interface ConnectAuthRequest {
  readonly token?: string;
  readonly headers: Readonly<Record<string, string | undefined>>;
  /**
   * Ends the connection's identity at `epochMs` (epoch ms): its next frame or push (or the
   * sweeper) then finds it ended, tells it why in an `error` frame and closes it, so that the
   * client connects again with a fresh token. Call it before the hook returns; the earliest call
   * counts; a time already past refuses the connection. `jwtAuth` calls it with the token's `exp`.
   */
  readonly validUntil: (epochMs: number) => void;
}

/**
 * Options shared by {@link streamHandler} and {@link sweepConnections}.
 *
 * @example
 * const options: ReactiveOptions = {
 *   actors: [Account], queries: [balance], store, dynamodb, connectionsTable: 'baton-connections',
 * };
 */
export interface ReactiveOptions extends ConnectionLimits {
  readonly actors: readonly AnyActorDefinition[];
  readonly queries: readonly AnyQueryDefinition[];
  /** The store's table: committed reads (`load`) and outcomes. */
  readonly store: Store;
  readonly dynamodb: DynamoDBClient;
  /** The connections table ({@link createConnectionsTable}). */
  readonly connectionsTable: string;
  /**
   * The management API endpoint, `https://{api-id}.execute-api.{region}.amazonaws.com/{stage}`
   * (or a custom domain). @default the one each connection's `$connect` event named
   */
  readonly endpoint?: string;
  /** Makes the management API client. @default `new ApiGatewayManagementApiClient({ endpoint })` */
  readonly managementClient?: ManagementClientFactory;
  /**
   * How pushes go out: `PostToConnection` calls in flight at once, calls per second (keep the
   * containers that push at once × this under API Gateway's account limit), backoff on
   * throttling. @default 32 at once, no pacing, backoff from 50 ms to 2 s
   */
  readonly push?: PushOptions;
  /** Subscribers with equal scopes share an instance. @default one per distinct identity */
  readonly scope?: (identity: unknown) => string;
  /** A connection's lease: pushes skip it and the sweeper removes it unless a `ping` renews it. @default 10 min */
  readonly leaseMs?: number;
  /** The longest a connection lives (API Gateway: 2 h); registry items get a TTL past it. @default 2 h */
  readonly maxConnectionMs?: number;
  /** @default the system clock */
  readonly clock?: Clock;
  /** @default JSON lines on stdout */
  readonly logger?: Logger;
}

/**
 * Options of {@link websocketHandler}: the shared ones, the ingress queue and the auth hook.
 *
 * @example
 * const options: WebSocketHandlerOptions = { ...reactive, queue, auth: ({ token }) => verify(token) };
 */
export interface WebSocketHandlerOptions extends ReactiveOptions {
  /** Where `send` and `ask` are enqueued (the inbox queue). */
  readonly queue: Queue;
  /**
   * The engine's `idempotencyRetentionMs`: give this door the value its engine has. A key stays
   * bound to its message twice this from its send; with less than the engine's, a client's retry
   * past that would be a new message, applied again while the engine still keeps the first's
   * outcome. @default 14 days, the engine's default
   */
  readonly idempotencyRetentionMs?: number;
  /**
   * Turns a connection attempt into the identity queries see as `ctx.identity`; throw (or
   * reject) to refuse with 401 "unauthorized" (the reason goes to the log only). @default every
   * connection is accepted, identity `undefined`
   */
  readonly auth?: (request: ConnectAuthRequest) => unknown;
  /**
   * The web pages that may connect, by the `Origin` a browser sends with every upgrade: a list
   * of origins (`'https://app.example.com'`) or a function `(origin) => boolean`. `$connect`
   * refuses any other page with 403 before `auth` runs. API Gateway checks no origin itself:
   * set this when `auth` trusts what a browser sends on its own (a cookie), so that another
   * site cannot connect as its visitor. A client without `Origin` (no browser) is not checked.
   * @default every origin
   */
  readonly allowedOrigins?: AllowedOrigins;
}

/**
 * The resolved options: what the handlers share for the life of the container.
 *
 * @example
 * const { registry, queries, leaseMs } = resolveReactiveOptions(options);
 */
export interface ReactiveContext {
  readonly registry: ConnectionRegistry;
  readonly queries: ReadonlyMap<string, AnyQueryDefinition>;
  readonly env: EvaluateEnvironment;
  readonly store: Store;
  readonly pushes: PusherContext;
  readonly scope: (identity: unknown) => string;
  readonly leaseMs: number;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Per-connection caps on subscriptions and frames per second. */
  readonly limits: Required<ConnectionLimits>;
}

/**
 * Checks the options (every problem in one INVALID_ARGUMENT error) and builds the context.
 *
 * @example
 * const context = resolveReactiveOptions(options);
 */
export function resolveReactiveOptions(options: ReactiveOptions): ReactiveContext {
  const problems: string[] = [];
  const queries = new Map<string, AnyQueryDefinition>();
  if (!Array.isArray(options?.queries)) problems.push('queries must be an array of query()s');
  for (const query of options?.queries ?? []) {
    if (query?.kind !== 'query') problems.push('queries must be made with query()');
    else if (queries.has(query.name)) problems.push(`two queries are named "${query.name}"`);
    else queries.set(query.name, query);
  }
  if (!Array.isArray(options?.actors)) problems.push('actors must be an array of actor()s');
  if (typeof options?.store?.load !== 'function') problems.push('store must be a Store');
  if (typeof options?.dynamodb?.send !== 'function')
    problems.push('dynamodb must be a DynamoDBClient');
  if (typeof options?.connectionsTable !== 'string' || options.connectionsTable === '') {
    problems.push('connectionsTable must name the connections table');
  }
  const duration = (name: string, value: number | undefined, fallback: number) => {
    const v = value ?? fallback;
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) {
      problems.push(`${name} must be a number > 0, got ${String(v)}`);
    }
    return v;
  };
  const leaseMs = duration('leaseMs', options?.leaseMs, 10 * 60_000);
  const maxConnectionMs = duration('maxConnectionMs', options?.maxConnectionMs, 2 * 60 * 60_000);
  const limits = resolveConnectionLimits(options ?? {}, problems);
  for (const [name, value] of Object.entries(options?.push ?? {})) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
      problems.push(`push.${name} must be a number > 0, got ${String(value)}`);
    }
  }
  if (problems.length > 0) {
    throw invalidArgument(`invalid WebSocket handler options: ${problems.join('; ')}`, {
      problems,
    });
  }
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? jsonLogger();
  const registry = new ConnectionRegistry({
    client: options.dynamodb,
    tableName: options.connectionsTable,
    clock,
    maxConnectionMs,
  });
  return {
    registry,
    queries,
    env: { registry: new Registry(options.actors), store: options.store },
    store: options.store,
    pushes: {
      registry,
      clock,
      logger,
      endpoint: options.endpoint,
      clientFor: managementClients(options.managementClient),
      options: options.push ?? {},
    },
    scope: options.scope ?? identityScope,
    limits,
    leaseMs,
    clock,
    logger,
  };
}
