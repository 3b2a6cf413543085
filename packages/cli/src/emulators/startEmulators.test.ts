import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import {
  ConditionalCheckFailedException,
  CreateTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  TransactionCanceledException,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import {
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emulators, startEmulators } from './startEmulators.ts';

const clientConfig = {
  region: 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
};

/** The command lines of every process whose arguments contain `token`. */
function processesWith(token: string): string[] {
  const out = execFileSync('ps', ['-eww', '-o', 'pid=,args='], { encoding: 'utf8' });
  return out.split('\n').filter((line) => line.includes(token));
}

/** How a TCP connection to `host:port` ends: `connected`, or the error's code. */
function tryConnect(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('startEmulators', () => {
  let emulators: Emulators;
  let dynamodb: DynamoDBClient;
  let sqs: SQSClient;

  beforeAll(async () => {
    emulators = await startEmulators();
    dynamodb = new DynamoDBClient({ ...clientConfig, endpoint: emulators.dynamodbEndpoint });
    sqs = new SQSClient({ ...clientConfig, endpoint: emulators.sqsEndpoint });
  }, 300_000);

  afterAll(async () => {
    dynamodb?.destroy();
    sqs?.destroy();
    await emulators?.stop();
  });

  it('serves both emulators on loopback endpoints', () => {
    expect(emulators.dynamodbEndpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(emulators.sqsEndpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(emulators.dynamodbEndpoint).toBe(emulators.dynamodb.endpoint);
    expect(emulators.sqsEndpoint).toBe(emulators.elasticmq.endpoint);
  });

  it("listens on loopback only: the machine's other addresses are refused", async () => {
    const addresses = Object.values(networkInterfaces())
      .flatMap((list) => list ?? [])
      .filter((address) => !address.internal && !address.address.startsWith('fe80:'))
      .map((address) => address.address);
    // Without a network interface beside loopback there would be nothing to try.
    expect(addresses.length).toBeGreaterThan(0);
    for (const endpoint of [emulators.dynamodbEndpoint, emulators.sqsEndpoint]) {
      const port = Number(new URL(endpoint).port);
      expect(await tryConnect('127.0.0.1', port)).toBe('connected');
      for (const address of addresses) {
        expect(await tryConnect(address, port), `${endpoint} on ${address}`).toBe('ECONNREFUSED');
      }
    }
  });

  it('cancels a DynamoDB transaction on a failing condition and gives the reason per item', async () => {
    const TableName = `accounts-${randomUUID()}`;
    await dynamodb.send(
      new CreateTableCommand({
        TableName,
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    await dynamodb.send(
      new PutItemCommand({ TableName, Item: { pk: { S: 'account/alice' }, ver: { N: '3' } } }),
    );

    const failed = await dynamodb
      .send(
        new TransactWriteItemsCommand({
          ClientRequestToken: randomUUID(),
          TransactItems: [
            {
              Put: {
                TableName,
                Item: { pk: { S: 'outbox/alice/1' }, body: { S: 'deposit' } },
              },
            },
            {
              Update: {
                TableName,
                Key: { pk: { S: 'account/alice' } },
                UpdateExpression: 'SET ver = :next',
                ConditionExpression: 'ver = :loaded',
                ExpressionAttributeValues: { ':loaded': { N: '2' }, ':next': { N: '3' } },
                ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
              },
            },
          ],
        }),
      )
      .catch((error: unknown) => error);

    expect(failed).toBeInstanceOf(TransactionCanceledException);
    const reasons = (failed as TransactionCanceledException).CancellationReasons;
    expect(reasons?.map((reason) => reason.Code)).toEqual(['None', 'ConditionalCheckFailed']);
    expect(reasons?.[1]?.Item).toEqual({ pk: { S: 'account/alice' }, ver: { N: '3' } });
    const outbox = await dynamodb.send(
      new GetItemCommand({ TableName, Key: { pk: { S: 'outbox/alice/1' } }, ConsistentRead: true }),
    );
    expect(outbox.Item).toBeUndefined();

    const single = await dynamodb
      .send(
        new PutItemCommand({
          TableName,
          Item: { pk: { S: 'account/alice' }, ver: { N: '9' } },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      )
      .catch((error: unknown) => error);
    expect(single).toBeInstanceOf(ConditionalCheckFailedException);
  });

  it('keeps SQS FIFO order with sequence numbers and receive counts, and redrives to a DLQ', async () => {
    const name = `inbox-${randomUUID().slice(0, 8)}`;
    const dlq = await sqs.send(
      new CreateQueueCommand({ QueueName: `${name}-dlq.fifo`, Attributes: { FifoQueue: 'true' } }),
    );
    const dlqArn = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }),
    );
    expect(dlqArn.Attributes?.QueueArn).toMatch(/^arn:aws:sqs:us-east-1:000000000000:/);
    const { QueueUrl } = await sqs.send(
      new CreateQueueCommand({
        QueueName: `${name}.fifo`,
        Attributes: {
          FifoQueue: 'true',
          VisibilityTimeout: '30',
          RedrivePolicy: JSON.stringify({
            deadLetterTargetArn: dlqArn.Attributes?.QueueArn,
            maxReceiveCount: 2,
          }),
        },
      }),
    );
    expect(QueueUrl).toMatch(new RegExp(`^${emulators.sqsEndpoint}/`));

    for (const [i, id] of ['m1', 'm2', 'm3', 'm2'].entries()) {
      await sqs.send(
        new SendMessageCommand({
          QueueUrl,
          MessageBody: `${id}#${i}`,
          MessageGroupId: 'account/alice',
          MessageDeduplicationId: id,
        }),
      );
    }

    const receive = async (url = QueueUrl): Promise<Message[]> =>
      (
        await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: url,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 1,
            MessageSystemAttributeNames: ['SequenceNumber', 'ApproximateReceiveCount'],
          }),
        )
      ).Messages ?? [];

    const first = await receive();
    // The duplicate of m2 was dropped by its deduplication id.
    expect(first.map((m) => m.Body)).toEqual(['m1#0', 'm2#1', 'm3#2']);
    // Present and increasing. ElasticMQ counts from 0 per queue, real SQS uses 20-digit numbers:
    // compare them as integers, never as strings, and never treat 0 as "none".
    const sequence = first.map((m) => BigInt(m.Attributes?.SequenceNumber ?? '-1'));
    expect(sequence.every((n) => n >= 0n)).toBe(true);
    expect(sequence[0]! < sequence[1]! && sequence[1]! < sequence[2]!).toBe(true);
    expect(first.map((m) => m.Attributes?.ApproximateReceiveCount)).toEqual(['1', '1', '1']);

    // Hand m1 back at once: it and the rest of its group come again, counted twice.
    await sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl,
        ReceiptHandle: first[0]!.ReceiptHandle,
        VisibilityTimeout: 0,
      }),
    );
    for (const message of first.slice(1)) {
      await sqs.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl,
          ReceiptHandle: message.ReceiptHandle,
          VisibilityTimeout: 0,
        }),
      );
    }
    const second = await receive();
    expect(second.map((m) => m.Body)).toEqual(['m1#0', 'm2#1', 'm3#2']);
    expect(second.map((m) => m.Attributes?.SequenceNumber)).toEqual(
      first.map((m) => m.Attributes?.SequenceNumber),
    );
    expect(second.map((m) => m.Attributes?.ApproximateReceiveCount)).toEqual(['2', '2', '2']);

    // After maxReceiveCount receives, the next receive moves the messages to the DLQ.
    for (const message of second) {
      await sqs.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl,
          ReceiptHandle: message.ReceiptHandle,
          VisibilityTimeout: 0,
        }),
      );
    }
    expect(await receive()).toEqual([]);
    const dead = await receive(dlq.QueueUrl);
    expect(dead.map((m) => m.Body)).toEqual(['m1#0', 'm2#1', 'm3#2']);
  });

  it('stops both emulators, leaving no JVM and no watchdog behind', async () => {
    const token = `-Dbaton.test=${randomUUID()}`;
    const pair = await startEmulators({ javaOptions: [token] });
    const pids = [pair.dynamodb.pid, pair.elasticmq.pid];
    expect(pids.every(isAlive)).toBe(true);
    // Each emulator is a JVM plus its parent-death watchdog.
    expect(processesWith(token).length).toBeGreaterThanOrEqual(4);

    await pair.stop();

    expect(pids.filter(isAlive)).toEqual([]);
    expect(processesWith(token)).toEqual([]);
    await pair.stop(); // idempotent
  }, 120_000);
});
