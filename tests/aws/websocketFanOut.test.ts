/**
 * A fan-out on the emulators reads its subscribers' connections 100 to a call: the stream
 * handler runs on a DynamoDB client of its own whose calls are recorded.
 */
import { createAwsClients } from '@baton/aws';
import { Client } from '@baton/core/client';
import { describe, expect, inject, it } from 'vitest';
import { Account } from './fixtures/openAccount.ts';
import { balance, startWebSocketStack, until } from './fixtures/webSocketStack.ts';
import { account, webSocketSuite } from './fixtures/webSocketSuite.ts';

/** The stream handler's DynamoDB calls on the connections table, as `<command> <key>`. */
const calls: string[] = [];
const WATCHERS = 150;

const suite = webSocketSuite(() =>
  startWebSocketStack(undefined, {
    clients: (handler) => {
      const clients = createAwsClients({
        dynamodbEndpoint: inject('dynamodbEndpoint'),
        sqsEndpoint: inject('sqsEndpoint'),
      });
      if (handler === 'stream') {
        clients.dynamodb.middlewareStack.add(
          (next, context) => (args) => {
            const input = args.input as { Key?: { pk?: { S?: string } } };
            calls.push(`${context.commandName} ${input.Key?.pk?.S ?? ''}`.trim());
            return next(args);
          },
          { step: 'initialize', name: 'recordStreamCalls' },
        );
      }
      return clients;
    },
  }),
);

describe('a fan-out through API Gateway', () => {
  it(`reads ${WATCHERS} subscribers' connections in two calls, and every subscriber gets the result`, async () => {
    const key = account('fan');
    const watchers = Array.from({ length: WATCHERS }, () => suite.connect());
    for (const watcher of watchers) watcher.subscribe(balance, { account: key }, () => {});
    const shows = (value: number) => () =>
      watchers.every((w) => w.getQueryState(balance, { account: key }).data === value);
    await until(shows(0), 'every watcher to see the first result', 60_000);
    calls.length = 0;
    // Sent from the server side: no connection of the sender's for the stream handler to read.
    const { store, queue } = suite.stack;
    await new Client({ actors: [Account], store, queue }).send(Account.ref(key), 'deposit', {
      amount: 3,
    });
    await until(shows(3), 'every watcher to see the new balance', 60_000);
    // One read of each subscriber's connection item, a hundred to a call, none one by one.
    expect(calls.filter((call) => call.startsWith('BatchGetItem'))).toHaveLength(2);
    expect(calls.filter((call) => call.startsWith('GetItemCommand C#'))).toEqual([]);
  }, 120_000);
});
