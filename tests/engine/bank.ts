/**
 * A small bank for the engine tests. `bank()` builds fresh actor definitions with their own
 * handler-run counters, so every test counts only its own runs.
 */
import { actor, TerminalError } from '@baton/core';
import * as z from 'zod';

export function bank() {
  const runs = { deposit: 0, withdraw: 0, record: 0 };

  const Audit = actor({
    name: 'audit',
    state: z.object({ entries: z.array(z.string()) }),
    initial: () => ({ entries: [] as string[] }),
    handlers: {
      record: {
        public: true,
        payload: z.object({ entry: z.string() }),
        handle: (ctx, { entry }) => {
          runs.record++;
          ctx.state.entries.push(entry);
        },
      },
    },
  });

  const Account = actor({
    name: 'account',
    state: z.object({ balance: z.number(), history: z.array(z.string()) }),
    initial: () => ({ balance: 0, history: [] as string[] }),
    handlers: {
      deposit: {
        public: true,
        payload: z.object({ amount: z.number().int().positive() }),
        handle: (ctx, { amount }) => {
          runs.deposit++;
          ctx.state.balance += amount;
          ctx.state.history.push(`+${amount}`);
          return ctx.state.balance;
        },
      },
      withdraw: {
        public: true,
        payload: z.object({ amount: z.number().int().positive() }),
        handle: (ctx, { amount }) => {
          runs.withdraw++;
          // Change the draft and send before deciding: a rejection must undo both.
          ctx.state.balance -= amount;
          ctx.state.history.push(`-${amount}`);
          ctx.send(Audit.ref('log'), 'record', { entry: `${ctx.self.key} -${amount}` });
          if (ctx.state.balance < 0) {
            throw new TerminalError('insufficient funds', {
              details: { missing: -ctx.state.balance },
            });
          }
          return ctx.state.balance;
        },
      },
      /** Replies through ctx.reply rather than the return value. */
      balance: {
        public: true,
        payload: z.object({}),
        handle: (ctx) => {
          ctx.reply({ balance: ctx.state.balance });
          return 'ignored';
        },
      },
    },
  });

  return { Account, Audit, runs };
}
