import type { BatonError } from '@baton/core';
import { actor, query } from '@baton/core';
import { describe, expectTypeOf, it } from 'vitest';
import * as z from 'zod';
import { useAsk } from './useAsk.ts';
import { useConnectionState } from './useConnectionState.ts';
import { useQuery } from './useQuery.ts';
import { useSend } from './useSend.ts';

const Account = actor({
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
    /** Internal: only actors and trusted code send it, so a client's types refuse it. */
    reset: {
      payload: z.object({}),
      handle: (ctx) => {
        ctx.state.balance = 0;
      },
    },
  },
});

const balance = query({
  name: 'balance',
  public: true,
  args: z.object({ account: z.string() }),
  handler: async (ctx, { account }) => ({
    account,
    balance: (await ctx.get(Account.ref(account))).balance,
  }),
});

/** Internal (no `public: true`): every door refuses it to clients, so `useQuery` refuses it. */
const ledger = query({
  name: 'ledger',
  args: z.object({ account: z.string() }),
  handler: async (ctx, { account }) => (await ctx.get(Account.ref(account))).balance,
});

describe('useQuery types', () => {
  it('infers data from the query definition', () => {
    const state = useQuery(balance, { account: 'alice' });
    expectTypeOf(state.status).toEqualTypeOf<'pending' | 'success' | 'error'>();
    expectTypeOf(state.data).toEqualTypeOf<{ account: string; balance: number } | undefined>();
    expectTypeOf(state.error).toEqualTypeOf<BatonError | undefined>();
    expectTypeOf(state.version).toEqualTypeOf<number | undefined>();
    if (state.status === 'success') {
      expectTypeOf(state.data).toEqualTypeOf<{ account: string; balance: number }>();
      expectTypeOf(state.version).toBeNumber();
    }
    if (state.status === 'error') expectTypeOf(state.error).toEqualTypeOf<BatonError>();
  });

  it('checks args, and takes skip', () => {
    useQuery(balance, 'skip');
    // @ts-expect-error account must be a string
    useQuery(balance, { account: 5 });
    // @ts-expect-error account is required
    useQuery(balance, {});
  });

  it('takes only a public query, as the server refuses the others to clients', () => {
    // @ts-expect-error an internal query: the server answers FORBIDDEN
    useQuery(ledger, { account: 'alice' });
    // @ts-expect-error even skipped
    useQuery(ledger, 'skip');
  });

  it('types a query by name with an explicit data type', () => {
    expectTypeOf(useQuery<number>('total', {}).data).toEqualTypeOf<number | undefined>();
    expectTypeOf(useQuery('total', {}).data).toEqualTypeOf<unknown>();
  });

  it('types sends, asks and the connection state', () => {
    const send = useSend({ visible: true });
    expectTypeOf(send(Account.ref('a'), 'deposit', { amount: 1 })).toEqualTypeOf<
      Promise<{ messageId: string }>
    >();
    // @ts-expect-error wrong payload
    void send(Account.ref('a'), 'deposit', { amount: '1' });
    // @ts-expect-error an internal handler: the server refuses it to clients
    void send(Account.ref('a'), 'reset', {});
    const ask = useAsk();
    expectTypeOf(ask(Account.ref('a'), 'deposit', { amount: 1 })).toEqualTypeOf<Promise<number>>();
    expectTypeOf(useConnectionState()).toEqualTypeOf<
      'connecting' | 'open' | 'reconnecting' | 'closed'
    >();
  });
});
