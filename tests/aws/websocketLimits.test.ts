/**
 * The caps on API Gateway, where invocations run side by side: a burst of subscribes, all counted
 * before any registered, still leaves a connection at most its subscription cap — the ones too
 * many are refused with LIMIT_EXCEEDED; a user's connections past its cap are refused at
 * `$connect` (429), a burst of them too, and a closed one makes room. A query's args past
 * their cap are refused before an instance is written.
 */
import { MAX_QUERY_ARGS_BYTES } from '@baton/server/evaluation';
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
    limits: { maxSubscriptions: CAP, maxFramesPerSecond: 1000, maxConnectionsPerUser: 2 },
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

describe("a user's connection cap", () => {
  /** A connection attempt of `token`'s user: its socket once open, or the status it was refused with. */
  const attempt = (token?: string) =>
    rawConnection(stack, token).then(
      (connection) => connection,
      (error: Error) => Number(/Unexpected server response: (\d+)/.exec(error.message)?.[1]),
    );
  const owned = async () => (await stack.registryItems()).filter((i) => i.pk.startsWith('U#'));

  it('refuses a user past it with 429, counts no anonymous connection, and makes room on a close', async () => {
    const first = await attempt('alice');
    const second = await attempt('alice');
    expect(await attempt('alice')).toBe(429);
    const others = [await attempt('bob'), await attempt(), await attempt(), await attempt()];
    expect(others.map((o) => typeof o)).toEqual(['object', 'object', 'object', 'object']);
    expect(await owned()).toHaveLength(3); // alice's two and bob's

    if (typeof first === 'number' || typeof second === 'number') throw new Error('refused');
    first.socket.close();
    await until(async () => (await owned()).length === 2, 'the closed one uncounted');
    const again = await attempt('alice');
    expect(typeof again).toBe('object');
    for (const c of [second, again, ...others]) if (typeof c === 'object') c.socket.close();
    await until(async () => (await stack.registryItems()).length === 0, 'an empty registry');
  });

  it('leaves at most the cap of a burst of connects side by side', async () => {
    const burst = await Promise.all(Array.from({ length: 6 }, () => attempt('carol')));
    const open = burst.filter((c) => typeof c === 'object');
    expect(open.length).toBeLessThanOrEqual(2);
    expect(burst.filter((c) => c === 429)).toHaveLength(6 - open.length);
    expect(await owned()).toHaveLength(open.length);
    for (const c of open) c.socket.close();
    await until(async () => (await stack.registryItems()).length === 0, 'an empty registry');
  });
});

describe("a query's args", () => {
  it('are refused past MAX_QUERY_ARGS_BYTES with LIMIT_EXCEEDED, and register nothing', async () => {
    const { socket, received: frames, event } = await rawConnection(stack);
    const subscribe = (id: string, account: string) =>
      stack.handle(
        event(JSON.stringify({ v: 1, type: 'subscribe', id, query: 'balance', args: { account } })),
      );
    // Backslashes: each takes two bytes of JSON, and two more in the instance's key.
    await subscribe('big', '\\'.repeat(MAX_QUERY_ARGS_BYTES / 2));
    await until(() => frames.find((f) => f.id === 'big'), 'an answer to the large args');
    expect(frames.find((f) => f.id === 'big')).toMatchObject({
      type: 'error',
      error: {
        code: 'LIMIT_EXCEEDED',
        message: expect.stringContaining('the args of query "balance" take'),
      },
    });
    expect((await stack.registryItems()).filter((i) => i.pk.startsWith('Q#'))).toEqual([]);

    await subscribe('small', 'args-alice');
    await until(() => frames.find((f) => f.id === 'small'), 'an answer to small args');
    expect(frames.find((f) => f.id === 'small')?.type).toBe('result');
    socket.close();
    await until(async () => (await stack.registryItems()).length === 0, 'an empty registry');
  });
});
