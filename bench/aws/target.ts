/**
 * Where the AWS benchmarks run: DynamoDB Local + ElasticMQ started for this run (the default),
 * emulators already running (`BENCH_DYNAMODB_ENDPOINT` + `BENCH_SQS_ENDPOINT`), or real AWS
 * (`BENCH_TARGET=aws`: the SDK's own endpoint, region and credentials chain). Every table and
 * queue is named with a run-unique prefix and deleted when its step ends (`release()`), or by
 * `close()`.
 */
import { randomUUID } from 'node:crypto';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { createFifoQueue, createTable, type FifoQueue } from '@baton/aws';
import { createStreamClients, type StreamClients } from '@baton/aws/websocket';
import { type CallCounter, countDynamoDb, countSqs, newCounter } from './counting.ts';

/** A side's own SDK clients, counted. */
export interface Clients {
  readonly dynamodb: DynamoDBClient;
  readonly sqs: SQSClient;
  readonly counter: CallCounter;
}

export interface Target {
  /** `DynamoDB Local + ElasticMQ` or `AWS`. */
  readonly label: string;
  readonly kind: 'emulators' | 'aws';
  /** The emulators' endpoints; undefined on AWS. What a bench part in another process connects to. */
  readonly endpoints: Endpoints | undefined;
  /**
   * Fresh, counted clients: one set per side, so each side's calls are its own. With
   * `capacity`, their writes ask DynamoDB what they cost its indexes (see `countDynamoDb`); with
   * `cacheMiddleware`, they resolve each command type's middleware once, as `createAwsClients`'
   * do (the SDK's default, and every other row's, resolves it at every call).
   */
  clients(options?: { capacity?: boolean; cacheMiddleware?: boolean }): Clients;
  /** Clients for a DynamoDB stream (the change feed). */
  streamClients(): StreamClients;
  /** Creates a table named `<prefix>-<name>`; deleted on close. */
  table(name: string): Promise<string>;
  /** Creates a FIFO queue (and its DLQ) named `<prefix>-<name>`; deleted on close. */
  queue(name: string): Promise<FifoQueue>;
  /**
   * Deletes the tables and queues created since the last release (a step's): the next step
   * meets emulators that hold no earlier row's items or messages.
   */
  release(): Promise<void>;
  /** Deletes what was created and stops emulators this run started. */
  close(): Promise<void>;
}

/** Where the emulators listen. */
export interface Endpoints {
  readonly dynamodb: string;
  readonly sqs: string;
}

/**
 * Uncounted SDK clients for `endpoints` (or AWS's own when undefined): for a bench part in a
 * process of its own.
 */
export function sdkClients(
  endpoints: Endpoints | undefined,
  cacheMiddleware = false,
): {
  dynamodb: DynamoDBClient;
  sqs: SQSClient;
} {
  const config = { ...localConfig(endpoints), cacheMiddleware };
  return {
    dynamodb: new DynamoDBClient({ ...config, endpoint: endpoints?.dynamodb }),
    sqs: new SQSClient({ ...config, endpoint: endpoints?.sqs }),
  };
}

/** Emulators take any credentials: fixed ones, so a developer's own never leave the machine. */
function localConfig(endpoints: Endpoints | undefined) {
  return endpoints
    ? { region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
    : {};
}

/** A table and a FIFO queue of one benchmark, and clients whose calls count on neither side. */
export interface BenchResources {
  readonly tableName: string;
  readonly queueUrl: string;
  /** Enqueues and checks: its calls count on neither side. */
  readonly helper: Clients;
}

/** Creates the table and the queue named `name` on `target`. */
export async function benchResources(target: Target, name: string): Promise<BenchResources> {
  const [tableName, { queueUrl }] = await Promise.all([target.table(name), target.queue(name)]);
  return { tableName, queueUrl, helper: target.clients() };
}

export interface TargetOptions {
  readonly log: (line: string) => void;
  /** Endpoints of running emulators (the smoke test's); else from the environment. */
  readonly endpoints?: { readonly dynamodb: string; readonly sqs: string };
}

/** Opens the target the environment names (see the module comment). */
export async function openTarget(options: TargetOptions): Promise<Target> {
  const prefix = `baton-bench-${Date.now().toString(36)}-${randomUUID().slice(0, 4)}`;
  if (process.env.BENCH_TARGET === 'aws') return target('AWS', 'aws', prefix, undefined);
  const given =
    options.endpoints ??
    (process.env.BENCH_DYNAMODB_ENDPOINT && process.env.BENCH_SQS_ENDPOINT
      ? { dynamodb: process.env.BENCH_DYNAMODB_ENDPOINT, sqs: process.env.BENCH_SQS_ENDPOINT }
      : undefined);
  if (given) return target('DynamoDB Local + ElasticMQ', 'emulators', prefix, given);
  const { startEmulators } = await import('@baton/cli');
  const emulators = await startEmulators({ log: (m) => options.log(`  [emulators] ${m}`) });
  const endpoints = { dynamodb: emulators.dynamodbEndpoint, sqs: emulators.sqsEndpoint };
  return target('DynamoDB Local + ElasticMQ', 'emulators', prefix, endpoints, () =>
    emulators.stop(),
  );
}

function target(
  label: string,
  kind: Target['kind'],
  prefix: string,
  endpoints: Endpoints | undefined,
  stop?: () => Promise<void>,
): Target {
  const admin = sdkClients(endpoints);
  const tables: string[] = [];
  const queues: string[] = [];
  return {
    label,
    kind,
    endpoints,
    clients(options = {}) {
      const counter = newCounter();
      // The counting middleware is added before any call: a client caching its middleware has it.
      const { dynamodb, sqs } = sdkClients(endpoints, options.cacheMiddleware);
      countDynamoDb(dynamodb, counter, options);
      countSqs(sqs, counter);
      return { dynamodb, sqs, counter };
    },
    streamClients() {
      return createStreamClients(
        endpoints ? { dynamodbEndpoint: endpoints.dynamodb, region: 'us-east-1' } : {},
      );
    },
    async table(name) {
      const tableName = `${prefix}-${name}`;
      await createTable(admin.dynamodb, tableName);
      tables.push(tableName);
      return tableName;
    },
    async queue(name) {
      const made = await createFifoQueue(admin.sqs, `${prefix}-${name}`, {
        visibilityTimeoutMs: 30_000,
      });
      queues.push(made.queueUrl, made.deadLetterQueueUrl);
      return made;
    },
    async release() {
      const deletes = [
        ...tables
          .splice(0)
          .map((TableName) => admin.dynamodb.send(new DeleteTableCommand({ TableName }))),
        ...queues.splice(0).map((QueueUrl) => admin.sqs.send(new DeleteQueueCommand({ QueueUrl }))),
      ];
      await Promise.allSettled(deletes);
    },
    async close() {
      await this.release();
      admin.dynamodb.destroy();
      admin.sqs.destroy();
      await stop?.();
    },
  };
}
