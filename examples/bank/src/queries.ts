/**
 * The bank's live query: the balances of some accounts and their total, re-run whenever one of
 * those accounts commits.
 */
import { query } from '@baton/core';
import { z } from 'zod';
import { Account } from './bank.ts';

export const balances = query({
  name: 'balances',
  args: z.object({ accounts: z.array(z.string().min(1)).min(1).max(20) }),
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
