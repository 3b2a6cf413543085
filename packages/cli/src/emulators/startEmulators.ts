import type { EmulatorOptions, RunningEmulator } from './EmulatorOptions.ts';
import { type DynamoDbLocalOptions, startDynamoDbLocal } from './startDynamoDbLocal.ts';
import { type ElasticMqOptions, startElasticMq } from './startElasticMq.ts';

export interface StartEmulatorsOptions extends EmulatorOptions {
  /** Options for DynamoDB Local only (port, version, JVM flags); the shared ones apply too. */
  readonly dynamodb?: Omit<DynamoDbLocalOptions, keyof EmulatorOptions> &
    Pick<EmulatorOptions, 'javaOptions'>;
  /** Options for ElasticMQ only (port, version, JVM flags); the shared ones apply too. */
  readonly elasticmq?: Omit<ElasticMqOptions, keyof EmulatorOptions> &
    Pick<EmulatorOptions, 'javaOptions'>;
}

/**
 * DynamoDB Local and ElasticMQ, started together.
 *
 * @example
 * const { dynamodbEndpoint, sqsEndpoint, stop } = await startEmulators();
 */
export interface Emulators {
  /** DynamoDB Local, e.g. `http://127.0.0.1:41234`. */
  readonly dynamodbEndpoint: string;
  /** ElasticMQ (SQS), e.g. `http://127.0.0.1:41235`. */
  readonly sqsEndpoint: string;
  readonly dynamodb: RunningEmulator;
  readonly elasticmq: RunningEmulator;
  /** Stops both; resolves once no emulator process is left. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts DynamoDB Local and ElasticMQ on free loopback ports, in parallel, and resolves once both
 * answer. Needs Java 17+; the first run also needs Maven (and Maven Central) to fill the cache.
 * The processes are killed when this process exits or is interrupted, and a watchdog kills them
 * if it dies by SIGKILL; call `stop()` to end them sooner.
 *
 * @example
 * import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
 * import { SQSClient } from '@aws-sdk/client-sqs';
 *
 * const emulators = await startEmulators({ log: console.log });
 * const dynamodb = new DynamoDBClient({ endpoint: emulators.dynamodbEndpoint });
 * const sqs = new SQSClient({ endpoint: emulators.sqsEndpoint });
 * // …
 * await emulators.stop();
 */
export async function startEmulators(options: StartEmulatorsOptions = {}): Promise<Emulators> {
  const { dynamodb: dynamodbOptions, elasticmq: elasticmqOptions, ...shared } = options;
  const [dynamodb, elasticmq] = await Promise.allSettled([
    startDynamoDbLocal({
      ...shared,
      ...dynamodbOptions,
      javaOptions: [...(shared.javaOptions ?? []), ...(dynamodbOptions?.javaOptions ?? [])],
    }),
    startElasticMq({
      ...shared,
      ...elasticmqOptions,
      javaOptions: [...(shared.javaOptions ?? []), ...(elasticmqOptions?.javaOptions ?? [])],
    }),
  ]);
  if (dynamodb.status === 'rejected' || elasticmq.status === 'rejected') {
    await Promise.all(
      [dynamodb, elasticmq].map((r) => (r.status === 'fulfilled' ? r.value.stop() : undefined)),
    );
    throw dynamodb.status === 'rejected'
      ? dynamodb.reason
      : (elasticmq as PromiseRejectedResult).reason;
  }
  return {
    dynamodbEndpoint: dynamodb.value.endpoint,
    sqsEndpoint: elasticmq.value.endpoint,
    dynamodb: dynamodb.value,
    elasticmq: elasticmq.value,
    stop: async () => {
      await Promise.all([dynamodb.value.stop(), elasticmq.value.stop()]);
    },
  };
}
