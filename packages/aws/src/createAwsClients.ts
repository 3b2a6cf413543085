import { DynamoDBClient, SQSClient } from './sdk.ts';

/** Options of {@link createAwsClients}. */
export interface AwsClientsOptions {
  /** @default `AWS_REGION`, else the SDK's default chain; `us-east-1` with a local endpoint */
  readonly region?: string;
  /** DynamoDB endpoint override, e.g. DynamoDB Local. @default env `BATON_DYNAMODB_ENDPOINT` */
  readonly dynamodbEndpoint?: string;
  /** SQS endpoint override, e.g. ElasticMQ. @default env `BATON_SQS_ENDPOINT` */
  readonly sqsEndpoint?: string;
}

/** The SDK clients a worker, sweeper, relay or ingress function uses. */
export interface AwsClients {
  readonly dynamodb: DynamoDBClient;
  readonly sqs: SQSClient;
}

/** One set of clients per configuration, for the life of the process (a Lambda container). */
const cache = new Map<string, AwsClients>();

/**
 * AWS SDK v3 clients for DynamoDB and SQS, created once per process and configuration, so a
 * Lambda container reuses their connections across invocations. Endpoints come from the options
 * or from `BATON_DYNAMODB_ENDPOINT` / `BATON_SQS_ENDPOINT` (the local emulators). With a
 * loopback endpoint and no AWS credentials in the environment, placeholder credentials are
 * used: the emulators accept any. (The reactive layer's DynamoDB Streams client is
 * `createStreamClients` in `@baton/aws/websocket`, so a worker's bundle does not carry it.)
 *
 * The clients set the SDK's `cacheMiddleware`: a client resolves each command type's middleware
 * stack once, not on every call, which saves CPU on every call (0.04 ms a call in a full `pnpm
 * bench`, row 3c; about 0.2 ms in runs of that row alone, whose process has run less). The SDK
 * then ignores middleware added to a command, or to a client after its first call of that
 * command type; tracing that instruments a client as it is made (Powertools'
 * `captureAWSv3Client`) is unaffected. Code that adds middleware later makes its own clients:
 * every Baton class takes a `client`.
 *
 * @example
 * // In a Lambda handler module: created on cold start, reused after.
 * const { dynamodb, sqs } = createAwsClients();
 * const store = new DynamoStore({ client: dynamodb, tableName: process.env.TABLE_NAME! });
 *
 * @example
 * // Against DynamoDB Local and ElasticMQ:
 * const clients = createAwsClients({
 *   dynamodbEndpoint: 'http://127.0.0.1:8000',
 *   sqsEndpoint: 'http://127.0.0.1:9324',
 * });
 */
export function createAwsClients(options: AwsClientsOptions = {}): AwsClients {
  const settings = clientSettings(options);
  const cached = cache.get(settings.key);
  if (cached) return cached;
  const clients: AwsClients = {
    dynamodb: new DynamoDBClient(settings.config(settings.dynamodbEndpoint)),
    sqs: new SQSClient(settings.config(settings.sqsEndpoint)),
  };
  cache.set(settings.key, clients);
  return clients;
}

/**
 * The endpoints, region and credentials of one configuration, and a key naming it: what every
 * client factory of the package shares.
 */
export function clientSettings(options: AwsClientsOptions) {
  const dynamodbEndpoint = options.dynamodbEndpoint ?? env('BATON_DYNAMODB_ENDPOINT');
  const sqsEndpoint = options.sqsEndpoint ?? env('BATON_SQS_ENDPOINT');
  const local = (dynamodbEndpoint ?? sqsEndpoint) !== undefined;
  const region = options.region ?? env('AWS_REGION') ?? (local ? 'us-east-1' : undefined);
  const config = (endpoint: string | undefined) => ({
    // Each command type's middleware resolved once, not at every call (see above).
    cacheMiddleware: true,
    ...(region ? { region } : {}),
    ...(endpoint ? { endpoint } : {}),
    ...(endpoint && isLoopback(endpoint) && !env('AWS_ACCESS_KEY_ID')
      ? { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
  });
  const key = JSON.stringify([region, dynamodbEndpoint, sqsEndpoint]);
  return { key, dynamodbEndpoint, sqsEndpoint, config };
}

function env(name: string): string | undefined {
  const value = process.env[name];
  return value === undefined || value === '' ? undefined : value;
}

function isLoopback(endpoint: string): boolean {
  try {
    const host = new URL(endpoint).hostname;
    return host === 'localhost' || host === '[::1]' || host.startsWith('127.');
  } catch {
    return false;
  }
}
