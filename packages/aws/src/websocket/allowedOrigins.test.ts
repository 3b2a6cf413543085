import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { silentLogger } from '@baton/core';
import type { Queue, Store } from '@baton/core/adapter';
import { describe, expect, it } from 'vitest';
import type { WebSocketHandlerOptions } from './WebSocketOptions.ts';
import { type WebSocketEvent, websocketHandler } from './websocketHandler.ts';

/** A handler whose backend fails if touched, and which counts its `auth` runs. */
function handler(options: Partial<WebSocketHandlerOptions> = {}) {
  const touched: string[] = [];
  const untouchable = (name: string) =>
    new Proxy(
      {},
      {
        get: (_target, property) => () => {
          touched.push(`${name}.${String(property)}`);
          throw new Error(`${name} was touched`);
        },
      },
    );
  let authRuns = 0;
  const handle = websocketHandler({
    actors: [],
    queries: [],
    store: untouchable('store') as Store,
    queue: untouchable('queue') as Queue,
    dynamodb: untouchable('dynamodb') as DynamoDBClient,
    connectionsTable: 'connections',
    logger: silentLogger,
    auth: () => {
      authRuns++;
      throw new Error('no token');
    },
    ...options,
  });
  const connect = (origin?: string) =>
    handle({
      requestContext: { routeKey: '$connect', connectionId: 'c1', domainName: 'x', stage: 's' },
      headers: origin === undefined ? {} : { Origin: origin },
    } as unknown as WebSocketEvent);
  return { connect, touched, authRuns: () => authRuns };
}

describe("the WebSocket handler's allowedOrigins", () => {
  it('refuses a page on an origin not listed with 403 on $connect, saying how to allow it, before auth or any write', async () => {
    const { connect, touched, authRuns } = handler({
      allowedOrigins: ['https://app.example.com'],
    });
    const answer = await connect('https://evil.example');
    expect(answer.statusCode).toBe(403);
    expect(answer.body).toContain('refused a WebSocket from a page on https://evil.example');
    expect(answer.body).toContain('only pages on https://app.example.com may');
    expect(answer.body).toContain(`add "https://evil.example" to BatonApp's allowedOrigins prop`);
    expect(authRuns()).toBe(0);
    expect(touched).toEqual([]);
  });

  it('hands a listed page, and a client without Origin, to auth', async () => {
    const { connect, authRuns } = handler({ allowedOrigins: ['https://app.example.com'] });
    expect((await connect('https://app.example.com')).statusCode).toBe(401);
    expect((await connect()).statusCode).toBe(401);
    expect(authRuns()).toBe(2);
  });

  it('checks no origin by default, as API Gateway does not', async () => {
    const { connect, authRuns } = handler();
    expect((await connect('https://evil.example')).statusCode).toBe(401);
    expect(authRuns()).toBe(1);
  });

  it('refuses to start with an entry that is no origin', () => {
    expect(() => handler({ allowedOrigins: ['app.example.com'] })).toThrow(
      /invalid WebSocket handler options: allowedOrigins holds "app.example.com", which is no origin/,
    );
  });
});
