/**
 * Ids a client chooses, however long, on the API Gateway WebSocket handler: a subscription's id
 * and a request's id are parts of the registry's DynamoDB keys. One past MAX_ID_LENGTH
 * characters is refused as the local host refuses it (INVALID_PAYLOAD, nothing registered),
 * never told to "retry later"; one of MAX_ID_LENGTH characters of three UTF-8 bytes each is
 * served like any other.
 */
import { MAX_ID_LENGTH } from '@baton/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  rawConnection,
  startWebSocketStack,
  until,
  type WebSocketStack,
} from './fixtures/webSocketStack.ts';

let stack: WebSocketStack;
beforeAll(async () => {
  stack = await startWebSocketStack();
}, 60_000);
afterAll(async () => {
  await stack?.stop();
  expect(stack?.errors ?? []).toEqual([]);
});

describe('long ids on the API Gateway WebSocket handler', () => {
  it('refuses ids past MAX_ID_LENGTH as INVALID_PAYLOAD, registering nothing, and serves the longest', async () => {
    const { socket, connectionId, received, event } = await rawConnection(stack);
    const long = 's'.repeat(MAX_ID_LENGTH + 1);
    const subscribe = (id: string) =>
      event(
        JSON.stringify({ v: 1, type: 'subscribe', id, query: 'balance', args: { account: 'l-1' } }),
      );
    const ask = {
      v: 1,
      type: 'ask',
      requestId: long,
      to: 'account/l-1',
      name: 'deposit',
      payload: { amount: 7 },
      idempotencyKey: 'long-ask',
    };
    await stack.handle(subscribe(long));
    await stack.handle(event(JSON.stringify(ask)));
    await until(() => received.length >= 2, 'two answers');
    expect(received.map((f) => [f.type, f.error?.code])).toEqual([
      ['error', 'INVALID_PAYLOAD'],
      ['error', 'INVALID_PAYLOAD'],
    ]);
    expect(
      (await stack.registryItems()).filter((i) => i.pk !== `C#${connectionId}` || i.sk !== 'C'),
    ).toEqual([]);

    // 768 bytes: with its prefix and the connection id, within a sort key's 1,024.
    const longest = '€'.repeat(MAX_ID_LENGTH);
    await stack.handle(subscribe(longest));
    await until(() => received.some((f) => f.id === longest), 'its result');
    expect(received.find((f) => f.id === longest)?.type).toBe('result');
    socket.close();
  });
});
