import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { actor } from './actor.ts';
import type { ActorContext } from './context.ts';

const Account = actor({
  name: 'account',
  state: z.object({ balance: z.number() }),
  initial: () => ({ balance: 0 }),
  handlers: {
    deposit: {
      payload: z.object({ amount: z.number() }),
      handle: (ctx, p) => {
        expectTypeOf(p).toEqualTypeOf<{ amount: number }>();
        expectTypeOf(ctx.state).toEqualTypeOf<{ balance: number }>();
        ctx.state.balance += p.amount;
        return ctx.state.balance;
      },
    },
    close: {
      payload: z.object({}),
      handle: async (ctx) => {
        ctx.send(Account.ref('x'), 'deposit', { amount: 1 });
        // @ts-expect-error wrong payload
        ctx.send(Account.ref('x'), 'deposit', { amount: 'no' });
        // @ts-expect-error unknown message
        ctx.send(Account.ref('x'), 'nope', {});
        return 'closed' as const;
      },
    },
  },
});

describe('types', () => {
  it('infers', () => {
    expectTypeOf(Account.name).toEqualTypeOf<'account'>();
    type H = typeof Account.handlers;
    expectTypeOf<Awaited<ReturnType<H['close']['handle']>>>().toEqualTypeOf<'closed'>();
    expectTypeOf<Awaited<ReturnType<H['deposit']['handle']>>>().toEqualTypeOf<number>();
    expectTypeOf<Parameters<H['deposit']['handle']>[0]>().toEqualTypeOf<ActorContext<{ balance: number }>>();
  });
});
