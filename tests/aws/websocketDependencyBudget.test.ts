/**
 * `maxDependenciesPerScope` on API Gateway, as in the local engine: the live queries of one
 * identity scope (a user, on every connection of theirs) keep at most that many dependencies
 * (one per actor an instance's run read). A subscribe whose run would read past it is refused
 * with the local engine's LIMIT_EXCEEDED, stores none of its reads, and names its `limit` (the
 * subscription is withdrawn: the client subscribes again as room frees); the user's other
 * subscriptions are kept, and other users have their own budget. A burst side by side stays
 * within it too. A subscribe whose instance is dropped under its run (its socket closed) leaves
 * no count behind, and an instance kept alive across connections keeps its count as long.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { websocketHandler } from '@baton/aws/websocket';
import { query } from '@baton/core';
import type { Queue, Store } from '@baton/core/adapter';
import { Client } from '@baton/core/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { Account } from './fixtures/openAccount.ts';
import {
  rawConnection,
  startWebSocketStack,
  until,
  type WebSocketStack,
} from './fixtures/webSocketStack.ts';

/** The total of some accounts, read one after the other: the reads' order is the args'. */
const totalOf = query({
  name: 'totalOf',
  public: true,
  args: z.object({ accounts: z.array(z.string()) }),
  handler: async (ctx, { accounts }) => {
    let total = 0;
    for (const key of accounts) total += (await ctx.get(Account.ref(key))).balance;
    return total;
  },
});

/** Holds `gatedTotal`'s runs while `gate.held` is pending; `gate.started` says one began. */
const gate = { held: Promise.resolve(), started: () => {} };

/** `totalOf`, waiting on `gate` first: a test closes the socket while it runs. */
const gatedTotal = query({
  name: 'gatedTotal',
  public: true,
  args: z.object({ accounts: z.array(z.string()) }),
  handler: async (ctx, { accounts }) => {
    gate.started();
    await gate.held;
    let total = 0;
    for (const key of accounts) total += (await ctx.get(Account.ref(key))).balance;
    return total;
  },
});

/** The handlers' clock: a test moves it hours on. */
let offset = 0;
const clock = { now: () => Date.now() + offset };
const HOUR = 60 * 60_000;

const MOST = 5;
let stack: WebSocketStack;
beforeAll(async () => {
  stack = await startWebSocketStack(clock, {
    queries: [totalOf, gatedTotal],
    limits: { maxFramesPerSecond: 1000, maxDependenciesPerScope: MOST },
  });
});
afterAll(async () => {
  await stack?.stop();
  expect(stack?.errors ?? []).toEqual([]);
});

type Connection = Awaited<ReturnType<typeof rawConnection>>;

/** Subscribes `id` of `connection` to the total of `accounts`, and waits for its first answer. */
async function subscribe(connection: Connection, id: string, accounts: string[]) {
  const answered = connection.received.length;
  const frame = { v: 1, type: 'subscribe', id, query: 'totalOf', args: { accounts } };
  await stack.handle(connection.event(JSON.stringify(frame)));
  return until(
    () => connection.received.slice(answered).find((f) => f.id === id),
    `an answer to ${id}`,
  );
}

/** The actors some live instance depends on (its `D#` items), sorted. */
async function dependencies(): Promise<string[]> {
  const items = await stack.registryItems();
  return items
    .filter((i) => i.pk.startsWith('D#'))
    .map((i) => i.pk.slice(2))
    .sort();
}

/** The local engine's words for a read of `actorId` refused at `held`. */
const refusal = (actorId: string, held: number) =>
  `query "totalOf" cannot read ${actorId}: this caller's live queries hold ${held} actors' reads, the most this server keeps (${MOST}); it runs again as room frees. Unsubscribe from views no longer shown, or read fewer actors per query`;

const ids = (...keys: string[]) => keys.map((key) => Account.ref(key).id).sort();

describe("a user's dependency budget on API Gateway", () => {
  it('refuses a subscribe past it with the clear error, keeps what the user holds, and leaves other users theirs', async () => {
    const alice = await rawConnection(stack, 'alice');
    const aliceAgain = await rawConnection(stack, 'alice');
    const bob = await rawConnection(stack, 'bob');

    expect(await subscribe(alice, 's1', ['a1', 'a2', 'a3'])).toMatchObject({ type: 'result' });
    // Two more reads fit (5); the third is past the budget.
    const refused = await subscribe(alice, 's2', ['a4', 'a5', 'a6']);
    expect(refused).toEqual({
      v: 1,
      type: 'error',
      id: 's2',
      error: {
        code: 'LIMIT_EXCEEDED',
        message: refusal(Account.ref('a6').id, MOST),
        // `limit`: the subscription is withdrawn, and a client subscribes again as room frees.
        details: { query: 'totalOf', held: MOST, most: MOST, limit: MOST },
      },
    });
    // None of the refused run's reads is kept, and no instance of it.
    expect(await dependencies()).toEqual(ids('a1', 'a2', 'a3'));

    // The budget is the user's, on every connection: an instance it holds already adds nothing.
    expect(await subscribe(aliceAgain, 't1', ['a1', 'a2', 'a3'])).toMatchObject({
      type: 'result',
    });
    expect(await subscribe(aliceAgain, 't2', ['a7', 'a8', 'a9'])).toMatchObject({
      type: 'error',
      error: { code: 'LIMIT_EXCEEDED', message: refusal(Account.ref('a9').id, MOST) },
    });

    // Another user has a budget of their own.
    expect(await subscribe(bob, 's1', ['b1', 'b2', 'b3', 'b4', 'b5'])).toMatchObject({
      type: 'result',
    });
    expect(await dependencies()).toEqual(ids('a1', 'a2', 'a3', 'b1', 'b2', 'b3', 'b4', 'b5'));

    // What alice held still runs on a change, and is pushed to both of her connections.
    const { store, queue } = stack;
    await new Client({ actors: [Account], store, queue }).send(Account.ref('a2'), 'deposit', {
      amount: 7,
    });
    const pushed = (connection: Connection, id: string) => () =>
      connection.received.some((f) => f.id === id && (f as { value?: unknown }).value === 7);
    await until(pushed(alice, 's1'), "alice's first connection to see the deposit");
    await until(pushed(aliceAgain, 't1'), "alice's second connection to see the deposit");

    for (const c of [alice, aliceAgain, bob]) c.socket.close();
    // Closed, everything goes: the instances, their dependencies and their scopes' counts.
    await until(async () => (await stack.registryItems()).length === 0, 'an empty registry');
  });

  it('has room again once the user unsubscribes: the same subscribe then runs', async () => {
    const carol = await rawConnection(stack, 'carol');
    expect(await subscribe(carol, 'c1', ['c1', 'c2', 'c3', 'c4'])).toMatchObject({
      type: 'result',
    });
    expect(await subscribe(carol, 'c2', ['c5', 'c6'])).toMatchObject({
      type: 'error',
      error: { code: 'LIMIT_EXCEEDED', message: refusal(Account.ref('c6').id, MOST) },
    });

    await stack.handle(carol.event(JSON.stringify({ v: 1, type: 'unsubscribe', id: 'c1' })));
    await until(async () => (await dependencies()).length === 0, 'c1 gone');
    expect(await subscribe(carol, 'c2', ['c5', 'c6'])).toMatchObject({ type: 'result' });
    expect(await dependencies()).toEqual(ids('c5', 'c6'));

    carol.socket.close();
    await until(async () => (await stack.registryItems()).length === 0, 'an empty registry');
  });

  it('holds a burst of subscribes side by side within it', async () => {
    const dave = await rawConnection(stack, 'dave');
    const frame = (i: number) =>
      JSON.stringify({
        v: 1,
        type: 'subscribe',
        id: `d${i}`,
        query: 'totalOf',
        args: { accounts: [`d${i}-1`, `d${i}-2`] },
      });
    // Six subscribes of two reads each, all at once, as API Gateway would hand them over.
    await Promise.all(Array.from({ length: 6 }, (_, i) => stack.handle(dave.event(frame(i)))));
    await until(() => dave.received.length >= 6, 'an answer to every subscribe');
    const results = dave.received.filter((f) => f.type === 'result');
    const refused = dave.received.filter((f) => f.type === 'error');
    expect(results.length).toBeLessThanOrEqual(2);
    expect(refused.map((f) => f.error?.code)).toEqual(refused.map(() => 'LIMIT_EXCEEDED'));
    expect((await dependencies()).length).toBe(2 * results.length);
    // The refused ones gave their count back: the room left takes one more read.
    expect(await subscribe(dave, 'more', ['d-more'])).toMatchObject({ type: 'result' });

    dave.socket.close();
    await until(async () => (await stack.registryItems()).length === 0, 'an empty registry');
  });
});

describe("a scope's counts live exactly as long as their instances' runs", () => {
  it('leaves no count of a subscribe whose socket closed while its query ran', async () => {
    // Anonymous: the scope every anonymous subscriber shares.
    const anonymous = await rawConnection(stack);
    let release = () => {};
    gate.held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const started = new Promise<void>((resolve) => {
      gate.started = resolve;
    });
    const frame = {
      v: 1,
      type: 'subscribe',
      id: 'g1',
      query: 'gatedTotal',
      args: { accounts: ['g1', 'g2', 'g3'] },
    };
    const subscribing = stack.handle(anonymous.event(JSON.stringify(frame)));
    await started;
    // The socket closes while the query runs: $disconnect drops the instance it had made.
    const disconnect = anonymous.event('');
    await stack.handle({
      ...disconnect,
      requestContext: { ...disconnect.requestContext, routeKey: '$disconnect' },
    } as typeof disconnect);
    expect(await stack.registryItems()).toEqual([]);
    release();
    gate.held = Promise.resolve();
    await subscribing;
    // The run found its instance gone: no count of it is left in the anonymous scope.
    expect(await stack.registryItems()).toEqual([]);
    anonymous.socket.close();
  });

  it("keeps an instance's count while a new connection keeps the instance, past the count's first TTL", async () => {
    const first = await rawConnection(stack, 'erin');
    expect(await subscribe(first, 'e1', ['e1', 'e2', 'e3'])).toMatchObject({ type: 'result' });
    try {
      // Two hours on, a new connection subscribes the same query (renewing the instance), and
      // the first closes: the instance lives on.
      offset += 2 * HOUR;
      const second = await rawConnection(stack, 'erin');
      expect(await subscribe(second, 'e1', ['e1', 'e2', 'e3'])).toMatchObject({
        type: 'result',
      });
      first.socket.close();
      await until(
        async () => !(await stack.registryItems()).some((i) => i.pk === `C#${first.connectionId}`),
        'the first connection gone',
      );
      // Past the TTL the count had when first written: the instance's 3 reads still count.
      offset += 1.5 * HOUR;
      await stack.handle(second.event(JSON.stringify({ v: 1, type: 'ping', t: 1 })));
      expect(await subscribe(second, 'e2', ['e4', 'e5', 'e6'])).toMatchObject({
        type: 'error',
        error: { code: 'LIMIT_EXCEEDED', message: refusal(Account.ref('e6').id, MOST) },
      });
      expect(await dependencies()).toEqual(ids('e1', 'e2', 'e3'));
      second.socket.close();
      await until(async () => (await stack.registryItems()).length === 0, 'an empty registry');
    } finally {
      offset = 0;
    }
  });
});

describe('maxDependenciesPerScope', () => {
  it('is refused when it is not a number ≥ 0, as by the local engine', () => {
    const options = {
      actors: [Account],
      queries: [totalOf],
      store: { load: async () => undefined } as unknown as Store,
      queue: { send: async () => undefined } as unknown as Queue,
      dynamodb: { send: async () => ({}) } as unknown as DynamoDBClient,
      connectionsTable: 'connections',
    };
    expect(() => websocketHandler({ ...options, maxDependenciesPerScope: -1 })).toThrow(
      /invalid WebSocket handler options: maxDependenciesPerScope must be a number ≥ 0, got -1/,
    );
    expect(() => websocketHandler({ ...options, maxDependenciesPerScope: 0 })).not.toThrow();
  });
});
