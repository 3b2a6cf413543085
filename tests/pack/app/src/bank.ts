/** The app under test: an account actor and a live balance query, as a user would write them. */
import { actor, query, TerminalError } from '@baton/core';
import * as z from 'zod';

export const Account = actor({
  name: 'account',
  state: z.object({ balance: z.number().int() }),
  initial: () => ({ balance: 0 }),
  handlers: {
    deposit: {
      public: true,
      payload: z.object({ amount: z.number().int().positive() }),
      handle: (ctx, { amount }) => {
        ctx.state.balance += amount;
        return ctx.state.balance;
      },
    },
    transfer: {
      public: true,
      payload: z.object({ to: z.string().min(1), amount: z.number().int().positive() }),
      handle: (ctx, { to, amount }) => {
        if (ctx.state.balance < amount) throw new TerminalError('insufficient funds');
        ctx.state.balance -= amount;
        ctx.send(Account.ref(to), 'deposit', { amount });
        return ctx.state.balance;
      },
    },
  },
});

export const total = query({
  name: 'total',
  public: true,
  args: z.object({ accounts: z.array(z.string()) }),
  handler: async (ctx, { accounts }) => {
    const states = await Promise.all(accounts.map((key) => ctx.get(Account.ref(key))));
    return states.reduce((sum, state) => sum + state.balance, 0);
  },
});
