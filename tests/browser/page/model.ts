/**
 * The browser test's app: accounts, a public balance query and a private one that only the
 * account's owner may see, and a public workflow whose progress the page follows. Shared by the page (bundled) and the server (in Node).
 */
import { actor, type QueryContext, query, TerminalError, workflow } from '@baton/core';
import * as z from 'zod';

export const Account = actor({
  name: 'account',
  state: z.object({ balance: z.number() }),
  initial: () => ({ balance: 0 }),
  handlers: {
    deposit: {
      public: true,
      payload: z.object({ amount: z.number() }),
      handle: (ctx, { amount }) => {
        ctx.state.balance += amount;
        return ctx.state.balance;
      },
    },
    balance: {
      public: true,
      payload: z.object({}),
      handle: (ctx) => ctx.state.balance,
    },
  },
});

/** Who a connection is: what the server's auth hook makes of its token. */
export interface User {
  readonly user: string;
}

/** Anyone's balance. */
export const balance = query({
  name: 'balance',
  public: true,
  args: z.object({ account: z.string() }),
  handler: async (ctx, { account }) => (await ctx.get(Account.ref(account))).balance,
});

/** The balance of the subscriber's own account; anyone else is refused. */
export const privateBalance = query({
  name: 'privateBalance',
  public: true,
  args: z.object({ account: z.string() }),
  handler: async (ctx: QueryContext<User | undefined>, { account }) => {
    if (ctx.identity?.user !== account) {
      throw new TerminalError(`${ctx.identity?.user ?? 'nobody'} may not see ${account}'s balance`);
    }
    return (await ctx.get(Account.ref(account))).balance;
  },
});

/** Washes, waits for the `dried` event, folds: its progress is what the page's workflow view shows. */
export const Laundry = workflow({
  name: 'laundry',
  public: true,
  input: z.object({ basket: z.string() }),
  events: { dried: z.object({}) },
  run: async (ctx, { basket }) => {
    await ctx.step('wash', () => `washed ${basket}`);
    await ctx.waitForEvent('dried');
    await ctx.step('fold', () => `folded ${basket}`);
    return { folded: basket };
  },
});
