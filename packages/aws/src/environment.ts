/**
 * The environment a deployed Baton function reads its resources from: what the CDK construct
 * sets on each function, and what the `…FromEnvironment` handlers of `@baton/aws/lambda` and
 * `@baton/aws/websocket` read. Endpoint overrides for the local emulators stay
 * `BATON_DYNAMODB_ENDPOINT` / `BATON_SQS_ENDPOINT` (see `createAwsClients`).
 */
import { invalidArgument } from '@baton/core/adapter';

/** The variable names, by what they hold. */
export const BATON_ENV = {
  /** The actor table's name. */
  table: 'BATON_TABLE',
  /** The FIFO inbox queue's URL. */
  inboxUrl: 'BATON_INBOX_URL',
  /** The standard queue durable timers are armed on (`SqsTimerQueue`, the relay). */
  timerQueueUrl: 'BATON_TIMER_QUEUE_URL',
  /** The connections table's name (live queries). */
  connectionsTable: 'BATON_CONNECTIONS_TABLE',
  /** The WebSocket API's management endpoint, `https://{api}.execute-api.{region}.amazonaws.com/{stage}`. */
  webSocketEndpoint: 'BATON_WEBSOCKET_ENDPOINT',
  /** `off` turns the worker's turn metrics (CloudWatch EMF) off; they are on otherwise. */
  metrics: 'BATON_METRICS',
  /**
   * How many keys the outbox index spreads its writes over (`DynamoStore`'s `outboxShards`);
   * its default (8) when unset. Every function of an app must read the same value.
   */
  outboxShards: 'BATON_OUTBOX_SHARDS',
  /** The sweeper's `concurrency`: how many groups of outboxes a sweep drains at once. */
  sweepConcurrency: 'BATON_SWEEP_CONCURRENCY',
  /** The WebSocket function's `maxSubscriptions`: subscriptions one connection may hold. */
  maxSubscriptions: 'BATON_MAX_SUBSCRIPTIONS',
  /** The WebSocket function's `maxFramesPerSecond`: frames one connection may send a second. */
  maxFramesPerSecond: 'BATON_MAX_FRAMES_PER_SECOND',
  /** The WebSocket function's `maxConnectionsPerUser`: connections one user may hold. */
  maxConnectionsPerUser: 'BATON_MAX_CONNECTIONS_PER_USER',
  /**
   * The WebSocket function's `allowedOrigins`, separated by commas (the construct's
   * `allowedOrigins`); every origin when unset.
   */
  allowedOrigins: 'BATON_ALLOWED_ORIGINS',
} as const;

/** The namespace of the worker's turn metrics when `POWERTOOLS_METRICS_NAMESPACE` names none. */
export const DEFAULT_METRICS_NAMESPACE = 'Baton';

type Variable = keyof typeof BATON_ENV;

/**
 * The values of `variables`, read once; throws one INVALID_ARGUMENT naming every one missing,
 * so a function deployed without them fails at cold start saying what to set.
 *
 * @example
 * const { table, inboxUrl } = readEnvironment(['table', 'inboxUrl']);
 */
export function readEnvironment<const V extends Variable>(
  variables: readonly V[],
  env: Readonly<Record<string, string | undefined>> = process.env,
): Record<V, string> {
  const values = {} as Record<V, string>;
  const missing: string[] = [];
  for (const variable of variables) {
    const value = env[BATON_ENV[variable]];
    if (value === undefined || value === '') missing.push(BATON_ENV[variable]);
    else values[variable] = value;
  }
  if (missing.length > 0) {
    throw invalidArgument(
      `missing environment: ${missing.join(', ')}; the BatonApp construct sets them, or set them yourself`,
      { missing },
    );
  }
  return values;
}

/**
 * `DynamoStore`'s options the environment sets: `outboxShards` from `BATON_OUTBOX_SHARDS` when
 * it is set. Throws INVALID_ARGUMENT naming the variable when it is not a whole number (the
 * store checks its range).
 *
 * @example
 * const store = new DynamoStore({ client, tableName, ...storeOptionsFromEnvironment() });
 */
export function storeOptionsFromEnvironment(
  env: Readonly<Record<string, string | undefined>> = process.env,
): { outboxShards?: number } {
  const outboxShards = wholeNumber(
    env,
    'outboxShards',
    "outbox index keys (the construct's outboxShards)",
  );
  return outboxShards === undefined ? {} : { outboxShards };
}

/**
 * The `Sweeper`'s options the environment sets: `concurrency` from `BATON_SWEEP_CONCURRENCY`
 * when it is set. Throws INVALID_ARGUMENT naming the variable when it is not a whole number.
 *
 * @example
 * const sweeper = new Sweeper(engine, sweeperOptionsFromEnvironment());
 */
export function sweeperOptionsFromEnvironment(
  env: Readonly<Record<string, string | undefined>> = process.env,
): { concurrency?: number } {
  const concurrency = wholeNumber(
    env,
    'sweepConcurrency',
    "groups of outboxes drained at once (the construct's sweeperConcurrency)",
  );
  return concurrency === undefined ? {} : { concurrency };
}

/**
 * The WebSocket handler's caps the environment sets (`maxSubscriptions`, `maxFramesPerSecond`,
 * `maxConnectionsPerUser`, from `BATON_MAX_*`), each when it is set. Throws INVALID_ARGUMENT
 * naming the variable when one is not a whole number (the handler checks the range).
 *
 * @example
 * websocketHandler({ ...options, ...connectionLimitsFromEnvironment() });
 */
export function connectionLimitsFromEnvironment(
  env: Readonly<Record<string, string | undefined>> = process.env,
): { maxSubscriptions?: number; maxFramesPerSecond?: number; maxConnectionsPerUser?: number } {
  const limits = {
    maxSubscriptions: wholeNumber(env, 'maxSubscriptions', 'subscriptions a connection may hold'),
    maxFramesPerSecond: wholeNumber(
      env,
      'maxFramesPerSecond',
      'frames a connection may send a second',
    ),
    maxConnectionsPerUser: wholeNumber(env, 'maxConnectionsPerUser', 'connections a user may hold'),
  };
  return Object.fromEntries(Object.entries(limits).filter(([, value]) => value !== undefined));
}

/** The whole number `variable` holds, `undefined` when it is unset; refused otherwise. */
function wholeNumber(
  env: Readonly<Record<string, string | undefined>>,
  variable: Variable,
  what: string,
): number | undefined {
  const name = BATON_ENV[variable];
  const value = env[name];
  if (value === undefined || value === '') return undefined;
  if (!/^\d+$/.test(value)) {
    throw invalidArgument(
      `${name} must be a whole number of ${what}, got ${JSON.stringify(value)}`,
      {
        variable: name,
        value,
      },
    );
  }
  return Number(value);
}
