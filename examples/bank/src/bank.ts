/**
 * The bank: accounts that move money between each other exactly once. A transfer withdraws
 * here and sends a credit to the other account; an account that cannot take the credit (closed,
 * or at its balance limit) sends the money back, so a transfer never loses it.
 *
 * Who may do what: a signed-in user moves money only out of their own account (`withdraw`,
 * `transfer`); deposits, closing and reading a balance are for the owner or an admin; `credit`
 * and `refund` are internal — only accounts send them, no client can. A refund tells the sender
 * that the other account is closed or near its limit: a bank that must not tell would check
 * the receiver before withdrawing (an ask), or hold refused credits for review.
 */
import { actor, type Caller, type Target, TerminalError } from '@baton/core';
import * as z from 'zod';
import { BankUser } from './users.ts';

/** The most one deposit, withdrawal or transfer moves, in cents: $10 million. */
export const MAX_AMOUNT = 1_000_000_000;
/**
 * The most a deposit or a credit takes a balance to, in cents: $10 billion. A refund may pass
 * it (it gives back what was taken), by no more than what is in flight, far within exact
 * integers: an account near its limit refuses credits, never loses them.
 */
export const MAX_BALANCE = 1_000_000_000_000;

const Amount = z.number().int().positive().max(MAX_AMOUNT);

/** The signed-in bank user calling, if any. */
export function bankUser(caller: Caller): BankUser | undefined {
  return caller.kind === 'user' ? BankUser.safeParse(caller.identity).data : undefined;
}

/** The account's owner. */
const owner = (caller: Caller, target: Target) => bankUser(caller)?.userId === target.key;

/** The account's owner, or an admin. */
const ownerOrAdmin = (caller: Caller, target: Target) =>
  owner(caller, target) || bankUser(caller)?.role === 'admin';

export const Account = actor({
  name: 'account',
  state: z.object({ balance: z.number().int(), closed: z.boolean() }),
  initial: () => ({ balance: 0, closed: false }),
  handlers: {
    deposit: {
      public: true,
      authorize: ownerOrAdmin,
      payload: z.object({ amount: Amount }),
      handle: (ctx, { amount }) => {
        if (ctx.state.closed) throw new TerminalError(`account ${ctx.self.key} is closed`);
        if (ctx.state.balance + amount > MAX_BALANCE) {
          throw new TerminalError(
            `a deposit of ${amount} would take the balance past its limit of ${MAX_BALANCE}`,
          );
        }
        ctx.state.balance += amount;
        return ctx.state.balance;
      },
    },
    withdraw: {
      public: true,
      authorize: owner,
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
      public: true,
      authorize: owner,
      // An account is a user's: money sent to a key no user can hold would be nobody's.
      payload: z.object({ to: BankUser.shape.userId, amount: Amount }),
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
    // Internal: only an account's transfer sends it.
    credit: {
      payload: z.object({ from: z.string(), amount: Amount }),
      handle: (ctx, { from, amount }) => {
        if (ctx.caller.kind !== 'actor' && ctx.caller.kind !== 'system') {
          throw new TerminalError('credit is sent by accounts only');
        }
        const refused = ctx.state.closed
          ? 'account closed'
          : ctx.state.balance + amount > MAX_BALANCE
            ? 'balance limit'
            : undefined;
        if (refused) {
          ctx.log.info(`credit refused: ${refused}`, { from, amount });
          ctx.send(Account.ref(from), 'refund', { amount });
          return;
        }
        ctx.state.balance += amount;
      },
    },
    // Internal: only an account that refused a credit sends it. It gives back what the transfer
    // took, so it never refuses.
    refund: {
      payload: z.object({ amount: Amount }),
      handle: (ctx, { amount }) => {
        ctx.state.balance += amount;
      },
    },
    close: {
      public: true,
      authorize: ownerOrAdmin,
      payload: z.object({}),
      handle: (ctx) => {
        ctx.state.closed = true;
      },
    },
    balance: {
      public: true,
      authorize: ownerOrAdmin,
      payload: z.object({}),
      handle: (ctx) => ctx.state.balance,
    },
  },
});
