/**
 * jwtAuth as a deployed app's auth hook: the WebSocket function built from the environment runs
 * it on `$connect`, against a connections table on DynamoDB Local.
 */
import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { actor, defineApp } from '@baton/core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import * as z from 'zod';
import { createAwsClients } from '../createAwsClients.ts';
import { restoreEnvironment } from '../fixtures/environment.ts';
import { createConnectionsTable } from '../websocket/connectionsTable.ts';
import { websocketFromEnvironment } from '../websocket/fromEnvironment.ts';
import { ConnectionRegistry } from '../websocket/registry/ConnectionRegistry.ts';
import type { WebSocketEvent } from '../websocket/websocketHandler.ts';
import { testIssuer } from './fixtures/tokens.ts';
import { jwtAuth } from './jwtAuth.ts';

const Counter = actor({
  name: 'counter',
  state: z.object({ count: z.number() }),
  initial: () => ({ count: 0 }),
  handlers: { add: { payload: z.object({}), handle: () => {} } },
});

const keys = testIssuer('https://login.example.test/', 'bank');
const app = defineApp({
  actors: [Counter],
  auth: jwtAuth({ issuer: keys.issuer, audience: 'bank', jwks: keys.jwks }),
});

/** A `$connect` event with the token in the query string, as BatonClient sends it. */
function connect(connectionId: string, token: string): WebSocketEvent {
  return {
    requestContext: {
      routeKey: '$connect',
      eventType: 'CONNECT',
      connectionId,
      domainName: 'abc123.execute-api.eu-west-1.amazonaws.com',
      stage: 'live',
    },
    headers: {},
    queryStringParameters: { token },
    isBase64Encoded: false,
  } as unknown as WebSocketEvent;
}

describe('jwtAuth on a deployed $connect', () => {
  const dynamodbEndpoint = inject('dynamodbEndpoint');
  const sqsEndpoint = inject('sqsEndpoint');
  const { dynamodb } = createAwsClients({ dynamodbEndpoint, sqsEndpoint });
  const connectionsTable = `jwt-connections-${randomUUID().slice(0, 8)}`;
  const registry = new ConnectionRegistry({ client: dynamodb, tableName: connectionsTable });

  beforeAll(async () => {
    await createConnectionsTable(dynamodb, connectionsTable);
    // $connect reads neither the actor table nor the inbox: names that exist nowhere will do.
    process.env.BATON_TABLE = 'jwt-unused-table';
    process.env.BATON_INBOX_URL = `${sqsEndpoint}/000000000000/jwt-unused.fifo`;
    process.env.BATON_CONNECTIONS_TABLE = connectionsTable;
    process.env.BATON_WEBSOCKET_ENDPOINT =
      'https://abc123.execute-api.eu-west-1.amazonaws.com/live';
    process.env.BATON_DYNAMODB_ENDPOINT = dynamodbEndpoint;
    process.env.BATON_SQS_ENDPOINT = sqsEndpoint;
  });

  afterAll(async () => {
    restoreEnvironment();
    await dynamodb.send(new DeleteTableCommand({ TableName: connectionsTable }));
  });

  it('accepts a signed token and registers the connection with { sub, groups }', async () => {
    const handler = websocketFromEnvironment(app);
    const response = await handler(connect('conn-ok=', keys.sign({ groups: ['tellers'] })));
    expect(response.statusCode).toBe(200);
    expect(await registry.connections.get('conn-ok=')).toMatchObject({
      identity: { sub: 'user-alice', groups: ['tellers'] },
    });
  });

  it("registers the connection's identity as valid until the token's exp", async () => {
    const exp = Math.floor(Date.now() / 1000) + 600;
    const handler = websocketFromEnvironment(app);
    expect((await handler(connect('conn-exp=', keys.sign({ exp })))).statusCode).toBe(200);
    expect(await registry.connections.get('conn-exp=')).toMatchObject({ validUntil: exp * 1000 });
  });

  it.each([
    ['an expired token', () => keys.sign({ exp: Math.floor(Date.now() / 1000) - 60 })],
    ['a forged one', () => keys.signWithForeignKey()],
    ['an unsigned one', () => keys.unsigned()],
  ])('refuses %s with 401, registers nothing and tells no reason', async (_what, token) => {
    const id = `conn-${randomUUID().slice(0, 8)}=`;
    const response = await websocketFromEnvironment(app)(connect(id, token()));
    expect(response.statusCode).toBe(401);
    expect(response.body).toMatch(/^unauthorized/);
    expect(response.body).not.toMatch(/expired|signature|alg|issuer|audience/i);
    expect(await registry.connections.get(id)).toBeUndefined();
  });
});
