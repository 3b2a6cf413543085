import { allowedOriginsProblems, BATON_ENV, MAX_OUTBOX_SHARDS } from '@baton/aws';
import { DEFAULT_MAX_ATTEMPTS, SWEEP_CONCURRENCY } from '@baton/core/engine';
import { Duration, Token } from 'aws-cdk-lib';
import * as logs from 'aws-cdk-lib/aws-logs';
import type {
  AlarmThresholds,
  BatonAppProps,
  IngressAuth,
  ReservedConcurrency,
  StageThrottle,
  WebSocketAuth,
} from './BatonAppProps.ts';
import { entryProblems } from './entryProblems.ts';

/** The props with defaults filled in. */
export interface BatonAppSettings {
  readonly batchSize: number;
  readonly maxConcurrency: number;
  readonly maxReceiveCount: number;
  readonly highThroughputInbox: boolean;
  readonly contributorInsights: boolean;
  readonly workerTimeout: Duration;
  readonly ingressAuth: IngressAuth;
  readonly webSocketAuth: WebSocketAuth;
  readonly throttle: StageThrottle;
  readonly reservedConcurrency: Required<ReservedConcurrency> | false;
  readonly stageName: string;
  readonly logRetention: logs.RetentionDays;
  readonly alarmThresholds: Required<AlarmThresholds>;
  readonly outboxShards: number;
  readonly sweeperConcurrency: number;
  /** The WebSocket caps given, by their environment variable. */
  readonly webSocketLimits: ReadonlyArray<readonly [string, number]>;
  /** The origins whose pages may connect; `undefined`: every origin. */
  readonly allowedOrigins: readonly string[] | undefined;
}

/**
 * Checks every prop, collecting all problems into one error (like the CDK's own constructs), and
 * fills in the defaults. The entry must be a file; with `readEntry` (when the synth bundles the
 * functions) its source is read too, for a default export (see {@link entryProblems}).
 */
export function validateProps(
  props: BatonAppProps,
  { readEntry = false }: { readonly readEntry?: boolean } = {},
): BatonAppSettings {
  const problems: string[] = [];
  if (typeof props?.entry !== 'string' || props.entry === '') {
    problems.push('entry must be the path of the module that exports defineApp(...) as default');
  } else if (!Token.isUnresolved(props.entry)) {
    problems.push(...entryProblems(props.entry, { readSource: readEntry }));
  }
  const integer = (
    name: string,
    value: number | undefined,
    fallback: number,
    min: number,
    max: number,
  ) => {
    const v = value ?? fallback;
    if (!Token.isUnresolved(v) && (!Number.isInteger(v) || v < min || v > max)) {
      problems.push(`${name} must be an integer from ${min} to ${max}, got ${v}`);
    }
    return v;
  };
  const batchSize = integer('batchSize', props?.batchSize, 10, 1, 10);
  const maxConcurrency = integer('maxConcurrency', props?.maxConcurrency, 10, 2, 1000);
  const maxReceiveCount = integer('maxReceiveCount', props?.maxReceiveCount, 10, 1, 1000);
  const outboxShards = integer('outboxShards', props?.outboxShards, 8, 1, MAX_OUTBOX_SHARDS);
  const sweeperConcurrency = integer(
    'sweeperConcurrency',
    props?.sweeperConcurrency,
    SWEEP_CONCURRENCY,
    1,
    100,
  );
  const webSocketLimits: Array<readonly [string, number]> = [];
  const limits = props?.webSocketLimits ?? {};
  for (const name of ['maxSubscriptions', 'maxFramesPerSecond', 'maxConnectionsPerUser'] as const) {
    const value = limits[name];
    if (value === undefined) continue;
    integer(`webSocketLimits.${name}`, value, value, 1, 100_000);
    webSocketLimits.push([BATON_ENV[name], value]);
  }
  const allowedOrigins = props?.allowedOrigins;
  if (allowedOrigins !== undefined) {
    if (Array.isArray(allowedOrigins) && allowedOrigins.length === 0) {
      problems.push(
        'allowedOrigins is empty: list the origins of the pages that may connect, or leave it unset to let every origin connect',
      );
    }
    // An origin known at deploy time (e.g. `https://${distribution.domainName}`) is checked there.
    const known = Array.isArray(allowedOrigins)
      ? allowedOrigins.filter((origin) => !Token.isUnresolved(origin))
      : allowedOrigins;
    problems.push(...allowedOriginsProblems(known, 'allowedOrigins'));
  }
  // The workers run the engine's default maxAttempts; the queue must leave it a receive more.
  if (
    !Token.isUnresolved(maxReceiveCount) &&
    Number.isInteger(maxReceiveCount) &&
    maxReceiveCount >= 1 &&
    maxReceiveCount <= DEFAULT_MAX_ATTEMPTS
  ) {
    problems.push(
      `maxReceiveCount must be above the workers' maxAttempts (${DEFAULT_MAX_ATTEMPTS}), got ${maxReceiveCount}: the inbox's dead-letter queue would take a failing message, and the messages behind it, before the engine ends it in the actor's turn and keeps it to redrive; set ${DEFAULT_MAX_ATTEMPTS + 1} or more`,
    );
  }
  const highThroughputInbox = props?.highThroughputInbox ?? false;
  if (typeof highThroughputInbox !== 'boolean') {
    problems.push(
      `highThroughputInbox must be true or false, got ${JSON.stringify(highThroughputInbox)}`,
    );
  }
  const contributorInsights = props?.contributorInsights ?? false;
  if (typeof contributorInsights !== 'boolean') {
    problems.push(
      `contributorInsights must be true or false, got ${JSON.stringify(contributorInsights)}`,
    );
  }
  const workerTimeout = props?.workerTimeout ?? Duration.seconds(30);
  // The inbox's visibility timeout is six times the worker's, and at most 12 hours.
  if (workerTimeout.toSeconds() < 1 || workerTimeout.toSeconds() * 6 > 12 * 3600) {
    problems.push(
      `workerTimeout must be from 1 second to 2 hours, got ${workerTimeout.toHumanString()}`,
    );
  }
  const ingressAuth = props?.ingressAuth ?? 'iam';
  const authorizer = typeof ingressAuth === 'object' && ingressAuth !== null;
  if (ingressAuth !== 'iam' && ingressAuth !== 'none' && !authorizer) {
    problems.push(
      `ingressAuth must be 'iam', { authorizer } or 'none', got ${JSON.stringify(ingressAuth)}`,
    );
  } else if (authorizer && typeof ingressAuth.authorizer?.bind !== 'function') {
    problems.push('ingressAuth.authorizer must be an HTTP route authorizer (IHttpRouteAuthorizer)');
  }
  const webSocketAuth = props?.webSocketAuth;
  if (webSocketAuth !== 'app' && webSocketAuth !== 'none') {
    problems.push(
      "webSocketAuth must say who may open a WebSocket: 'app' (the app's defineApp({ auth }) " +
        `checks every $connect) or 'none' (anyone), got ${JSON.stringify(webSocketAuth)}`,
    );
  }
  const open = [
    ...(webSocketAuth === 'none' ? ["webSocketAuth: 'none' lets anyone connect"] : []),
    ...(ingressAuth === 'none' ? ["ingressAuth: 'none' lets anyone call the HTTP ingress"] : []),
  ];
  if (open.length > 0 && props?.allowAnonymous !== true) {
    problems.push(
      `this app would be open to anyone (${open.join('; ')}): give the app an auth hook and set ` +
        "webSocketAuth: 'app', keep ingressAuth 'iam' or give it an authorizer — or set " +
        'allowAnonymous: true to deploy it open on purpose',
    );
  }
  const throttle = {
    rateLimit: integer('throttle.rateLimit', props?.throttle?.rateLimit, 500, 1, 10_000),
    burstLimit: integer('throttle.burstLimit', props?.throttle?.burstLimit, 1000, 1, 5_000),
  };
  const reserved = props?.reservedConcurrency;
  const reservedConcurrency =
    reserved === false
      ? false
      : {
          websocket: integer('reservedConcurrency.websocket', reserved?.websocket, 100, 1, 1000),
          ingress: integer('reservedConcurrency.ingress', reserved?.ingress, 50, 1, 1000),
          stream: integer('reservedConcurrency.stream', reserved?.stream, 20, 1, 1000),
        };
  const t = props?.alarmThresholds;
  const threshold = (name: keyof AlarmThresholds, fallback: number, min: number, max: number) =>
    integer(`alarmThresholds.${name}`, t?.[name] as number | undefined, fallback, min, max);
  const alarmThresholds = {
    inboxAgeSeconds: threshold('inboxAgeSeconds', 300, 60, 1_209_600),
    // 80% of a FIFO action's 300 calls/s; in high-throughput mode, of the least regional quota.
    inboxMessagesPerSecond: threshold(
      'inboxMessagesPerSecond',
      highThroughputInbox === true ? 1_920 : 240,
      1,
      1_000_000,
    ),
    tableThrottledRequests: threshold('tableThrottledRequests', 1, 1, 1_000_000),
    tableWriteThrottleEvents: threshold('tableWriteThrottleEvents', 1, 1, 1_000_000),
    functionThrottles: threshold('functionThrottles', 1, 1, 1_000_000),
    pushThrottles: threshold('pushThrottles', 1, 1, 1_000_000),
    // The stream mapping gives a record up after an hour: an alarm past that would never fire.
    streamIteratorAgeMs: threshold('streamIteratorAgeMs', 60_000, 1_000, 3_599_000),
    accountConcurrentExecutions:
      t?.accountConcurrentExecutions === false
        ? (false as const)
        : threshold('accountConcurrentExecutions', 800, 1, 1_000_000),
  };
  const stageName = props?.stageName ?? 'live';
  if (!/^[A-Za-z0-9_]{1,128}$/.test(stageName)) {
    problems.push(
      `stageName must be 1 to 128 letters, digits or underscores, got ${JSON.stringify(stageName)}`,
    );
  }
  const days = integer('logRetentionDays', props?.logRetentionDays, 30, 1, 3653);
  const logRetention = Object.values(logs.RetentionDays).includes(days as logs.RetentionDays)
    ? (days as logs.RetentionDays)
    : undefined;
  if (logRetention === undefined && Number.isInteger(days)) {
    problems.push(
      `logRetentionDays must be one CloudWatch Logs offers (1, 3, 5, 7, 14, 30, …), got ${days}`,
    );
  }
  if (problems.length > 0) {
    throw new Error(`invalid BatonApp props:\n- ${problems.join('\n- ')}`);
  }
  return {
    batchSize,
    maxConcurrency,
    maxReceiveCount,
    highThroughputInbox,
    contributorInsights,
    workerTimeout,
    ingressAuth,
    webSocketAuth: webSocketAuth as WebSocketAuth,
    throttle,
    reservedConcurrency,
    stageName,
    logRetention: logRetention!,
    alarmThresholds,
    outboxShards,
    sweeperConcurrency,
    webSocketLimits,
    allowedOrigins,
  };
}
