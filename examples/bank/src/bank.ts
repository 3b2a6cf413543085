/**
 * The bank: accounts that move money between each other exactly once. A transfer withdraws
 * here and sends a credit to the other account; a closed account refuses the credit and sends
 * the money back.
 */
import { actor, TerminalError } from '@baton/core';
import { z } from 'zod';

const Amount = z.number().int().positive();

export const Account = actor({
  name: 'account',
  state: z.object({ balance: z.number().int(), closed: z.boolean() }),
  initial: () => ({ balance: 0, closed: false }),
  handlers: {
    deposit: {
      payload: z.object({ amount: Amount }),
      handle: (ctx, { amount }) => {
        if (ctx.state.closed) throw new TerminalError(`account ${ctx.self.key} is closed`);
        ctx.state.balance += amount;
        return ctx.state.balance;
      },
    },
    withdraw: {
      payload: z.object({ amount: Amount }),
      handle: (ctx, { amount }) => {
        if (ctx.state.balance < amount) {
          throw new TerminalError(
            `insufficient funds: balance ${ctx.state.balance}, asked ${amount}`,
          );
        }
        ctx.state.balance -= amount;
        return ctx.state.balance;
      },
    },
    transfer: {
      payload: z.object({ to: z.string().min(1), amount: Amount }),
      handle: (ctx, { to, amount }) => {
        if (ctx.state.balance < amount) {
          throw new TerminalError(
            `insufficient funds: balance ${ctx.state.balance}, asked ${amount}`,
          );
        }
        ctx.state.balance -= amount;
        ctx.send(Account.ref(to), 'credit', { from: ctx.self.key, amount });
        return ctx.state.balance;
      },
    },
    credit: {
      payload: z.object({ from: z.string(), amount: Amount }),
      handle: (ctx, { from, amount }) => {
        if (ctx.state.closed) {
          ctx.log.info('credit refused: account closed', { from, amount });
          ctx.send(Account.ref(from), 'refund', { amount });
          return;
        }
        ctx.state.balance += amount;
      },
    },
    refund: {
      payload: z.object({ amount: Amount }),
      handle: (ctx, { amount }) => {
        ctx.state.balance += amount;
      },
    },
    close: {
      payload: z.object({}),
      handle: (ctx) => {
        ctx.state.closed = true;
      },
    },
    balance: {
      payload: z.object({}),
      handle: (ctx) => ctx.state.balance,
    },
  },
});
