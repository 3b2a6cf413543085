/**
 * A fixed warm-up of the emulators before the first row that uses them: DynamoDB Local and
 * ElasticMQ run on the JVM, whose first thousands of calls run slower while it compiles them.
 * Without it the first row on the emulators (1a in a full run) measured a colder pair of
 * servers than the rows after it, and a row's figures hung on which rows ran before it.
 */
import { randomUUID } from 'node:crypto';
import {
  GetItemCommand,
  PutItemCommand,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import {
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
} from '@aws-sdk/client-sqs';
import { timeNs } from '../measure.ts';
import type { Target } from './target.ts';

/** Runs `rounds` of each call the rows make, then deletes what it made (`release`). */
export async function warmUp(target: Target, rounds: number, log: (line: string) => void) {
  const { dynamodb, sqs } = target.clients();
  const [TableName, { queueUrl: QueueUrl }] = await Promise.all([
    target.table('warmup'),
    target.queue('warmup'),
  ]);
  const ns = await timeNs(async () => {
    for (let i = 0; i < rounds; i++) {
      const pk = { S: `w-${i % 10}` };
      const item = { pk, sk: { S: 'R' }, n: { N: String(i) } };
      await dynamodb.send(new PutItemCommand({ TableName, Item: item }));
      await dynamodb.send(new GetItemCommand({ TableName, Key: { pk, sk: item.sk } }));
      const put = (sk: string) => ({ Put: { TableName, Item: { ...item, sk: { S: sk } } } });
      await dynamodb.send(new TransactWriteItemsCommand({ TransactItems: [put('A'), put('B')] }));
      const Entries = Array.from({ length: 10 }, (_, j) => ({
        Id: String(j),
        MessageBody: `{"i":${i},"j":${j}}`,
        MessageGroupId: `g-${j}`,
        MessageDeduplicationId: randomUUID(),
      }));
      await sqs.send(new SendMessageBatchCommand({ QueueUrl, Entries }));
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }),
      );
      if (Messages.length > 0) {
        const receipts = Messages.map((m, j) => ({
          Id: String(j),
          ReceiptHandle: m.ReceiptHandle!,
        }));
        await sqs.send(new DeleteMessageBatchCommand({ QueueUrl, Entries: receipts }));
      }
    }
  });
  await target.release();
  dynamodb.destroy();
  sqs.destroy();
  log(`  [emulators] warmed up: ${rounds} rounds of the rows' calls in ${(ns / 1e9).toFixed(1)} s`);
}
