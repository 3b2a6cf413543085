import {
  ApiGatewayManagementApiClient,
  DeleteConnectionCommand,
  GetConnectionCommand,
  PostToConnectionCommand,
} from '@aws-sdk/client-apigatewaymanagementapi';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { WebSocketEvent } from '../websocket/websocketHandler.ts';
import { LocalWebSocketGateway } from './LocalWebSocketGateway.ts';

let gateway: LocalWebSocketGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

async function start(events: WebSocketEvent[], refuse = false) {
  gateway = await LocalWebSocketGateway.start({
    stage: 'test',
    handler: async (event) => {
      events.push(event);
      if (event.requestContext.routeKey !== '$connect') return { statusCode: 200 };
      return refuse ? { statusCode: 403, body: 'no' } : { statusCode: 200 };
    },
  });
  const api = new ApiGatewayManagementApiClient({
    endpoint: gateway.managementEndpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  return { gateway, api };
}

async function open(url: string) {
  const socket = new WebSocket(url);
  const received: string[] = [];
  socket.on('message', (data) => received.push(String(data)));
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  return { socket, received };
}

const errorName = (promise: Promise<unknown>) =>
  promise.then(
    () => 'none',
    (error: { name: string; $metadata?: { httpStatusCode?: number } }) =>
      `${error.name} ${error.$metadata?.httpStatusCode}`,
  );

describe('LocalWebSocketGateway', () => {
  it('serves the management API to the real SDK client: post, get, delete, gone and too large', async () => {
    const events: WebSocketEvent[] = [];
    const { gateway, api } = await start(events);
    const { socket, received } = await open(`${gateway.url}?token=t1`);
    const connect = events[0] as WebSocketEvent & {
      queryStringParameters?: Record<string, string>;
    };
    expect(connect.requestContext.routeKey).toBe('$connect');
    expect(connect.queryStringParameters).toEqual({ token: 't1' });
    const ConnectionId = connect.requestContext.connectionId;

    socket.send('hello');
    await expect.poll(() => events.map((e) => e.requestContext.routeKey)).toContain('$default');
    expect(events.find((e) => e.requestContext.routeKey === '$default')?.body).toBe('hello');

    await api.send(new PostToConnectionCommand({ ConnectionId, Data: Buffer.from('{"a":1}') }));
    await expect.poll(() => received).toEqual(['{"a":1}']);
    const info = await api.send(new GetConnectionCommand({ ConnectionId }));
    expect(info.ConnectedAt).toBeInstanceOf(Date);
    expect(info.Identity?.SourceIp).toBe('127.0.0.1');
    const big = Buffer.alloc(128 * 1024 + 1, 'x');
    expect(
      await errorName(api.send(new PostToConnectionCommand({ ConnectionId, Data: big }))),
    ).toBe('PayloadTooLargeException 413');
    expect(
      await errorName(api.send(new PostToConnectionCommand({ ConnectionId: 'nope', Data: big }))),
    ).toBe('GoneException 410');

    const closed = new Promise((resolve) => socket.once('close', resolve));
    await api.send(new DeleteConnectionCommand({ ConnectionId }));
    await closed;
    await expect.poll(() => events.at(-1)?.requestContext.routeKey).toBe('$disconnect');
    expect(
      await errorName(
        api.send(new PostToConnectionCommand({ ConnectionId, Data: Buffer.from('x') })),
      ),
    ).toBe('GoneException 410');
  });

  it('rejects the upgrade with the status $connect answered', async () => {
    const { gateway } = await start([], true);
    const status = await new Promise<number | undefined>((resolve) => {
      const socket = new WebSocket(gateway.url);
      socket.on('unexpected-response', (_request, response) => resolve(response.statusCode));
      socket.on('open', () => resolve(undefined));
      socket.on('error', () => {});
    });
    expect(status).toBe(403);
    expect(gateway.connectionIds()).toEqual([]);
  });

  it('refuses a page on another origin with 403 before $connect, and lets in its own and clients with none', async () => {
    const events: WebSocketEvent[] = [];
    const { gateway: own } = await start(events);
    const attempt = (origin?: string, url = own.url) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const socket = new WebSocket(url, origin === undefined ? {} : { origin });
        socket.on('unexpected-response', (_request, response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => {
            body += chunk.toString('utf8');
          });
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
        });
        socket.on('open', () => {
          resolve({ status: 101, body: '' });
          socket.close();
        });
        socket.on('error', reject);
      });
    const port = new URL(own.url).port;
    const refused = await attempt('https://evil.example');
    expect(refused.status).toBe(403);
    expect(refused.body).toContain('refused a WebSocket from a page on https://evil.example');
    expect(refused.body).toContain(
      `add "https://evil.example" to the gateway's allowedOrigins option`,
    );
    expect(events).toEqual([]);
    expect((await attempt(`http://localhost:${port}`)).status).toBe(101);
    expect((await attempt()).status).toBe(101);
    await own.close();
    const listed = await LocalWebSocketGateway.start({
      handler: async () => ({ statusCode: 200 }),
      allowedOrigins: ['https://app.example'],
    });
    gateway = listed;
    expect((await attempt('https://app.example', listed.url)).status).toBe(101);
    const itsOwn = `http://localhost:${new URL(listed.url).port}`;
    expect((await attempt(itsOwn, listed.url)).status).toBe(403);
  });
});
