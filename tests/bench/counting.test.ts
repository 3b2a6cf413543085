/**
 * The cost bench's counting middleware against DynamoDB Local, which bills a single write as
 * DynamoDB documents it (the larger of the item before and after, per KB): the write units the
 * middleware counts for an item written again and again are the ones DynamoDB reports.
 */
import { randomUUID } from 'node:crypto';
import {
  DeleteTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { createTable } from '@baton/aws';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  countDynamoDb,
  formatCallTimes,
  formatGaps,
  newCounter,
  resetCounter,
} from '../../bench/aws/counting.ts';

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

  it('times each call, and the time between one call and the next by the pair of commands', async () => {
    const client = new DynamoDBClient(local);
    const counter = newCounter();
    countDynamoDb(client, counter);
    const Key = { pk: { S: 'A#counter/gaps' }, sk: { S: 'R' } };
    const get = () => client.send(new GetItemCommand({ TableName: tableName, Key }));
    const put = () => client.send(new PutItemCommand({ TableName: tableName, Item: Key }));
    await put();
    await get();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await get();
    // Overlapping calls: no gap between them (the next one starts before the last one ends).
    await Promise.all([get(), get()]);

    expect(counter.durations.PutItem).toHaveLength(1);
    expect(counter.durations.GetItem).toHaveLength(4);
    expect(Object.keys(counter.gaps).sort()).toEqual(['GetItem→GetItem', 'PutItem→GetItem']);
    // After the last sequential get: the pause, then the first of the overlapping two.
    const between = counter.gaps['GetItem→GetItem']!;
    expect(between).toHaveLength(2);
    expect(Math.max(...between)).toBeGreaterThanOrEqual(19);
    expect(formatGaps(counter, 2)).toMatch(/^GetItem→GetItem \d+\.\d\d ms$/);
    expect(formatGaps(counter, 3)).toBe('');
    expect(formatCallTimes(counter)).toMatch(
      /^GetItem \d+\.\d\d \(mean \d+\.\d\d\) ms, PutItem \d+\.\d\d \(mean \d+\.\d\d\) ms$/,
    );

    resetCounter(counter);
    await get();
    expect(counter.gaps).toEqual({});
    expect(counter.durations).toEqual({ GetItem: [expect.any(Number)] });
  });
});
