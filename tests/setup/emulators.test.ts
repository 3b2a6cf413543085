import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { ListQueuesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, inject, it } from 'vitest';

describe('the emulators global setup', () => {
  it('provides the endpoints of running emulators and local credentials to every test file', async () => {
    const dynamodbEndpoint = inject('dynamodbEndpoint');
    const sqsEndpoint = inject('sqsEndpoint');
    expect(dynamodbEndpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(sqsEndpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(process.env.AWS_REGION).toBe('us-east-1');
    expect(process.env.AWS_ACCESS_KEY_ID).toBe('local');

    // Default credentials and region, from the environment the setup prepared.
    const dynamodb = new DynamoDBClient({ endpoint: dynamodbEndpoint });
    const sqs = new SQSClient({ endpoint: sqsEndpoint });
    try {
      await expect(dynamodb.send(new ListTablesCommand({}))).resolves.toHaveProperty('TableNames');
      await expect(sqs.send(new ListQueuesCommand({}))).resolves.toBeDefined();
    } finally {
      dynamodb.destroy();
      sqs.destroy();
    }
  });
});
