import { describe, expectTypeOf, it } from 'vitest';
import * as z from 'zod';
import { actor } from './actor.ts';
import {
  type AnyPublicQueryDefinition,
  type AnyQueryDefinition,
  type ArgsOf,
  type IdentityOf,
  type QueryContext,
  query,
  type ResultOf,
} from './query.ts';

const Account = actor({
  name: 'account',
  state: z.object({ balance: z.number(), owner: z.string() }),
  initial: () => ({ balance: 0, owner: '' }),
  handlers: {},
});

const totalBalance = query({
  name: 'totalBalance',
  args: z.object({ accounts: z.array(z.string()), minimum: z.number().default(0) }),
  handler: async (ctx, args) => {
    expectTypeOf(args).toEqualTypeOf<{ accounts: string[]; minimum: number }>();
    expectTypeOf(ctx.identity).toEqualTypeOf<unknown>();
    const states = await Promise.all(args.accounts.map((key) => ctx.get(Account.ref(key))));
    expectTypeOf(states).toEqualTypeOf<{ balance: number; owner: string }[]>();
    return { total: states.reduce((sum, s) => sum + s.balance, 0) };
  },
});

interface User {
  readonly userId: string;
}

const myBalance = query({
  name: 'myBalance',
  args: z.object({}),
  handler: async (ctx: QueryContext<User>) => {
    expectTypeOf(ctx.identity).toEqualTypeOf<User>();
    return (await ctx.get(Account.ref(ctx.identity.userId))).balance;
  },
});

describe('query types', () => {
  it('infers the name, the args (input and output) and the result', () => {
    expectTypeOf(totalBalance.name).toEqualTypeOf<'totalBalance'>();
    expectTypeOf(totalBalance.kind).toEqualTypeOf<'query'>();
    expectTypeOf<ArgsOf<typeof totalBalance>>().toEqualTypeOf<{
      accounts: string[];
      minimum?: number | undefined;
    }>();
    expectTypeOf<ResultOf<typeof totalBalance>>().toEqualTypeOf<{ total: number }>();
  });

  it('unwraps a synchronous result and types the identity from the ctx annotation', () => {
    const answer = query({ name: 'answer', args: z.object({}), handler: () => 42 as const });
    expectTypeOf<ResultOf<typeof answer>>().toEqualTypeOf<42>();
    expectTypeOf<ResultOf<typeof myBalance>>().toEqualTypeOf<number>();
    expectTypeOf<IdentityOf<typeof myBalance>>().toEqualTypeOf<User>();
    expectTypeOf<IdentityOf<typeof totalBalance>>().toEqualTypeOf<unknown>();
  });

  it('keeps `public` as a literal type: only a `public: true` query is a public one', () => {
    const open = query({ name: 'open', public: true, args: z.object({}), handler: () => 1 });
    const closed = query({ name: 'closed', public: false, args: z.object({}), handler: () => 1 });
    expectTypeOf(open.public).toEqualTypeOf<true | undefined>();
    expectTypeOf(closed.public).toEqualTypeOf<false | undefined>();
    expectTypeOf(totalBalance.public).toEqualTypeOf<false | undefined>();
    expectTypeOf(open).toExtend<AnyPublicQueryDefinition>();
    expectTypeOf(closed).not.toExtend<AnyPublicQueryDefinition>();
    expectTypeOf(totalBalance).not.toExtend<AnyPublicQueryDefinition>();
    // Public or not, each is a query a server runs.
    const all: readonly AnyQueryDefinition[] = [open, closed];
    void all;
  });

  it('makes every query an AnyQueryDefinition', () => {
    expectTypeOf(totalBalance).toExtend<AnyQueryDefinition>();
    expectTypeOf(myBalance).toExtend<AnyQueryDefinition>();
    const all: readonly AnyQueryDefinition[] = [totalBalance, myBalance];
    void all;
  });

  it('types now, random, uuid and send as never returning', () => {
    const ctx = {} as QueryContext;
    expectTypeOf(ctx.now).returns.toBeNever();
    expectTypeOf(ctx.random).returns.toBeNever();
    expectTypeOf(ctx.send).returns.toBeNever();
  });

  it('rejects a ref that is not an actor ref', () => {
    query({
      name: 'bad',
      args: z.object({}),
      handler: async (ctx) => {
        // @ts-expect-error a string is not a ref
        await ctx.get('account/alice');
        // @ts-expect-error the state has no field "nope"
        return (await ctx.get(Account.ref('a'))).nope;
      },
    });
  });
});
