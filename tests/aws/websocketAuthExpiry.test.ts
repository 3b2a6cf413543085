/**
 * A connection's identity ends when its auth hook said (`validUntil`, e.g. a token's `exp`). On
 * API Gateway its next push, or its next frame, then finds it ended: it is told why (an
 * UNAUTHENTICATED error), closed, and gets nothing more; the sweeper does the same to one that
 * sends and gets nothing; a `BatonClient` whose token is a function connects again with a fresh
 * token, its subscription going on.
 */
import { BatonClient } from '@baton/client';
import { defineApp } from '@baton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { Account } from './fixtures/openAccount.ts';
import {
  balance,
  type ReceivedFrame,
  rawConnection,
  startWebSocketStack,
  until,
  type WebSocketStack,
} from './fixtures/webSocketStack.ts';
import { account } from './fixtures/webSocketSuite.ts';

/** The handlers' clock: a test moves it past the tokens' lives. */
let offset = 0;
const clock = { now: () => Date.now() + offset };
const TOKEN_MS = 60_000;

/** Every token lives a minute from its connect, but `forever`. */
const app = defineApp({
  actors: [Account],
  queries: [balance],
  auth: ({ token, validUntil }) => {
    if (token !== 'forever') validUntil?.(clock.now() + TOKEN_MS);
    return { user: token };
  },
});

let stack: WebSocketStack;
let sender: BatonClient;
beforeAll(async () => {
  stack = await startWebSocketStack(clock, { app });
  sender = new BatonClient({
    url: stack.gateway.url,
    WebSocket: WebSocket as never,
    token: 'forever',
  });
  // Connected before the raw connections, which take the one new id the gateway has for theirs.
  await until(() => sender.connectionState === 'open', 'the sender connected');
});
afterAll(async () => {
  sender?.close();
  await stack?.stop();
  expect(stack?.errors ?? []).toEqual([]);
});

const subscribeFrame = (key: string) =>
  JSON.stringify({ v: 1, type: 'subscribe', id: 's', query: 'balance', args: { account: key } });
const updates = (frames: readonly ReceivedFrame[]) =>
  frames.filter((f) => f.type === 'result' || f.type === 'patch');
const closed = (socket: WebSocket) =>
  new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
const registered = async (connectionId: string) =>
  (await stack.registryItems()).some((item) => item.pk === `C#${connectionId}`);

describe('a connection whose token expired, on API Gateway', () => {
  it('is told so and closed at its next push, which it does not get; the others get theirs', async () => {
    const key = account('expiry');
    const alice = await rawConnection(stack, 'alice');
    const other = await rawConnection(stack, 'forever');
    for (const { socket } of [alice, other]) socket.send(subscribeFrame(key));
    await until(
      () => updates(alice.received).length === 1 && updates(other.received).length === 1,
      'both first results',
    );

    offset += TOKEN_MS + 1_000;
    const closing = closed(alice.socket);
    await sender.send(Account.ref(key), 'deposit', { amount: 5 });
    await until(() => updates(other.received).length === 2, 'the other connection’s push');
    await closing;
    expect(updates(alice.received)).toHaveLength(1);
    const error = alice.received.find((f) => f.type === 'error')?.error;
    expect(error?.code).toBe('UNAUTHENTICATED');
    expect(error?.message).toMatch(/token expired at .*: connect again with a fresh one/);
    // The socket closes on DeleteConnection; the registry item goes right after.
    await until(async () => !(await registered(alice.connectionId)), 'alice unregistered');
    expect(await registered(other.connectionId)).toBe(true);
    other.socket.close();
  });

  it('has its next frame answered with why, unhandled, and is closed', async () => {
    const dave = await rawConnection(stack, 'dave');
    offset += TOKEN_MS + 1_000;
    const closing = closed(dave.socket);
    dave.socket.send(JSON.stringify({ v: 1, type: 'ping', t: 1 }));
    await closing;
    expect(dave.received.map((f) => [f.type, f.error?.code])).toEqual([
      ['error', 'UNAUTHENTICATED'],
    ]);
    await until(async () => !(await registered(dave.connectionId)), 'dave unregistered');
  });

  it('is told so and closed by the sweeper when it sends and gets nothing', async () => {
    const bob = await rawConnection(stack, 'bob');
    const forever = await rawConnection(stack, 'forever');
    const closing = closed(bob.socket);
    expect((await stack.sweep()).removed).toBe(0);

    offset += TOKEN_MS + 1_000;
    expect((await stack.sweep()).removed).toBe(1);
    await closing;
    expect(bob.received.map((f) => f.error?.code)).toEqual(['UNAUTHENTICATED']);
    await until(async () => !(await registered(bob.connectionId)), 'bob unregistered');
    expect(await registered(forever.connectionId)).toBe(true);
    forever.socket.close();
  });

  it('is replaced by a BatonClient whose token is a function: its subscription goes on', async () => {
    const key = account('renewed');
    const tokens: string[] = [];
    const client = new BatonClient({
      url: stack.gateway.url,
      WebSocket: WebSocket as never,
      token: () => {
        tokens.push(`carol-${tokens.length + 1}`);
        return tokens.at(-1)!;
      },
      reconnect: { minMs: 10, maxMs: 50 },
    });
    const balances: unknown[] = [];
    client.subscribe('balance', { account: key }, (state) => {
      if (state.status === 'success') balances.push(state.data);
    });
    await until(() => balances.length === 1, 'the first balance');

    // The push of the deposit finds the token expired: closed, the client connects again.
    offset += TOKEN_MS + 1_000;
    await sender.send(Account.ref(key), 'deposit', { amount: 7 });
    await until(() => balances.at(-1) === 7, 'the balance after the deposit');
    expect(tokens).toEqual(['carol-1', 'carol-2']);
    client.close();
  });
});
