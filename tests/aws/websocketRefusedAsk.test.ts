/**
 * An ask the caller may not make, on the API Gateway WebSocket handler: refused before it is
 * recorded as pending, so that it costs no registry write, no outcome read and nothing enqueued.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import bank from '../../examples/bank/src/app.ts';
import { TestSocket } from '../../packages/server/src/ws/fixtures/TestSocket.ts';
import { tokens } from '../authorization/attacks.ts';
import { startWebSocketStack, type WebSocketStack } from './fixtures/webSocketStack.ts';

/** The commands the WebSocket handler sends, as `<command> <partition key, if any>`. */
const commands: string[] = [];

function recorded<C extends DynamoDBClient | SQSClient>(client: C): C {
  (client as DynamoDBClient).middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { Key?: { pk?: { S?: string } }; Item?: { pk?: { S?: string } } };
      const pk = input.Key?.pk?.S ?? input.Item?.pk?.S;
      commands.push(`${context.commandName}${pk === undefined ? '' : ` ${pk}`}`);
      return next(args);
    },
    { step: 'initialize', name: 'recordCommands' },
  );
  return client;
}

describe('an ask its caller may not make, on the API Gateway WebSocket handler', () => {
  let stack: WebSocketStack;

  beforeAll(async () => {
    stack = await startWebSocketStack(undefined, {
      app: bank,
      worker: false,
      clients: (handler) => {
        const dynamodb = new DynamoDBClient({ endpoint: inject('dynamodbEndpoint') });
        const sqs = new SQSClient({ endpoint: inject('sqsEndpoint') });
        if (handler !== 'websocket') return { dynamodb, sqs };
        return { dynamodb: recorded(dynamodb), sqs: recorded(sqs) };
      },
    });
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('is refused before it is recorded as pending: no registry write, no outcome read, nothing sent', async () => {
    const mallory = await TestSocket.open(stack.gateway.url, {
      protocols: ['baton.v1', `token.${tokens.mallory}`],
    });
    const ask = (requestId: string, name: string, payload: object) => ({
      v: 1 as const,
      type: 'ask' as const,
      requestId,
      to: 'account/alice',
      name,
      payload,
      idempotencyKey: requestId,
    });
    commands.length = 0;
    // Internal, and one whose `authorize` refuses another user.
    mallory.send(ask('internal', 'credit', { amount: 1, from: 'x' }));
    mallory.send(ask('not-hers', 'withdraw', { amount: 1 }));
    for (const requestId of ['internal', 'not-hers']) {
      const refused = await mallory.next('error', (f) => f.requestId === requestId, 20_000);
      expect(refused.error.code).toBe('FORBIDDEN');
    }
    const touched = commands.filter(
      (command) => !/^(GetItemCommand|UpdateItemCommand) C#/.test(command),
    );
    expect(touched).toEqual([]);
    // The recording saw the handler's work: its look-up of the connection, frame by frame.
    expect(commands.filter((command) => command.startsWith('GetItemCommand C#'))).toHaveLength(2);
    mallory.close();
  });
});
