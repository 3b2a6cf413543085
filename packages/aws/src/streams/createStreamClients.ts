import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { type AwsClientsOptions, clientSettings, createAwsClients } from '../createAwsClients.ts';

/** The clients that read a table's change stream. */
export interface StreamClients {
  readonly dynamodb: DynamoDBClient;
  /** DynamoDB Streams, on the DynamoDB endpoint (DynamoDB Local serves both). */
  readonly streams: DynamoDBStreamsClient;
}

const cache = new Map<string, DynamoDBStreamsClient>();

/**
 * The DynamoDB and DynamoDB Streams clients of one configuration (the options and environment
 * of {@link createAwsClients}), created once per process: what a {@link DynamoStreamFeed} and
 * the local stream event source read with.
 *
 * @example
 * const feed = new DynamoStreamFeed({ clients: createStreamClients(), tableName: 'baton' });
 */
export function createStreamClients(options: AwsClientsOptions = {}): StreamClients {
  const settings = clientSettings(options);
  let streams = cache.get(settings.key);
  if (!streams) {
    streams = new DynamoDBStreamsClient(settings.config(settings.dynamodbEndpoint));
    cache.set(settings.key, streams);
  }
  return { dynamodb: createAwsClients(options).dynamodb, streams };
}
