import type { Socket } from 'node:net';
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

const maxUnreadBytes = 64 * 1024;
/** The answer to every frame: 32 KB. */
const reply = JSON.stringify({ type: 'reply', pad: 'x'.repeat(32 * 1024) });

/**
 * A gateway on which every frame is answered with {@link reply}, posted by an invocation of its
 * connection's own (Lambdas share no client) that its `$default` call does not wait for, as a
 * send's reply comes from the stream handler. The `$default` calls and how each post ended are
 * kept by connection.
 */
async function startReplying() {
  const calls = new Map<string, number>();
  const posts = new Map<string, string[]>();
  const apis = new Map<string, ApiGatewayManagementApiClient>();
  const post = (ConnectionId: string) => {
    const api =
      apis.get(ConnectionId) ??
      new ApiGatewayManagementApiClient({
        endpoint: gateway!.managementEndpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      });
    apis.set(ConnectionId, api);
    const data = Buffer.from(reply);
    return errorName(api.send(new PostToConnectionCommand({ ConnectionId, Data: data })));
  };
  gateway = await LocalWebSocketGateway.start({
    maxUnreadBytes,
    unreadGraceMs: 1_000,
    handler: async ({ requestContext: { routeKey, connectionId } }) => {
      if (routeKey !== '$default') return { statusCode: 200 };
      calls.set(connectionId, (calls.get(connectionId) ?? 0) + 1);
      void post(connectionId).then((outcome) => {
        posts.set(connectionId, [...(posts.get(connectionId) ?? []), outcome]);
      });
      return { statusCode: 200 };
    },
  });
  const destroy = () => {
    for (const api of apis.values()) api.destroy();
  };
  return { gateway, calls, posts, post, destroy };
}

/** The socket under a `ws` client: paused, the client reads nothing. */
const rawSocket = (socket: WebSocket) => (socket as unknown as { _socket: Socket })._socket;

describe('a client that stops reading', () => {
  it('has its frames left unread and posts to it held within maxUnreadBytes, and is closed (4413) after the grace, while another reads on', async () => {
    const { gateway, calls, posts, post, destroy } = await startReplying();
    const reader = await open(gateway.url);
    const readerId = gateway.connectionIds()[0]!;
    const flooder = new WebSocket(gateway.url);
    await new Promise((resolve) => flooder.once('open', resolve));
    const id = gateway.connectionIds().find((each) => each !== readerId)!;
    const closed = new Promise<{ code: number; reason: string }>((resolve) => {
      flooder.once('close', (code, reason) => resolve({ code, reason: reason.toString() }));
    });
    const raw = rawSocket(flooder);
    raw.pause(); // from now on it reads nothing
    // It asks on and on: each ask answered with 32 KB, more than the sockets' buffers hold.
    const flood = setInterval(() => {
      for (let i = 0; i < 10; i++) flooder.send('ask');
    }, 10);
    let peak = 0;
    const watch = setInterval(() => {
      peak = Math.max(peak, gateway.unreadBytes(id));
    }, 2);
    const bound = maxUnreadBytes + Buffer.byteLength(reply) + 14; // and one frame, its header
    let heard: number | undefined;
    try {
      await expect.poll(() => peak, { timeout: 10_000 }).toBeGreaterThan(maxUnreadBytes);
      // Over the bound, its frames wait unread: the handler hears none of them, and what waits
      // here for it stays within the bound, while the other client is answered.
      heard = calls.get(id);
      reader.socket.send('ask');
      await expect.poll(() => reader.received.length).toBe(1);
      expect(peak).toBeLessThanOrEqual(bound);
      expect(calls.get(id)).toBe(heard);
      // A grace later it is closed: the posts that waited for it, and any later, find it gone.
      await expect
        .poll(() => posts.get(id) ?? [], { timeout: 5_000 })
        .toContain('GoneException 410');
      expect(await post(id)).toBe('GoneException 410');
      expect(calls.get(id)).toBe(heard);
      expect(peak).toBeLessThanOrEqual(bound);
    } finally {
      clearInterval(flood);
      clearInterval(watch);
    }
    // Once it reads, it finds the close (and no `$default` of the frames it sent on).
    raw.resume();
    expect(await closed).toEqual({
      code: 4413,
      reason: `over ${maxUnreadBytes} bytes sent were left unread: read, then connect again`,
    });
    await expect.poll(() => gateway.connectionIds()).toEqual([readerId]);
    expect(calls.get(id)).toBe(heard);
    reader.socket.send('ask');
    await expect.poll(() => reader.received.length).toBe(2);
    await expect.poll(() => posts.get(readerId)).toEqual(['none', 'none']);
    destroy();
  });

  it('is read again, and answered in full, once it reads within the grace', async () => {
    const { gateway, calls, posts, destroy } = await startReplying();
    const { socket, received } = await open(gateway.url);
    const [id] = gateway.connectionIds();
    rawSocket(socket).pause();
    for (let i = 0; i < 400; i++) socket.send('ask');
    await expect
      .poll(() => gateway.unreadBytes(id!), { timeout: 10_000 })
      .toBeGreaterThan(maxUnreadBytes);
    // Frames it sends now wait, until it reads.
    const heard = calls.get(id!);
    for (let i = 0; i < 10; i++) socket.send('ask');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(calls.get(id!)).toBe(heard);
    rawSocket(socket).resume();
    await expect.poll(() => received.length, { timeout: 10_000 }).toBe(410);
    expect(calls.get(id!)).toBe(410);
    expect(posts.get(id!)?.filter((outcome) => outcome !== 'none')).toEqual([]);
    // Past the grace, it is open still.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(gateway.connectionIds()).toEqual([id]);
    socket.send('ask');
    await expect.poll(() => received.length).toBe(411);
    destroy();
  });
});
