/**
 * The live-query handlers built from the environment: they need the connections table and the
 * WebSocket API's endpoint besides the table and the inbox, and `$connect` runs the app's auth
 * hook against the connections table on DynamoDB Local.
 */
import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { actor, BatonError, type ConnectRequest, defineApp, ErrorCode } from '@baton/core';
import { connectionOwner } from '@baton/server/session';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import * as z from 'zod';
import { createAwsClients } from '../createAwsClients.ts';
import { restoreEnvironment } from '../fixtures/environment.ts';
import { createConnectionsTable } from './connectionsTable.ts';
import {
  connectionSweeperFromEnvironment,
  streamFromEnvironment,
  websocketFromEnvironment,
} from './fromEnvironment.ts';
import { ConnectionRegistry } from './registry/ConnectionRegistry.ts';
import type { WebSocketEvent } from './websocketHandler.ts';

const Counter = actor({
  name: 'counter',
  state: z.object({ count: z.number() }),
  initial: () => ({ count: 0 }),
  handlers: {
    add: {
      public: true,
      payload: z.object({ by: z.number().int() }),
      handle: (ctx, { by }) => {
        ctx.state.count += by;
      },
    },
  },
});

/** A `$connect` event as API Gateway sends it. */
function connectEvent(
  connectionId: string,
  query: Record<string, string> | undefined,
  headers: Record<string, string> = {},
): WebSocketEvent {
  return {
    requestContext: {
      routeKey: '$connect',
      eventType: 'CONNECT',
      connectionId,
      domainName: 'abc123.execute-api.eu-west-1.amazonaws.com',
      stage: 'prod',
      apiId: 'abc123',
      requestId: randomUUID(),
      messageId: randomUUID(),
      extendedRequestId: randomUUID(),
      requestTime: new Date().toISOString(),
      requestTimeEpoch: Date.now(),
      messageDirection: 'IN',
      connectedAt: Date.now(),
    },
    headers,
    queryStringParameters: query,
    isBase64Encoded: false,
  } as unknown as WebSocketEvent;
}

describe('the WebSocket handlers built from the environment', () => {
  const dynamodbEndpoint = inject('dynamodbEndpoint');
  const sqsEndpoint = inject('sqsEndpoint');
  const { dynamodb } = createAwsClients({ dynamodbEndpoint, sqsEndpoint });
  const connectionsTable = `from-env-connections-${randomUUID().slice(0, 8)}`;
  const registry = new ConnectionRegistry({ client: dynamodb, tableName: connectionsTable });

  /** What the auth hook was offered, per call. */
  const offered: ConnectRequest[] = [];
  const app = defineApp({
    actors: [Counter],
    auth: ({ token, headers }) => {
      offered.push({ ...(token === undefined ? {} : { token }), headers });
      if (token !== 'good-token') throw new Error('bad token');
      return { user: 'u1' };
    },
  });

  beforeAll(() => createConnectionsTable(dynamodb, connectionsTable));

  beforeEach(() => {
    offered.length = 0;
    // $connect reads neither the actor table nor the inbox: names that exist nowhere will do.
    process.env.BATON_TABLE = 'from-env-unused-table';
    process.env.BATON_INBOX_URL = `${sqsEndpoint}/000000000000/from-env-unused.fifo`;
    process.env.BATON_CONNECTIONS_TABLE = connectionsTable;
    process.env.BATON_WEBSOCKET_ENDPOINT =
      'https://abc123.execute-api.eu-west-1.amazonaws.com/prod';
    process.env.BATON_DYNAMODB_ENDPOINT = dynamodbEndpoint;
    process.env.BATON_SQS_ENDPOINT = sqsEndpoint;
  });

  afterEach(restoreEnvironment);

  afterAll(async () => {
    restoreEnvironment();
    await dynamodb.send(new DeleteTableCommand({ TableName: connectionsTable }));
  });

  it.each([
    ['websocketFromEnvironment', websocketFromEnvironment],
    ['streamFromEnvironment', streamFromEnvironment],
    ['connectionSweeperFromEnvironment', connectionSweeperFromEnvironment],
  ])(
    '%s throws INVALID_ARGUMENT naming BATON_CONNECTIONS_TABLE and BATON_WEBSOCKET_ENDPOINT when they are not set',
    (_name, build) => {
      delete process.env.BATON_CONNECTIONS_TABLE;
      process.env.BATON_WEBSOCKET_ENDPOINT = '';
      let error: unknown;
      try {
        build(app);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(BatonError);
      expect((error as BatonError).code).toBe(ErrorCode.INVALID_ARGUMENT);
      expect((error as BatonError).message).toMatch(
        /^missing environment: BATON_CONNECTIONS_TABLE, BATON_WEBSOCKET_ENDPOINT;/,
      );
      expect((error as BatonError).details.missing).toEqual([
        'BATON_CONNECTIONS_TABLE',
        'BATON_WEBSOCKET_ENDPOINT',
      ]);
    },
  );

  it('websocketFromEnvironment names every missing variable in one error', () => {
    delete process.env.BATON_INBOX_URL;
    delete process.env.BATON_CONNECTIONS_TABLE;
    expect(() => websocketFromEnvironment(app)).toThrow(
      expect.objectContaining({
        code: ErrorCode.INVALID_ARGUMENT,
        details: { missing: ['BATON_CONNECTIONS_TABLE', 'BATON_INBOX_URL'] },
      }),
    );
  });

  it('websocketFromEnvironment throws naming BATON_INBOX_URL when only it is missing', () => {
    delete process.env.BATON_INBOX_URL;
    expect(() => websocketFromEnvironment(app)).toThrow(
      expect.objectContaining({
        code: ErrorCode.INVALID_ARGUMENT,
        details: { missing: ['BATON_INBOX_URL'] },
      }),
    );
  });

  it("refuses a $connect with 401 when the app's auth refuses the token, and registers nothing", async () => {
    const handler = websocketFromEnvironment(app);
    const response = await handler(
      connectEvent('conn-bad=', { token: 'bad-token' }, { 'X-Client': 'test' }),
    );
    expect(response.statusCode).toBe(401);
    // The reason (the app's error) goes to the log; the client learns only this.
    expect(response.body).toBe('unauthorized');
    expect(offered).toEqual([{ token: 'bad-token', headers: { 'x-client': 'test' } }]);
    expect(await registry.connections.get('conn-bad=')).toBeUndefined();
  });

  it('refuses a $connect without a token with 401', async () => {
    const response = await websocketFromEnvironment(app)(connectEvent('conn-none=', undefined));
    expect(response.statusCode).toBe(401);
    expect(offered).toEqual([{ headers: {} }]);
    expect(await registry.connections.get('conn-none=')).toBeUndefined();
  });

  it("accepts a $connect with 200 when the app's auth accepts the token, and registers the connection with its identity", async () => {
    const handler = websocketFromEnvironment(app);
    const response = await handler(
      connectEvent('conn-good=', { token: 'good-token' }, { 'X-Client': 'test' }),
    );
    expect(response.statusCode).toBe(200);
    expect(offered).toEqual([{ token: 'good-token', headers: { 'x-client': 'test' } }]);
    expect(await registry.connections.get('conn-good=')).toMatchObject({
      connectionId: 'conn-good=',
      identity: { user: 'u1' },
    });
  });

  it('reads the token from the token.<token> subprotocol too', async () => {
    const response = await websocketFromEnvironment(app)(
      connectEvent('conn-proto=', undefined, {
        'Sec-WebSocket-Protocol': 'baton.v1, token.good-token',
      }),
    );
    expect(response.statusCode).toBe(200);
    expect(response.headers).toEqual({ 'Sec-WebSocket-Protocol': 'baton.v1' });
    expect(offered[0]?.token).toBe('good-token');
    expect((await registry.connections.get('conn-proto='))?.identity).toEqual({ user: 'u1' });
  });

  it('refuses with 403 a $connect from a page on an origin BATON_ALLOWED_ORIGINS does not list, before auth', async () => {
    process.env.BATON_ALLOWED_ORIGINS = 'https://app.example.com, http://localhost:5173';
    const handler = websocketFromEnvironment(app);
    const from = (id: string, origin: string) =>
      handler(connectEvent(id, { token: 'good-token' }, { Origin: origin }));
    const refused = await from('conn-evil=', 'https://evil.example');
    expect(refused.statusCode).toBe(403);
    expect(refused.body).toContain('refused a WebSocket from a page on https://evil.example');
    expect(refused.body).toContain('only pages on https://app.example.com, http://localhost:5173');
    expect(offered).toEqual([]);
    expect(await registry.connections.get('conn-evil=')).toBeUndefined();
    expect((await from('conn-app=', 'https://app.example.com')).statusCode).toBe(200);
    expect((await from('conn-local=', 'http://localhost:5173')).statusCode).toBe(200);
    // A client that is no browser sends no Origin: its token decides.
    expect((await handler(connectEvent('conn-cli=', { token: 'good-token' }))).statusCode).toBe(
      200,
    );
  });

  it('lets every origin connect when BATON_ALLOWED_ORIGINS is unset', async () => {
    const response = await websocketFromEnvironment(app)(
      connectEvent('conn-any=', { token: 'good-token' }, { Origin: 'https://elsewhere.example' }),
    );
    expect(response.statusCode).toBe(200);
  });

  it('fails at cold start, naming BATON_ALLOWED_ORIGINS and the entry, when it lists no origin', () => {
    process.env.BATON_ALLOWED_ORIGINS = 'https://app.example.com,app.example.com';
    expect(() => websocketFromEnvironment(app)).toThrow(
      expect.objectContaining({
        code: ErrorCode.INVALID_ARGUMENT,
        message: expect.stringMatching(
          /^BATON_ALLOWED_ORIGINS must list origins separated by commas: BATON_ALLOWED_ORIGINS holds "app.example.com", which is no origin/,
        ),
      }),
    );
  });

  it('caps the connections of a user at BATON_MAX_CONNECTIONS_PER_USER (429 past it)', async () => {
    const held = await registry.connections.owned(connectionOwner({ user: 'u1' })!, 1_000);
    process.env.BATON_MAX_CONNECTIONS_PER_USER = String(held + 1);
    const handler = websocketFromEnvironment(app);
    const connect = (id: string) => handler(connectEvent(id, { token: 'good-token' }));
    expect((await connect('conn-cap-1=')).statusCode).toBe(200);
    const refused = await connect('conn-cap-2=');
    expect(refused).toMatchObject({ statusCode: 429 });
    expect(refused.body).toMatch(/^this user holds \d+ connections, the most it may/);
    expect(await registry.connections.get('conn-cap-2=')).toBeUndefined();
  });
});
