/**
 * What the `baton dev` supervisor and the app process it runs tell each other: the child's
 * settings (in an environment variable) and the messages on their IPC channel.
 */

/** The environment variable that carries the {@link ChildConfig} as JSON. */
export const CHILD_CONFIG_ENV = 'BATON_DEV_CHILD';

/** What the app process runs on. */
export interface ChildConfig {
  readonly backend: 'embedded' | 'local-aws';
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
  };
}

/** Child → supervisor. */
export type ChildMessage =
  | { readonly type: 'ready'; readonly httpPort: number; readonly wsPort: number }
  | { readonly type: 'failed'; readonly message: string };

/** Supervisor → child. */
export type SupervisorMessage = { readonly type: 'stop' };
