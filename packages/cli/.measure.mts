import { execFileSync } from 'node:child_process';
import { CreateTableCommand, DynamoDBClient, TransactWriteItemsCommand } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, DeleteMessageBatchCommand, ReceiveMessageCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { startEmulators } from '/work/main/packages/cli/src/index.ts';

const rss = (pid: number) => Math.round(Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)]).toString().trim()) / 1024);
const t0 = Date.now();
const times: Record<string, number> = {};
const e = await startEmulators({ log: (m) => { const x = /^(.+?) answers.*\((?:pid \d+), (\d+) ms\)/.exec(m); if (x) times[x[1]!] = Number(x[2]); } });
const total = Date.now() - t0;
const idle = { ddb: rss(e.dynamodb.pid), emq: rss(e.elasticmq.pid) };
const cfg = { region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
const ddb = new DynamoDBClient({ ...cfg, endpoint: e.dynamodbEndpoint });
const sqs = new SQSClient({ ...cfg, endpoint: e.sqsEndpoint });
await ddb.send(new CreateTableCommand({ TableName: 'measure', KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }], AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }], BillingMode: 'PAY_PER_REQUEST' }));
const w0 = Date.now();
for (let i = 0; i < 500; i++) {
  await ddb.send(new TransactWriteItemsCommand({ TransactItems: Array.from({ length: 10 }, (_, j) => ({ Put: { TableName: 'measure', Item: { pk: { S: `k${i}-${j}` }, v: { S: 'x'.repeat(200) } } } })) }));
}
const ddbMs = Date.now() - w0;
const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: 'q.fifo', Attributes: { FifoQueue: 'true' } }));
const s0 = Date.now();
for (let i = 0; i < 100; i++) {
  await sqs.send(new SendMessageBatchCommand({ QueueUrl, Entries: Array.from({ length: 10 }, (_, j) => ({ Id: `${j}`, MessageBody: 'y'.repeat(200), MessageGroupId: `g${j}`, MessageDeduplicationId: `${i}-${j}` })) }));
}
let got = 0;
while (got < 1000) {
  const r = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
  const ms = r.Messages ?? []; got += ms.length;
  if (ms.length) await sqs.send(new DeleteMessageBatchCommand({ QueueUrl, Entries: ms.map((m, k) => ({ Id: `${k}`, ReceiptHandle: m.ReceiptHandle })) }));
}
const sqsMs = Date.now() - s0;
const loaded = { ddb: rss(e.dynamodb.pid), emq: rss(e.elasticmq.pid) };
ddb.destroy(); sqs.destroy();
const st = Date.now(); await e.stop(); const stopMs = Date.now() - st;
console.log(JSON.stringify({ total, times, idleRssMiB: idle, afterWorkloadRssMiB: loaded, ddb500TransactWrites10ItemsMs: ddbMs, sqs1000SendReceiveDeleteMs: sqsMs, stopMs }));
