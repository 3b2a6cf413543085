import {
  CreateTableCommand,
  type DynamoDBClient,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { awsErrorName, unavailable } from '../internal/unavailable.ts';
import { Attr, tableDefinition } from './tableLayout.ts';

/**
 * Creates the table {@link DynamoStore} expects ({@link tableDefinition}), waits until it is
 * active and enables TTL on `ttl`, so expired idempotency records are eventually deleted. Safe
 * to call again on an existing table. For production tables prefer infrastructure as code
 * (the CDK construct); this serves tests, the local emulators and scripts.
 *
 * @example
 * const { dynamodb } = createAwsClients({ dynamodbEndpoint: 'http://127.0.0.1:8000' });
 * await createTable(dynamodb, 'baton');
 */
export async function createTable(client: DynamoDBClient, tableName: string): Promise<void> {
  try {
    await client.send(new CreateTableCommand(tableDefinition(tableName)));
  } catch (error) {
    if (awsErrorName(error) !== 'ResourceInUseException') {
      throw unavailable('DynamoDB', 'CreateTable', error);
    }
  }
  try {
    await waitUntilTableExists({ client, maxWaitTime: 300, minDelay: 1 }, { TableName: tableName });
  } catch (error) {
    throw unavailable('DynamoDB', 'DescribeTable', error);
  }
  try {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { Enabled: true, AttributeName: Attr.ttl },
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
