import {
  CreateTableCommand,
  type CreateTableCommandInput,
  type DynamoDBClient,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { awsErrorName, unavailable } from '../internal/unavailable.ts';

/**
 * Creates a table from its definition, waits until it is active and enables TTL on
 * `ttlAttribute`. Safe to call again on an existing table (an existing table and TTL already
 * enabled are not errors). Failures become UNAVAILABLE BatonErrors. The store's table and the
 * WebSocket connections table are both made with it.
 *
 * @example
 * await createTableWithTtl(dynamodb, tableDefinition('baton'), 'ttl');
 */
export async function createTableWithTtl(
  client: DynamoDBClient,
  definition: CreateTableCommandInput & { readonly TableName: string },
  ttlAttribute: string,
): Promise<void> {
  const TableName = definition.TableName;
  try {
    await client.send(new CreateTableCommand(definition));
  } catch (error) {
    if (awsErrorName(error) !== 'ResourceInUseException') {
      throw unavailable('DynamoDB', 'CreateTable', error);
    }
  }
  try {
    await waitUntilTableExists({ client, maxWaitTime: 300, minDelay: 1 }, { TableName });
  } catch (error) {
    throw unavailable('DynamoDB', 'DescribeTable', error);
  }
  try {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName,
        TimeToLiveSpecification: { Enabled: true, AttributeName: ttlAttribute },
      }),
    );
  } catch (error) {
    // A second call finds TTL already enabled, which DynamoDB reports as a ValidationException.
    const message = error instanceof Error ? error.message : '';
    if (!(awsErrorName(error) === 'ValidationException' && /already enabled/i.test(message))) {
      throw unavailable('DynamoDB', 'UpdateTimeToLive', error);
    }
  }
}
