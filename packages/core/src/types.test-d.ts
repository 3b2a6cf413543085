import { describe, expectTypeOf, it } from 'vitest';
import * as z from 'zod';
import type { ActorContext } from './ActorContext.ts';
import { actor, type MessageName, type PayloadOf, type ReplyOf } from './actor.ts';
import type { Client } from './client/Client.ts';
import type { SendResult } from './client/clientOptions.ts';

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
    type Ctx = Parameters<H['deposit']['handle']>[0];
    expectTypeOf<Ctx>().toMatchTypeOf<ActorContext<{ balance: number }>>();
    expectTypeOf<Ctx['state']>().toEqualTypeOf<{ balance: number }>();
    // `schedule` takes this actor's own message names, each with its payload.
    expectTypeOf<Parameters<Ctx['schedule']>[1]>().toEqualTypeOf<'deposit' | 'close'>();
  });
});

describe('Client types', () => {
  const Counter = actor({
    name: 'counter',
    state: z.object({ n: z.number() }),
    initial: () => ({ n: 0 }),
    handlers: {
      add: {
        payload: z.object({ by: z.number().default(1) }),
        handle: (ctx, { by }) => {
          ctx.state.n += by;
          return { n: ctx.state.n };
        },
      },
      reset: {
        payload: z.object({}),
        handle: async (ctx) => {
          ctx.state.n = 0;
        },
      },
    },
  });
  const client = {} as Client;

  it('type-checks a send payload against the message schema', () => {
    expectTypeOf(client.send(Account.ref('a'), 'deposit', { amount: 1 })).toEqualTypeOf<
      Promise<SendResult>
    >();
    // The payload is the schema's input: a defaulted field may be left out.
    void client.send(Counter.ref('c'), 'add', {});
    void client.send(Counter.ref('c'), 'add', { by: 2 }, { idempotencyKey: 'k' });
    // @ts-expect-error amount must be a number
    void client.send(Account.ref('a'), 'deposit', { amount: '1' });
    // @ts-expect-error amount is required
    void client.send(Account.ref('a'), 'deposit', {});
    // @ts-expect-error by must be a number
    void client.send(Counter.ref('c'), 'add', { by: 'two' });
  });

  it('rejects message names the actor has no handler for', () => {
    // @ts-expect-error unknown message
    void client.send(Account.ref('a'), 'withdraw', { amount: 1 });
    // @ts-expect-error unknown message
    void client.ask(Counter.ref('c'), 'deposit', { amount: 1 });
    // @ts-expect-error a message of another actor type
    void client.send(Counter.ref('c'), 'close', {});
  });

  it("resolves an ask with the handler's return type", () => {
    expectTypeOf(client.ask(Account.ref('a'), 'deposit', { amount: 1 })).toEqualTypeOf<
      Promise<number>
    >();
    expectTypeOf(client.ask(Account.ref('a'), 'close', {})).toEqualTypeOf<Promise<'closed'>>();
    expectTypeOf(client.ask(Counter.ref('c'), 'add', { by: 1 })).toEqualTypeOf<
      Promise<{ n: number }>
    >();
    expectTypeOf(client.ask(Counter.ref('c'), 'reset', {})).toEqualTypeOf<Promise<void>>();
    // @ts-expect-error amount must be a number
    void client.ask(Account.ref('a'), 'deposit', { amount: 'x' });
  });

  it('gives refs the type of their definition', () => {
    expectTypeOf(Counter.ref('c').type).toEqualTypeOf<'counter'>();
    expectTypeOf<PayloadOf<typeof Counter, 'add'>>().toEqualTypeOf<{ by?: number | undefined }>();
    expectTypeOf<ReplyOf<typeof Counter, 'add'>>().toEqualTypeOf<{ n: number }>();
    expectTypeOf<MessageName<typeof Counter>>().toEqualTypeOf<'add' | 'reset'>();
  });
});
