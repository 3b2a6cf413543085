/**
 * Per-connection caps of the API Gateway WebSocket handler, on DynamoDB Local and ElasticMQ:
 * frames past `maxFramesPerSecond` in one second are dropped with RATE_LIMITED (the count lives
 * in the connection's registry item, as Lambdas share no memory), and a subscription past
 * `maxSubscriptions` is LIMIT_EXCEEDED. The clock stands still: every frame is in one second.
 */
import type { ServerMessage } from '@baton/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startWebSocketStack, until, type WebSocketStack } from './fixtures/webSocketStack.ts';

let stack: WebSocketStack;

beforeAll(async () => {
  const frozen = { now: () => 1_700_000_000_400 };
  stack = await startWebSocketStack(frozen, {
    worker: false,
    limits: { maxFramesPerSecond: 4, maxSubscriptions: 1 },
  });
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

async function open(): Promise<{ socket: WebSocket; frames: ServerMessage[] }> {
  const socket = new WebSocket(stack.gateway.url, ['baton.v1']);
  const frames: ServerMessage[] = [];
  socket.on('message', (data) => frames.push(JSON.parse(String(data)) as ServerMessage));
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  return { socket, frames };
}

describe('per-connection limits of the API Gateway WebSocket handler', () => {
  it('refuses a second subscription with LIMIT_EXCEEDED, then frames past four in one second with RATE_LIMITED', async () => {
    const { socket, frames } = await open();
    const sub = (id: string) =>
      JSON.stringify({ v: 1, type: 'subscribe', id, query: 'balance', args: { account: id } });
    // One by one: API Gateway gives no order between the frames of a connection.
    socket.send(sub('a'));
    await until(() => frames.some((f) => f.type === 'result' && f.id === 'a'), 'a result');
    socket.send(sub('b'));
    await until(() => frames.some((f) => f.type === 'error' && f.id === 'b'), 'the refusal of b');
    for (let t = 0; t < 3; t++) socket.send(JSON.stringify({ v: 1, type: 'ping', t }));
    await until(
      () => frames.filter((f) => f.type === 'pong' || f.type === 'error').length >= 4,
      'answers to the pings',
    );
    socket.close();

    const refusal = frames.find((f) => f.type === 'error' && f.id === 'b');
    expect(refusal?.type === 'error' && refusal.error.code).toBe('LIMIT_EXCEEDED');
    // Four frames fit in the second (two subscribes, two pings); the fifth is dropped.
    expect(frames.filter((f) => f.type === 'pong')).toHaveLength(2);
    const limited = frames.filter((f) => f.type === 'error' && f.error.code === 'RATE_LIMITED');
    expect(limited).toHaveLength(1);
    expect(limited[0]?.type === 'error' && limited[0].error.message).toContain('after 600 ms');
  });
});
