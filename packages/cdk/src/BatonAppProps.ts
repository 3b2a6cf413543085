import type { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { IHttpRouteAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2';

/**
 * Who may call the HTTP ingress (`POST /send`, `POST /ask`, `GET /outcome?to=…&idempotencyKey=…`):
 * - `'iam'`: SigV4-signed requests only, on a Lambda function URL (grant callers with
 *   `grantIngress`).
 * - `{ authorizer }`: an API Gateway HTTP API in front of the ingress, each route behind this
 *   authorizer (e.g. an `HttpLambdaAuthorizer` running `jwtAuthorizer` from `@baton/aws/auth`,
 *   or an `HttpJwtAuthorizer`), with the stage's throttling and access logs.
 * - `'none'`: anyone, on a function URL — an anonymous ingress, deployed only with
 *   `allowAnonymous: true`.
 */
export type IngressAuth = 'iam' | 'none' | { readonly authorizer: IHttpRouteAuthorizer };

/**
 * Who may open a WebSocket connection. API Gateway takes no authorizer on a WebSocket's other
 * routes, so Baton authenticates in the WebSocket function:
 * - `'app'`: the app's own `auth` (`defineApp({ auth })`, e.g. `jwtAuth` from
 *   `@baton/aws/auth`) runs on every `$connect` and refuses what it throws on. The deployed
 *   function refuses to start if the app has no `auth`.
 * - `'none'`: anyone — an anonymous app, deployed only with `allowAnonymous: true`.
 */
export type WebSocketAuth = 'app' | 'none';

/** A stage's steady request rate and its burst, per second, over all callers. */
export interface StageThrottle {
  readonly rateLimit: number;
  readonly burstLimit: number;
}

/**
 * Concurrent executions kept for (and capped at) the functions callers from outside reach, and
 * the stream function that pushes to subscribers: a busy worker or another function of the
 * account cannot take the concurrency they need.
 */
export interface ReservedConcurrency {
  /** @default 100 */
  readonly websocket?: number;
  /** @default 50 */
  readonly ingress?: number;
  /**
   * The stream function runs one invocation per shard of the table's stream (about one per
   * partition): keep this at or above the table's partitions, or its reads wait (the
   * `streamThrottles` and `streamIteratorAge` alarms fire).
   * @default 20
   */
  readonly stream?: number;
}

/**
 * Where the alarms on the scale limits fire (`docs/scale.md`): each near a limit before it hurts.
 * The defaults fit AWS's default quotas; an account with raised quotas raises them too.
 */
export interface AlarmThresholds {
  /**
   * Seconds the inbox's oldest message has waited: workers are behind or failing.
   * @default 300
   */
  readonly inboxAgeSeconds?: number;
  /**
   * Messages sent to the inbox per second, over 3 minutes in a row. A FIFO queue takes 300 calls/s
   * per action (without high-throughput mode); one message a call (a client's `send`) is the
   * worst case, so the default is 80% of 300. In high-throughput mode (`highThroughputInbox`)
   * the quota is the region's, 2,400 calls/s per action in the regions with the least (70,000
   * in the most): the default is then 80% of 2,400; raise it to your region's.
   * @default 240; with `highThroughputInbox`, 1,920
   */
  readonly inboxMessagesPerSecond?: number;
  /**
   * Throttled requests to the actor table in a minute, summed over the operations Baton calls
   * (`ThrottledRequests` by operation): a hot actor at its partition's 1,000 WCU/s, or the
   * table at its account quota.
   * @default 1
   */
  readonly tableThrottledRequests?: number;
  /**
   * Throttled write events on the actor table and its outbox index in a minute
   * (`WriteThrottleEvents`; an index's throttling holds back the table's writes too).
   * @default 1
   */
  readonly tableWriteThrottleEvents?: number;
  /**
   * Throttled invocations in 5 minutes of the worker, stream, WebSocket and ingress functions
   * (each its own alarm): reserved concurrency or the account's concurrency ran out.
   * @default 1
   */
  readonly functionThrottles?: number;
  /**
   * `PostToConnection` calls refused as throttled (and retried) in 5 minutes, from the stream
   * function's log: pushes reached the account's API Gateway limit (10,000 requests/s, shared by
   * every API of the region), and subscribers get their results late.
   * @default 1
   */
  readonly pushThrottles?: number;
  /**
   * Milliseconds between a change reaching the table's stream and the stream function reading it
   * (`IteratorAge`, maximum in a minute): pushes to subscribers are late by this much. Below an
   * hour, when the stream mapping gives records up.
   * @default 60_000
   */
  readonly streamIteratorAgeMs?: number;
  /**
   * Concurrent executions of every function in the account and region, 3 minutes in a row: near
   * the account's quota, Lambda throttles every function. `false` for none (one alarm per account
   * is enough when several apps share it).
   * @default 800 (80% of the default quota of 1,000)
   */
  readonly accountConcurrentExecutions?: number | false;
}

/**
 * Options of the {@link BatonApp} construct.
 *
 * @example
 * new BatonApp(this, 'Bank', { entry: 'src/app.ts' });
 */
export interface BatonAppProps {
  /**
   * The app module: it exports, as its default export, what `defineApp({ actors, queries, auth })`
   * from `@baton/core` returns. Every function is bundled from it (esbuild, the AWS SDK left to
   * the runtime). A path relative to the working directory, or absolute. Checked as the
   * construct is made: a path that names no file is refused, and when the synth bundles the
   * functions, so is a module without a default export or one that does not parse (its source
   * read by the project's esbuild, never run), before any bundling.
   */
  readonly entry: string;
  /**
   * Who may open a WebSocket connection: `'app'` (the app's `auth` hook) or `'none'` (anyone,
   * with `allowAnonymous: true`). Required: a deployment says how it is protected.
   */
  readonly webSocketAuth: WebSocketAuth;
  /**
   * Deploys an app that anyone may call (`webSocketAuth: 'none'` or `ingressAuth: 'none'`).
   * Without it such an app is refused at synth.
   * @default false
   */
  readonly allowAnonymous?: boolean;
  /**
   * The directory bundling resolves packages from: it must hold the `node_modules` with
   * `@baton/aws` and the lock file.
   * @default the nearest directory above `entry` with a lock file
   */
  readonly projectRoot?: string;
  /**
   * What happens to the actor table when the stack is deleted.
   * @default RemovalPolicy.RETAIN — actor state outlives the stack
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * Whether CloudWatch Contributor Insights runs on the actor table: its most-accessed and
   * most-throttled partition keys, the answer to "which actor is hot?" (an actor's key is
   * `A#<type/key>`). Off by default: AWS bills it per event, every read and write of the table.
   * Its outbox index is left out.
   * @default false
   */
  readonly contributorInsights?: boolean;
  /**
   * Messages a worker takes from the inbox at once (SQS FIFO hands out at most 10).
   * @default 10
   */
  readonly batchSize?: number;
  /**
   * Worker invocations at once, at most (the event source's maximum concurrency, 2 to 1,000).
   * @default 10
   */
  readonly maxConcurrency?: number;
  /**
   * Receives of a message before the inbox moves it to the dead-letter queue. The engine ends a
   * message that keeps failing itself (DEAD_LETTERED) after 3 failures (its `maxAttempts`), or
   * at its last receive, before this; the queue's limit catches a worker that dies on it. A
   * message behind a failing one spends receives waiting: in a long outage, more room gives each
   * message its 3 tries. A message that only newer code knows (a rolling deploy) waits for all
   * but the last of these receives, each after the inbox's visibility timeout, before the
   * engine keeps it. Must be above 3: the construct refuses less, and so would the workers.
   * @default 10
   */
  readonly maxReceiveCount?: number;
  /**
   * Whether the inbox runs in SQS FIFO's high-throughput mode (deduplication per message group,
   * throughput limited per message group): past the 300 calls/s per action a FIFO queue takes
   * otherwise, up to the region's quota, with each actor (a message group) still at 300.
   * Exactly-once holds the same: each actor's messages are one message group, and Baton relies
   * only on what SQS promises in either mode, a sequence number that increases within a group.
   * Changing it on a deployed app updates the queue in place; the workers then set their inbox
   * offsets aside once (docs/scale.md: disable the worker's event source during the deploy).
   * @default false
   */
  readonly highThroughputInbox?: boolean;
  /**
   * The worker's timeout; the inbox's visibility timeout is six times it, as Lambda advises.
   * @default Duration.seconds(30)
   */
  readonly workerTimeout?: Duration;
  /** @default 'iam' */
  readonly ingressAuth?: IngressAuth;
  /**
   * The throttling of the WebSocket stage and of the ingress's HTTP API stage (with an
   * `authorizer`): requests per second, steady and burst, over all callers.
   * @default { rateLimit: 500, burstLimit: 1000 }
   */
  readonly throttle?: StageThrottle;
  /**
   * Concurrency reserved for the WebSocket, ingress and stream functions, which is also their
   * cap: a flood of calls cannot take the account's whole concurrency from the workers and the
   * rest, and the pushes to subscribers keep theirs. `false` reserves none (an account whose
   * concurrency quota is too small to reserve any).
   * @default { websocket: 100, ingress: 50, stream: 20 }
   */
  readonly reservedConcurrency?: ReservedConcurrency | false;
  /**
   * Where the alarms on the scale limits fire: the inbox's age and send rate, DynamoDB
   * throttling, function throttles, the stream's iterator age, the account's concurrency.
   * @default see {@link AlarmThresholds}
   */
  readonly alarmThresholds?: AlarmThresholds;
  /**
   * The WebSocket API's stage name.
   * @default 'live'
   */
  readonly stageName?: string;
  /**
   * How long logs are kept.
   * @default 30 days
   */
  readonly logRetentionDays?: number;
  /**
   * Whether the worker publishes each turn's metrics (duration, batch size, messages applied,
   * rejected, dead-lettered, parked, retried, version conflicts, errors) as CloudWatch EMF log
   * lines, in the `Baton` namespace with the app's path as the `service` dimension; the
   * dashboard graphs them. `false` turns them off (no EMF lines, no custom metrics billed).
   * @default true
   */
  readonly metrics?: boolean;
  /**
   * How many keys the table's outbox index spreads its writes over: every commit that sends
   * writes one index entry, and each key takes about 1,000 writes a second. Raise it when the
   * app's sending commits together pass about 1,000 × this a second (DynamoDB throttling on the
   * index says so). Every function, and `baton --stack`, reads it from the stack. Only ever
   * raise it on a live app: entries under keys past a lowered count would be missed by the
   * sweeper.
   * @default 8
   */
  readonly outboxShards?: number;
  /**
   * How many groups of ten actors the sweeper drains at once. Its main work is retiring the sends
   * idle actors' records hold: on AWS each group at a time retires about 475 actors a second,
   * with about 48 sends a second to the inbox. Raise it when `sweep done` logs a `left` above 0
   * sweep after sweep — with `highThroughputInbox` once the sends pass the 300 calls a second
   * that the inbox shares with the workers' drains and the clients' sends.
   * @default 2
   */
  readonly sweeperConcurrency?: number;
  /**
   * The WebSocket function's caps: subscriptions one connection may hold (`maxSubscriptions`,
   * 100), frames it may send a second (`maxFramesPerSecond`, 200: more are refused, and more than
   * twice it in one second close the connection), and connections one user may
   * hold (`maxConnectionsPerUser`, 100; anonymous connections are not counted). Each from 1 to
   * 100,000.
   * @default the handler's defaults
   */
  readonly webSocketLimits?: {
    readonly maxSubscriptions?: number;
    readonly maxFramesPerSecond?: number;
    readonly maxConnectionsPerUser?: number;
  };
  /**
   * The origins (`scheme://host[:port]`) whose pages may open a WebSocket connection: an upgrade
   * a browser sends from a page on any other origin is refused with 403 on `$connect`, before
   * the app's `auth` runs, so a page elsewhere cannot use the cookies of a signed-in user
   * (cross-site WebSocket hijacking). A client that is no browser sends no `Origin` and is not
   * checked: this guards beside `auth`, not instead of it.
   * @default every origin
   */
  readonly allowedOrigins?: readonly string[];
}
