/**
 * A connection's subscription cap on API Gateway, where a connection's frames reach invocations
 * side by side: a burst of subscribes, all counted before any registered, still leaves the
 * connection at most its cap — the ones too many are refused with LIMIT_EXCEEDED.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  rawConnection,
  startWebSocketStack,
  until,
  type WebSocketStack,
} from './fixtures/webSocketStack.ts';

const CAP = 5;
let stack: WebSocketStack;
beforeAll(async () => {
  stack = await startWebSocketStack(undefined, {
    limits: { maxSubscriptions: CAP, maxFramesPerSecond: 1000 },
  });
});
afterAll(async () => {
  await stack?.stop();
  expect(stack?.errors ?? []).toEqual([]);
});

describe('the subscription cap under a burst of subscribes', () => {
  it(`leaves a connection at most ${CAP} subscriptions, refusing the others`, async () => {
    const { socket, received: frames, event } = await rawConnection(stack);
    const subscribe = (id: string) =>
      event(
        JSON.stringify({
          v: 1,
          type: 'subscribe',
          id,
          query: 'balance',
          args: { account: `cap-${id}` },
        }),
      );

    // Four times the cap at once, as API Gateway would invoke the handler for them.
    const burst = Array.from({ length: 4 * CAP }, (_, i) => `s${i}`);
    await Promise.all(burst.map((id) => stack.handle(subscribe(id))));
    await until(() => frames.length >= burst.length, 'an answer to every subscribe');
    const results = frames.filter((f) => f.type === 'result');
    const refused = frames.filter((f) => f.type === 'error');
    expect(results.length + refused.length).toBe(burst.length);
    expect(results.length).toBeLessThanOrEqual(CAP);
    expect(
      refused.map((f) => JSON.stringify(f.error)).filter((e) => !e.includes('LIMIT_EXCEEDED')),
    ).toEqual([]);

    // What the burst left registered is what the cap counts: one more fits only below it.
    await stack.handle(subscribe('extra'));
    await until(() => frames.some((f) => f.id === 'extra'), 'an answer to one more');
    const extra = frames.find((f) => f.id === 'extra')!;
    expect(extra.type).toBe(results.length < CAP ? 'result' : 'error');
    socket.close();
  });
});
