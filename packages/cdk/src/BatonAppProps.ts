import type { Duration, RemovalPolicy } from 'aws-cdk-lib';

/**
 * Who may call the HTTP ingress (`POST /send`, `POST /ask`, `GET /outcome/<id>`), served on a
 * Lambda function URL: `'iam'` requires SigV4-signed requests (grant callers with
 * `grantIngress`), `'none'` leaves it open (put your own auth in front of it).
 */
export type IngressAuth = 'iam' | 'none';

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
   * the runtime). A path relative to the working directory, or absolute.
   */
  readonly entry: string;
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
   * message that keeps failing itself (DEAD_LETTERED) before this; the queue's limit catches a
   * worker that dies on it.
   * @default 10
   */
  readonly maxReceiveCount?: number;
  /**
   * The worker's timeout; the inbox's visibility timeout is six times it, as Lambda advises.
   * @default Duration.seconds(30)
   */
  readonly workerTimeout?: Duration;
  /** @default 'iam' */
  readonly ingressAuth?: IngressAuth;
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
}
