/** The worker Lambda's entry, as the README's "In Lambda" section writes it. */
import { createAwsClients, DynamoStore, SqsQueue } from '@baton/aws';
import { workerHandler } from '@baton/aws/lambda';
import { Account } from './bank.js';

const { dynamodb, sqs } = createAwsClients();
const store = new DynamoStore({ client: dynamodb, tableName: process.env.TABLE_NAME ?? 'baton' });
const queue = new SqsQueue({
  client: sqs,
  queueUrl: process.env.INBOX_URL ?? 'http://127.0.0.1:9324/000000000000/inbox.fifo',
});

export const handler = workerHandler({ actors: [Account], store, queue });
