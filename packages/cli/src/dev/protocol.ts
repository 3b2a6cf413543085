/**
 * What the `baton dev` supervisor and the app process it runs tell each other: the child's
 * settings (in an environment variable) and the messages on their IPC channel.
 */
import type { LogLevel } from '@baton/core';

/** The environment variable that carries the {@link ChildConfig} as JSON. */
export const CHILD_CONFIG_ENV = 'BATON_DEV_CHILD';

/**
 * The header the supervisor adds to every request it forwards to the app process, holding
 * {@link ChildConfig.forwardSecret}: the app process answers nothing else, so a page that finds
 * its loopback ports cannot go round the supervisor's checks.
 */
export const FORWARD_HEADER = 'x-baton-dev-forwarded';

/** What the app process runs on. */
export interface ChildConfig {
  readonly backend: 'embedded' | 'local-aws';
  /** A random secret of this run that forwarded requests carry in {@link FORWARD_HEADER}. */
  readonly forwardSecret: string;
  /** This run's inspector token: the inspector's live query takes it as its `token` argument. */
  readonly inspectorToken: string;
  /** What the app's `ctx.log` and the engine print (`--log-level`). @default 'info' */
  readonly logLevel?: LogLevel;
  /** The embedded backend's journal directory; absent: in memory. */
  readonly dataDir?: string;
  /** DynamoDB Local and ElasticMQ, for `local-aws` (the supervisor starts them). */
  readonly aws?: {
    readonly dynamodbEndpoint: string;
    readonly sqsEndpoint: string;
    /** The app's table. */
    readonly tableName: string;
    /** The app's inbox (a FIFO queue). */
    readonly queueUrl: string;
    /** The inbox's dead-letter queue (for `baton status --local`). */
    readonly deadLetterQueueUrl?: string;
  };
}

/** Child → supervisor. */
export type ChildMessage =
  | { readonly type: 'ready'; readonly httpPort: number; readonly wsPort: number }
  | { readonly type: 'failed'; readonly message: string };

/** Supervisor → child. */
export type SupervisorMessage = { readonly type: 'stop' };
