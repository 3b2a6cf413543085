/**
 * Requests waiting for an outcome on the API Gateway WebSocket handler, where a client could
 * make the host work for nothing. A connection may have at most MAX_WAITING_PER_KEY asks and
 * visible sends waiting under one idempotency key: one more, even in a burst side by side, is
 * refused with LIMIT_EXCEEDED and not sent. A visible send re-sent under a key whose outcome is
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

  it(`are at most ${MAX_WAITING_PER_KEY}: one more is refused and not sent, and a burst leaves no more`, async () => {
    const { socket, connectionId, received, event } = await rawConnection(stack);
    const answered = (id: string) => received.find((f) => f.requestId === id);
    // One at a time, as API Gateway hands over a connection's frames when they come apart.
    for (let i = 0; i <= MAX_WAITING_PER_KEY; i++) {
      await stack.handle(
        event(deposit(`r${i}`, 'one-key', i % 2 ? { type: 'send', visible: true } : {})),
      );
    }
    await until(() => answered(`r${MAX_WAITING_PER_KEY}`), 'an answer to one too many');
    const accepted = received.filter((f) => f.type === 'accepted').map((f) => f.requestId);
    expect(accepted).toEqual(Array.from({ length: MAX_WAITING_PER_KEY }, (_, i) => `r${i}`));
    const refused = answered(`r${MAX_WAITING_PER_KEY}`);
    expect(refused).toMatchObject({ type: 'error', error: { code: 'LIMIT_EXCEEDED' } });
    expect(refused?.error?.message).toMatch(
      new RegExp(
        `has ${MAX_WAITING_PER_KEY} asks and visible sends waiting for the outcome of this idempotency key.*wait for the answer to a request already waiting under that key`,
      ),
    );
    expect(await waitingOf(connectionId)).toHaveLength(MAX_WAITING_PER_KEY);

    // Side by side, each past the count before any wrote: the ones too many withdraw.
    const burst = Array.from({ length: 3 * MAX_WAITING_PER_KEY }, (_, i) => `b${i}`);
    await Promise.all(burst.map((id) => stack.handle(event(deposit(id, 'burst-key')))));
    await until(() => burst.every(answered), 'an answer to each of the burst');
    const burstRefused = burst.map(answered).filter((f) => f?.type === 'error');
    expect(burstRefused.length).toBeGreaterThanOrEqual(2 * MAX_WAITING_PER_KEY);
    expect(burstRefused.map((f) => f?.error?.code)).toEqual(
      burstRefused.map(() => 'LIMIT_EXCEEDED'),
    );
    expect(await waitingOf(connectionId)).toHaveLength(
      MAX_WAITING_PER_KEY + burst.length - burstRefused.length,
    );

    // Another key, or another connection under the key, has a cap of its own.
    await stack.handle(event(deposit('other', 'other-key')));
    const second = await rawConnection(stack);
    await stack.handle(second.event(deposit('r0', 'one-key')));
    await until(() => answered('other') && second.received.length > 0, 'two more answers');
    expect([answered('other')?.type, second.received[0]?.type]).toEqual(['accepted', 'accepted']);

    // The outcome answers each waiting request, and none refused: its message was not sent.
    stack.startWorker();
    const waiting = accepted.filter((_, i) => i % 2 === 0);
    await until(
      () => waiting.every((id) => received.some((f) => f.type === 'reply' && f.requestId === id)),
      'a reply to each waiting ask',
    );
    await until(
      async () => (await waitingOf(connectionId)).length === 0,
      'no request of the connection waiting',
    );
    expect(received.filter((f) => f.requestId === `r${MAX_WAITING_PER_KEY}`)).toHaveLength(1);
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
