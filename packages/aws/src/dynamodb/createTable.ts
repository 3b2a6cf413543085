import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createTableWithTtl } from './createTableWithTtl.ts';
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
  await createTableWithTtl(
    client,
    { ...tableDefinition(tableName), TableName: tableName },
    Attr.ttl,
  );
}
