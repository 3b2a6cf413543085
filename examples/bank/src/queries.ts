/**
 * The bank's live query: the balances of some accounts and their total, re-run whenever one of
 * those accounts commits. A user sees only their own account; an admin sees any.
 */
import { query } from '@baton/core';
import * as z from 'zod';
import { Account, bankUser } from './bank.ts';

export const balances = query({
  name: 'balances',
  public: true,
  args: z.object({ accounts: z.array(z.string().min(1)).min(1).max(20) }),
  // Signed-in users only: a customer may ask for their own account alone, an admin for any.
  authorize: (caller, { accounts }) => {
    const user = bankUser(caller);
    return user?.role === 'admin' || accounts.every((account) => account === user?.userId);
  },
  handler: async (ctx, { accounts }) => {
    const rows = await Promise.all(
      accounts.map(async (account) => {
        const { balance, closed } = await ctx.get(Account.ref(account));
        return { account, balance, closed };
      }),
    );
    return { rows, total: rows.reduce((sum, row) => sum + row.balance, 0) };
  },
});
