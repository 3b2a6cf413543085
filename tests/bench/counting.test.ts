/**
 * The cost bench's counting middleware against DynamoDB Local, which bills a single write as
 * DynamoDB documents it (the larger of the item before and after, per KB): the write units the
 * middleware counts for an item written again and again are the ones DynamoDB reports.
 */
import { randomUUID } from 'node:crypto';
import {
  DeleteTableCommand,
  DynamoDBClient,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { createTable } from '@baton/aws';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { countDynamoDb, newCounter } from '../../bench/aws/counting.ts';

const local = {
  endpoint: inject('dynamodbEndpoint'),
  region: 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
};
const admin = new DynamoDBClient(local);
const tableName = `baton-counting-${randomUUID().slice(0, 8)}`;

beforeAll(() => createTable(admin, tableName));
afterAll(() => admin.send(new DeleteTableCommand({ TableName: tableName })));

describe('the cost bench counting middleware', () => {
  it('counts the write units DynamoDB bills an item that grows, shrinks and is replaced', async () => {
    const client = new DynamoDBClient(local);
    const counter = newCounter();
    countDynamoDb(client, counter);
    let reported = 0;
    const send = async (command: PutItemCommand | UpdateItemCommand) => {
      const { ConsumedCapacity } =
        command instanceof PutItemCommand ? await client.send(command) : await client.send(command);
      reported += ConsumedCapacity?.CapacityUnits ?? 0;
    };
    const Key = { pk: { S: 'I#@counter/c' }, sk: { S: 'P#1' } };
    const outcome = { M: { j: { S: 'x'.repeat(290) }, e: { N: '1795905122295' } } };
    // A page of outcomes, written again by each commit: past 1 KB, each write bills more.
    for (let i = 0; i < 12; i++) {
      await send(
        new UpdateItemCommand({
          TableName: tableName,
          Key,
          UpdateExpression: 'SET #pm = :pm, #o = :o',
          ExpressionAttributeNames: { '#pm': 'pm', '#o': `o:k${i}` },
          ExpressionAttributeValues: { ':pm': { N: String(1_000 + i) }, ':o': outcome },
          ReturnConsumedCapacity: 'TOTAL',
        }),
      );
    }
    // Attributes removed: billed by the larger item, before.
    await send(
      new UpdateItemCommand({
        TableName: tableName,
        Key,
        UpdateExpression: 'SET #pm = :pm REMOVE #a, #b',
        ExpressionAttributeNames: { '#pm': 'pm', '#a': 'o:k0', '#b': 'o:k1' },
        ExpressionAttributeValues: { ':pm': { N: '2000' } },
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
    // Replaced whole by a small item: billed by the large one it replaces.
    await send(
      new PutItemCommand({
        TableName: tableName,
        Item: { ...Key, pm: { N: '1' } },
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
    expect(reported).toBeGreaterThan(14 * 2);
    expect(counter.wcu).toBe(reported);
    expect(counter.itemWrites).toBe(14);
  });
});
