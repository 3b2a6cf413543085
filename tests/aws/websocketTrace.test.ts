/**
 * A browser's trace context on the API Gateway WebSocket path: a `traceparent` given with a
 * send reaches the inbox with the message; a malformed one fails that request alone.
 */
import { BatonClient } from '@baton/client';
import { ErrorCode } from '@baton/core';
import { decodeEnvelope } from '@baton/core/adapter';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { Account } from './fixtures/openAccount.ts';
import { startWebSocketStack, type WebSocketStack } from './fixtures/webSocketStack.ts';

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
let stack: WebSocketStack;
let client: BatonClient;

beforeAll(async () => {
  // No worker: the test reads what the WebSocket handler put in the inbox.
  stack = await startWebSocketStack(undefined, { worker: false });
  client = new BatonClient({ url: stack.gateway.url, WebSocket });
});

afterAll(async () => {
  client?.close();
  await stack?.stop();
});

describe('trace context over API Gateway WebSockets', () => {
  it('carries the traceparent of a send into the inbox with its message', async () => {
    await client.send(
      Account.ref('traced'),
      'deposit',
      { amount: 5 },
      { traceparent: TRACEPARENT },
    );
    await client.send(Account.ref('untraced'), 'deposit', { amount: 5 });
    const received = await stack.queue.receive({ max: 10, visibilityTimeoutMs: 30_000 });
    const envelopes = received.map((m) => decodeEnvelope(m.body)!);
    expect(envelopes.find((e) => e.to === 'account/traced')?.traceparent).toBe(TRACEPARENT);
    expect(envelopes.find((e) => e.to === 'account/untraced')).not.toHaveProperty('traceparent');
  });

  it('refuses a malformed traceparent with INVALID_ARGUMENT for that request alone', async () => {
    const refused = client.send(
      Account.ref('x'),
      'deposit',
      { amount: 1 },
      {
        traceparent: '00-not-a-trace',
      },
    );
    await expect(refused).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENT });
    await expect(client.send(Account.ref('x'), 'deposit', { amount: 1 })).resolves.toBeDefined();
  });
});
