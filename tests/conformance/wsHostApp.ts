/**
 * The app both WebSocket hosts serve in the host conformance suite: a counter with a public
 * handler, an internal one and one its owner alone may call, a query of each kind, and a
 * handler and a query that answer with `ctx.caller`. Every connection signs in: the token is
 * the user's name ('intruder' and no token are refused).
 */
import { actor, type Caller, defineApp, query, type Target } from '@baton/core';
import * as z from 'zod';

/** The signed-in user's name, if the caller is one. */
function userOf(caller: Caller): string | undefined {
  return caller.kind === 'user' ? (caller.identity as { user?: string }).user : undefined;
}

const owner = (caller: Caller, target: Target) => userOf(caller) === target.key;

export const Counter = actor({
  name: 'counter',
  state: z.object({ count: z.number().int(), messages: z.number().int() }),
  initial: () => ({ count: 0, messages: 0 }),
  handlers: {
    add: {
      public: true,
      payload: z.object({ by: z.number().int() }),
      handle: (ctx, { by }) => {
        ctx.state.count += by;
        ctx.state.messages++;
        return ctx.state.count;
      },
    },
    /** How many messages changed the counter: exactly-once is counted here. */
    messages: { public: true, payload: z.object({}), handle: (ctx) => ctx.state.messages },
    // Internal: no client may send it.
    reset: {
      payload: z.object({}),
      handle: (ctx) => {
        ctx.state.count = 0;
        ctx.state.messages++;
      },
    },
    // Public, but only the counter's owner passes `authorize`.
    own: {
      public: true,
      authorize: owner,
      payload: z.object({ by: z.number().int() }),
      handle: (ctx, { by }) => {
        ctx.state.count += by;
        ctx.state.messages++;
        return ctx.state.count;
      },
    },
    /** Who sent it, as the handler sees it. */
    whoami: { public: true, payload: z.object({}), handle: (ctx) => ctx.caller },
  },
});

const Args = z.object({ counter: z.string().min(1) });

export const count = query({
  name: 'count',
  public: true,
  args: Args,
  handler: async (ctx, { counter }) => (await ctx.get(Counter.ref(counter))).count,
});

/** Internal: no client may subscribe to it. */
export const rawCount = query({
  name: 'rawCount',
  args: Args,
  handler: async (ctx, { counter }) => ctx.get(Counter.ref(counter)),
});

/** Public, but a user sees only their own counter. */
export const ownCount = query({
  name: 'ownCount',
  public: true,
  args: Args,
  authorize: (caller, { counter }) => userOf(caller) === counter,
  handler: async (ctx, { counter }) => (await ctx.get(Counter.ref(counter))).count,
});

/** Who subscribed, as the query sees it. */
export const whoami = query({
  name: 'whoami',
  public: true,
  args: z.object({}),
  handler: async (ctx) => ctx.caller,
});

export default defineApp({
  actors: [Counter],
  queries: [count, rawCount, ownCount, whoami],
  auth: ({ token }) => {
    if (token === undefined || token === 'intruder') throw new Error('sign in with a valid token');
    return { user: token };
  },
});

/**
 * The per-connection caps both hosts run the suite with. The clock stands still (every frame of
 * a connection falls in one second), so each test sends fewer frames than the rate allows but
 * the rate test.
 */
export const LIMITS = { maxSubscriptions: 2, maxFramesPerSecond: 25 } as const;

/**
 * A clock that stands still, 400 ms into a second: a refused frame may retry after 600 ms. It
 * stands at today's date: registry items get a TTL from it, and DynamoDB Local deletes items
 * whose TTL has passed.
 */
const FROZEN_AT = Math.floor(Date.now() / 1000) * 1000 + 400;
export const frozenClock = { now: () => FROZEN_AT };
