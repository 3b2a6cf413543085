/**
 * Ids a client chooses, however long, on the API Gateway WebSocket handler: a subscription's
 * id and a request's id are parts of the registry's DynamoDB keys,
 * which take 1,024 bytes (a sort key) or 2,048 (a partition key) at most. Past that, as the local
 * host does, a subscription gets its result and an ask its reply, nothing of them is left in the
 * registry once done, and no one is told to "retry later" what a retry cannot fix.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Account } from './fixtures/openAccount.ts';
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
  it('gives subscriptions with ids past a key’s limit their results, and leaves nothing of them once unsubscribed', async () => {
    const { socket, connectionId, received, event } = await rawConnection(stack);
    const ids = ['s'.repeat(1010), 't'.repeat(3000), `é${'u'.repeat(600)}`];
    for (const id of ids) {
      const frame = { v: 1, type: 'subscribe', id, query: 'balance', args: { account: 'long-1' } };
      await stack.handle(event(JSON.stringify(frame)));
    }
    await until(() => ids.every((id) => received.some((f) => f.id === id)), 'three answers');
    expect(received.filter((f) => ids.includes(f.id ?? '')).map((f) => f.type)).toEqual([
      'result',
      'result',
      'result',
    ]);
    const mine = async () =>
      (await stack.registryItems()).filter(
        (i) => i.pk === `C#${connectionId}` && i.sk.startsWith('S#'),
      );
    expect(await mine()).toHaveLength(3);

    for (const id of ids)
      await stack.handle(event(JSON.stringify({ v: 1, type: 'unsubscribe', id })));
    expect(await mine()).toEqual([]);
    const subscribers = (await stack.registryItems()).filter(
      (i) => i.pk.startsWith('Q#') && i.sk.startsWith('S#'),
    );
    expect(subscribers).toEqual([]);
    socket.close();
  });

  it('answers an ask whose request id is past a key’s limit', async () => {
    const { socket, received, event } = await rawConnection(stack);
    const requestId = 'r'.repeat(1100);
    const ask = {
      v: 1,
      type: 'ask',
      requestId,
      to: Account.ref('long-2').id,
      name: 'deposit',
      payload: { amount: 7 },
      idempotencyKey: 'long-ask',
    };
    await stack.handle(event(JSON.stringify(ask)));
    const answered = () => received.find((f) => f.requestId === requestId && f.type !== 'accepted');
    await until(answered, 'the ask’s answer');
    expect(answered()).toMatchObject({ type: 'reply', value: 7 });
    expect((await stack.registryItems()).filter((i) => i.pk.startsWith('R#'))).toEqual([]);
    socket.close();
  });
});
