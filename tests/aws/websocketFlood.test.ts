/**
 * A connection that floods on API Gateway, where every frame runs a Lambda: frames past
 * `maxFramesPerSecond` are refused, and the one past twice it closes the connection — API
 * Gateway sends no close code, so the client is told why in an `error` frame, then the
 * connection is deleted (`DeleteConnection`) and its registry state removed. Frames handled side
 * by side close it once.
 */
import { jsonLogger } from '@baton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  rawConnection,
  startWebSocketStack,
  until,
  type WebSocketStack,
} from './fixtures/webSocketStack.ts';

const CAP = 3;
const CLOSED =
  'sent more than 6 frames in one second (twice the cap of 3): closed; reconnect and send fewer';
/** A clock that stands still: every frame falls in the same second, whatever the machine's speed. */
const frozen = { now: () => Math.floor(Date.now() / 1000) * 1000 + 250 };
const at = frozen.now();
const lines: string[] = [];
let stack: WebSocketStack;
beforeAll(async () => {
  stack = await startWebSocketStack(
    { now: () => at },
    {
      limits: { maxSubscriptions: 10, maxFramesPerSecond: CAP, maxConnectionsPerUser: 10 },
      websocketLogger: jsonLogger({ write: (line) => lines.push(line) }),
    },
  );
});
afterAll(async () => {
  await stack?.stop();
  expect(stack?.errors ?? []).toEqual([]);
});

const ping = (t: number) => JSON.stringify({ v: 1, type: 'ping', t });
const warnings = () =>
  lines.map((line) => JSON.parse(line)).filter((line) => line.level === 'warn');

describe('a connection that floods through API Gateway (emulated)', () => {
  it('is refused past the cap, then closed past twice it, its registry state removed', async () => {
    lines.length = 0;
    const { socket, connectionId, received } = await rawConnection(stack, 'alice');
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.send(
      JSON.stringify({
        v: 1,
        type: 'subscribe',
        id: 's1',
        query: 'balance',
        args: { account: 'f' },
      }),
    );
    await until(() => received.some((f) => f.id === 's1'), 'the subscription answered');
    for (let i = 0; i < 30; i++) socket.send(ping(i));
    await closed;

    // The subscribe and pings 0–1 pass (3 frames), pings 2–4 are refused, ping 5 closes.
    expect(received.map((f) => (f.type === 'error' ? f.error : f.type))).toEqual([
      'result',
      'pong',
      'pong',
      ...Array(3).fill(expect.objectContaining({ code: 'RATE_LIMITED', details: { limit: CAP } })),
      { code: 'RATE_LIMITED', message: CLOSED, details: { limit: CAP, frames: 7 } },
    ]);
    await until(async () => (await stack.registryItems()).length === 0, 'an empty registry');
    expect(warnings()).toEqual([
      expect.objectContaining({
        message: 'closing a connection for a policy violation',
        connectionId,
        frames: 7,
        limit: CAP,
      }),
    ]);
  });

  it('is closed once by frames handled side by side', async () => {
    lines.length = 0;
    const { socket, connectionId, received, event } = await rawConnection(stack, 'bob');
    const closed = new Promise((resolve) => socket.once('close', resolve));
    // Four times the cap at once, as API Gateway would invoke the handler for them.
    await Promise.all(Array.from({ length: 4 * CAP }, (_, i) => stack.handle(event(ping(i)))));
    await closed;

    expect(received.filter((f) => f.error?.message === CLOSED)).toHaveLength(1);
    expect(received.filter((f) => f.type === 'pong').length).toBeLessThanOrEqual(CAP);
    expect(warnings().map((w) => [w.connectionId, w.frames])).toEqual([[connectionId, 7]]);
    await until(async () => (await stack.registryItems()).length === 0, 'an empty registry');
  });
});
