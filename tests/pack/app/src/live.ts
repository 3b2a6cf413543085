/** The live-query Lambdas' entries, as the aws README's WebSocket section writes them. */
import { createAwsClients, DynamoStore, SqsQueue } from '@baton/aws';
import { connectionSweeper, streamHandler, websocketHandler } from '@baton/aws/websocket';
import { Account, total } from './bank.js';

const { dynamodb, sqs } = createAwsClients();
const reactive = {
  actors: [Account],
  queries: [total],
  store: new DynamoStore({ client: dynamodb, tableName: process.env.TABLE_NAME ?? 'baton' }),
  dynamodb,
  connectionsTable: process.env.CONNECTIONS_TABLE ?? 'baton-connections',
};

export const websocket = websocketHandler({
  ...reactive,
  queue: new SqsQueue({
    client: sqs,
    queueUrl: process.env.INBOX_URL ?? 'http://127.0.0.1:9324/000000000000/inbox.fifo',
  }),
  auth: ({ token }) => {
    if (token !== 'let-me-in') throw new Error('unknown token');
    return { user: 'alice' };
  },
});
export const stream = streamHandler(reactive);
export const sweeper = connectionSweeper(reactive);
