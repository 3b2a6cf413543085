/**
 * Requests waiting for an outcome on the API Gateway WebSocket handler, where a client could
 * make the host work for nothing. A connection may have at most MAX_WAITING_PER_KEY asks and
 * visible sends waiting under one idempotency key, the newest: one more, even in a burst side by
 * side, takes the place of the oldest, which is told (LIMIT_EXCEEDED). A visible send re-sent under a key whose outcome is
 * recorded is shown once — its connection's queries re-run and pushed — then answered `visible`
 * at once each time it is re-sent again, with no query run nor push.
 */
import { query } from '@baton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { MAX_WAITING_PER_KEY } from '../../packages/aws/src/websocket/handleFrame.ts';
import { Account } from './fixtures/openAccount.ts';
import {
  rawConnection,
  startWebSocketStack,
  until,
  type WebSocketStack,
} from './fixtures/webSocketStack.ts';

const deposit = (requestId: string, key: string, more: Record<string, unknown> = {}) =>
  JSON.stringify({
    v: 1,
    type: 'ask',
    requestId,
    to: Account.ref('waiting').id,
    name: 'deposit',
    payload: { amount: 1 },
    idempotencyKey: key,
    ...more,
  });

describe('asks and visible sends waiting under one key, on one connection', () => {
  let stack: WebSocketStack;
  beforeAll(async () => {
    // No worker: the messages wait, as behind a backlog on their actor.
    stack = await startWebSocketStack(undefined, { worker: false });
  });
  afterAll(async () => {
    await stack?.stop();
    expect(stack?.errors ?? []).toEqual([]);
  });

  /** The connection's requests waiting under any key. */
  const waitingOf = async (connectionId: string) =>
    (await stack.registryItems()).filter(
      (i) => i.pk.startsWith('R#') && i.sk.startsWith(`${connectionId}#`),
    );

  it(`are at most ${MAX_WAITING_PER_KEY}, the newest: a client's retry takes the place of the oldest, which is told`, async () => {
    const { socket, connectionId, received, event } = await rawConnection(stack);
    const framesOf = (id: string) => received.filter((f) => f.requestId === id);
    // One at a time, as a client re-sends under a key each time its ask times out (each retry a
    // new request id, the one it gave up on still waiting).
    const requests = Array.from({ length: MAX_WAITING_PER_KEY + 1 }, (_, i) => `r${i}`);
    for (const [i, id] of requests.entries()) {
      await stack.handle(
        event(deposit(id, 'one-key', i % 2 ? { type: 'send', visible: true } : {})),
      );
    }
    await until(() => framesOf('r0').length === 2, 'the oldest told it no longer waits');
    const accepted = received.filter((f) => f.type === 'accepted').map((f) => f.requestId);
    expect(accepted).toEqual(requests);
    expect(framesOf('r0')[1]).toMatchObject({ type: 'error', error: { code: 'LIMIT_EXCEEDED' } });
    expect(framesOf('r0')[1]?.error?.message).toMatch(
      /so this one, the oldest, no longer waits: the newest request under the key gets the outcome/,
    );
    const waitingIds = async () =>
      (await waitingOf(connectionId)).map((i) => i.sk.slice(connectionId.length + 1)).sort();
    expect(await waitingIds()).toEqual(requests.slice(1).sort());

    // Side by side, each counting after its write: the oldest withdraw, the cap holds.
    const burst = Array.from({ length: 3 * MAX_WAITING_PER_KEY }, (_, i) => `b${i}`);
    await Promise.all(burst.map((id) => stack.handle(event(deposit(id, 'burst-key')))));
    // The first key's requests, and at most the cap of the burst's.
    const held = (await waitingOf(connectionId)).length - MAX_WAITING_PER_KEY;
    expect(held).toBeGreaterThan(0);
    expect(held).toBeLessThanOrEqual(MAX_WAITING_PER_KEY);
    await until(
      () =>
        burst.filter((id) => framesOf(id).some((f) => f.type === 'error')).length ===
        burst.length - held,
      'each burst request withdrawn told so',
    );

    // Another key, or another connection under the key, has a cap of its own.
    await stack.handle(event(deposit('other', 'other-key')));
    const second = await rawConnection(stack);
    await stack.handle(second.event(deposit('r0', 'one-key')));
    await until(
      () => framesOf('other').length > 0 && second.received.length > 0,
      'two more answers',
    );
    expect([framesOf('other')[0]?.type, second.received[0]?.type]).toEqual([
      'accepted',
      'accepted',
    ]);

    // The outcome answers each request still waiting, the client's last retry among them.
    stack.startWorker();
    const asks = requests.filter((_, i) => i > 0 && i % 2 === 0);
    await until(
      () => asks.every((id) => framesOf(id).some((f) => f.type === 'reply')),
      'a reply to each waiting ask',
    );
    await until(
      async () => (await waitingOf(connectionId)).length === 0,
      'no request of the connection waiting',
    );
    expect(framesOf('r0').map((f) => f.type)).toEqual(['accepted', 'error']);
    socket.close();
    second.socket.close();
  });
});

/** Runs of `scaled`, the query whose instances all read one account. */
let scaledRuns = 0;
const scaled = query({
  name: 'scaled',
  public: true,
  args: z.object({ account: z.string(), times: z.number() }),
  handler: async (ctx, args) => {
    scaledRuns++;
    return (await ctx.get(Account.ref(args.account))).balance * args.times;
  },
});

describe('a visible send re-sent under a key whose outcome is recorded', () => {
  let stack: WebSocketStack;
  beforeAll(async () => {
    stack = await startWebSocketStack(undefined, { queries: [scaled] });
  });
  afterAll(async () => {
    await stack?.stop();
    expect(stack?.errors ?? []).toEqual([]);
  });

  it('is shown once, then answered visible at once each time, re-running and pushing nothing', async () => {
    const { socket, received, event } = await rawConnection(stack);
    const account = `shown-${Math.random().toString(36).slice(2, 8)}`;
    const instances = [1, 2, 3, 4, 5];
    for (const times of instances) {
      await stack.handle(
        event(
          JSON.stringify({
            v: 1,
            type: 'subscribe',
            id: `s${times}`,
            query: 'scaled',
            args: { account, times },
          }),
        ),
      );
    }
    await until(
      () => received.filter((f) => f.type === 'result').length >= instances.length,
      'a result per subscription',
    );
    const visible = (requestId: string) =>
      event(
        JSON.stringify({
          v: 1,
          type: 'send',
          requestId,
          to: Account.ref(account).id,
          name: 'deposit',
          payload: { amount: 1 },
          idempotencyKey: 'visible-key',
          visible: true,
        }),
      );
    const answered = (id: string) =>
      received.findIndex((f) => f.type === 'visible' && f.requestId === id);
    /** The value each subscription was last pushed before frame `index`. */
    const heldAt = (index: number) =>
      instances
        .map((times) =>
          received
            .slice(0, index)
            .filter((f) => f.type === 'result' && f.id === `s${times}`)
            .at(-1),
        )
        .map((f) => (f as { value?: unknown } | undefined)?.value);

    // The first is answered from the stream; the first re-sent one finds the outcome recorded
    // and shows the write, with `visible` after the results.
    for (const id of ['v0', 'v1']) {
      await stack.handle(visible(id));
      await until(() => answered(id) >= 0, `visible ${id}`);
      expect(heldAt(answered(id))).toEqual(instances);
    }
    await new Promise((resolve) => setTimeout(resolve, 300)); // anything late arrives
    const [runsBefore, framesBefore] = [scaledRuns, received.length];

    const again = ['v2', 'v3', 'v4', 'v5', 'v6'];
    for (const id of again) await stack.handle(visible(id));
    await until(() => again.every((id) => answered(id) >= 0), 'visible to each re-sent one');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(scaledRuns - runsBefore).toBe(0);
    expect(received.slice(framesBefore).map((f) => f.type)).toEqual([
      ...again.flatMap(() => ['accepted', 'visible']),
    ]);
    socket.close();
    await until(async () => (await stack.registryItems()).length === 0, 'an empty registry');
  });
});
