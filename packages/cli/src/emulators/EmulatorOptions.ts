/**
 * Options every emulator launcher takes.
 *
 * @example
 * await startEmulators({ cacheDir: '/var/cache/baton', javaOptions: ['-Xmx512m'], log: console.log });
 */
export interface EmulatorOptions {
  /**
   * Where resolved jars live.
   * @default `$BATON_EMULATOR_CACHE`, else `<workspace root>/node_modules/.cache/baton-emulators`
   */
  readonly cacheDir?: string;
  /**
   * How long to wait for the emulator to answer HTTP, in milliseconds.
   * @default 60_000
   */
  readonly startTimeoutMs?: number;
  /**
   * Extra JVM flags, e.g. `['-Xmx512m']`.
   * @default []
   */
  readonly javaOptions?: readonly string[];
  /**
   * The environment for `java` and `mvn` (`JAVA_HOME` and `PATH` are used to find them).
   * @default process.env
   */
  readonly env?: NodeJS.ProcessEnv;
  /**
   * Progress messages: Maven resolution on a cold cache, ports, start times.
   * @default silent
   */
  readonly log?: (message: string) => void;
}

/**
 * A started emulator.
 *
 * @example
 * const sqs = await startElasticMq();
 * new SQSClient({ endpoint: sqs.endpoint });
 * await sqs.stop();
 */
export interface RunningEmulator {
  /** `http://127.0.0.1:<port>`, for an AWS SDK client's `endpoint`. */
  readonly endpoint: string;
  readonly port: number;
  /** The JVM's process id. */
  readonly pid: number;
  /** SIGTERM, then SIGKILL after 5 s; resolves once the JVM and its watchdog are gone. Idempotent. */
  stop(): Promise<void>;
}

/**
 * The versions resolved from Maven Central.
 *
 * @example
 * await startDynamoDbLocal({ version: EMULATOR_VERSIONS.dynamodbLocal });
 */
export const EMULATOR_VERSIONS = {
  /** `com.amazonaws:DynamoDBLocal` */
  dynamodbLocal: '2.6.1',
  /** `com.almworks.sqlite4java:libsqlite4java-*`, DynamoDB Local's native SQLite binding. */
  sqlite4java: '1.0.392',
  /** `org.elasticmq:elasticmq-server_2.13` */
  elasticmq: '1.7.1',
} as const;
