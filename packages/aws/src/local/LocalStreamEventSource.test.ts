/**
 * Lambda's DynamoDB Streams event source, run locally on DynamoDB Local: the handler gets the
 * table's records as Lambda events, and a batch it fails comes back from the first failed record.
 */
import { randomUUID } from 'node:crypto';
import { DeleteTableCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { afterAll, afterEach, describe, expect, inject, it, vi } from 'vitest';
import { createTable } from '../dynamodb/createTable.ts';
import { createStreamClients } from '../streams/createStreamClients.ts';
import { LocalStreamEventSource } from './LocalStreamEventSource.ts';

const { dynamodb, streams } = createStreamClients({ dynamodbEndpoint: inject('dynamodbEndpoint') });
let sources: LocalStreamEventSource[] = [];
const tables: string[] = [];

afterEach(async () => {
  await Promise.all(sources.map((source) => source.stop()));
  sources = [];
});

/** A fresh table holding items `0`…`count - 1`, written in that order. */
async function tableWith(count: number): Promise<string> {
  const tableName = `source-${randomUUID().slice(0, 8)}`;
  tables.push(tableName);
  await createTable(dynamodb, tableName);
  for (let i = 0; i < count; i++) {
    await dynamodb.send(
      new PutItemCommand({
        TableName: tableName,
        Item: { pk: { S: `item#${i}` }, sk: { S: 'x' }, n: { N: String(i) } },
      }),
    );
  }
  return tableName;
}
afterAll(() =>
  Promise.all(tables.map((TableName) => dynamodb.send(new DeleteTableCommand({ TableName })))),
);

const itemOf = (r: DynamoDBRecord) => Number(r.dynamodb?.NewImage?.n?.N);

function source(
  tableName: string,
  handler: (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse | undefined>,
  startingPosition: 'LATEST' | 'TRIM_HORIZON' = 'TRIM_HORIZON',
) {
  const s = new LocalStreamEventSource({
    dynamodb,
    streams,
    tableName,
    handler,
    batchSize: 4,
    pollMs: 50,
    startingPosition,
  });
  sources.push(s);
  return s;
}

describe('LocalStreamEventSource', () => {
  it('hands the handler the records written after start, as Lambda stream events', async () => {
    const tableName = await tableWith(2); // before start: not delivered from LATEST
    const events: DynamoDBStreamEvent[] = [];
    await source(
      tableName,
      async (event) => {
        events.push(event);
        return undefined;
      },
      'LATEST',
    ).start();
    for (const i of [10, 11, 12]) {
      await dynamodb.send(
        new PutItemCommand({
          TableName: tableName,
          Item: { pk: { S: `item#${i}` }, sk: { S: 'x' }, n: { N: String(i) } },
        }),
      );
    }
    const records = () => events.flatMap((e) => e.Records);
    await vi.waitFor(() => expect(records().map(itemOf)).toEqual([10, 11, 12]), {
      timeout: 20_000,
      interval: 50,
    });
    expect(records()[0]).toMatchObject({
      eventName: 'INSERT',
      eventSource: 'aws:dynamodb',
      eventSourceARN: expect.stringContaining(`table/${tableName}/stream/`),
      dynamodb: {
        Keys: { pk: { S: 'item#10' }, sk: { S: 'x' } },
        NewImage: { pk: { S: 'item#10' }, sk: { S: 'x' }, n: { N: '10' } },
        SequenceNumber: expect.any(String),
        StreamViewType: 'NEW_IMAGE',
        ApproximateCreationDateTime: expect.any(Number),
      },
    });
  });

  it('redelivers a batch from its first failed record, skipping nothing', async () => {
    const tableName = await tableWith(10);
    const calls: number[][] = [];
    const done: number[] = [];
    const errors: unknown[] = [];
    const failOnce = new Set([5, 9]);
    const s = new LocalStreamEventSource({
      dynamodb,
      streams,
      tableName,
      batchSize: 4,
      pollMs: 50,
      startingPosition: 'TRIM_HORIZON',
      onError: (error) => errors.push(error),
      handler: async ({ Records }) => {
        const items = Records.map(itemOf);
        calls.push(items);
        // Item 5 fails once (reported); the batch holding 9 throws once.
        if (items.includes(9) && failOnce.delete(9)) throw new Error('handler crashed');
        const failed =
          items.includes(5) && failOnce.delete(5) ? Records.filter((r) => itemOf(r) === 5) : [];
        const ok = failed.length > 0 ? Records.slice(0, items.indexOf(5)) : Records;
        done.push(...ok.map(itemOf));
        return {
          batchItemFailures: failed.map((r) => ({ itemIdentifier: r.dynamodb!.SequenceNumber! })),
        };
      },
    });
    sources.push(s);
    await s.start();
    await vi.waitFor(() => expect(done).toHaveLength(10), { timeout: 20_000, interval: 50 });
    expect(done).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(calls).toEqual([
      [0, 1, 2, 3],
      [4, 5, 6, 7],
      [5, 6, 7],
      [8, 9],
      [8, 9],
    ]);
    expect(errors).toEqual([expect.objectContaining({ message: 'handler crashed' })]);
  });
});
