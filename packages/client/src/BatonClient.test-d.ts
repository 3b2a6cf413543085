import { actor, query, type WorkflowRef, workflow } from '@baton/core';
import { describe, expectTypeOf, it } from 'vitest';
import * as z from 'zod';
import type { BatonClient } from './BatonClient.ts';
import type { QueryState } from './QueryState.ts';

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
  args: z.object({ account: z.string(), currency: z.string().default('EUR') }),
  handler: async (ctx, { account, currency }) => ({
    amount: (await ctx.get(Account.ref(account))).balance,
    currency,
  }),
});

/** Internal (no `public: true`): every door refuses it to clients, so their types refuse it. */
const ledger = query({
  name: 'ledger',
  args: z.object({ account: z.string() }),
  handler: async (ctx, { account }) => (await ctx.get(Account.ref(account))).balance,
});

declare const client: BatonClient;

describe('BatonClient types', () => {
  it('checks a query definition’s args and yields its result', () => {
    client.subscribe(balance, { account: 'alice' }, (state) => {
      expectTypeOf(state).toEqualTypeOf<QueryState<{ amount: number; currency: string }>>();
      if (state.status === 'success') expectTypeOf(state.data.amount).toBeNumber();
      if (state.status === 'error') {
        expectTypeOf(state.data).toEqualTypeOf<{ amount: number; currency: string } | undefined>();
        expectTypeOf(state.error.code).toBeString();
      }
    });
    // @ts-expect-error missing account
    client.subscribe(balance, {}, () => {});
    // @ts-expect-error account is a string
    client.subscribe(balance, { account: 1 }, () => {});
    client.subscribe('balance', { anything: true }, (state) => {
      expectTypeOf(state.data).toEqualTypeOf<unknown>();
    });
    expectTypeOf(client.getQueryState(balance, { account: 'a' }).data).toEqualTypeOf<
      { amount: number; currency: string } | undefined
    >();
  });

  it('takes only a public query, as the server refuses the others to clients', () => {
    // @ts-expect-error an internal query: the server answers FORBIDDEN
    client.subscribe(ledger, { account: 'alice' }, () => {});
    // @ts-expect-error nor may a client read its state
    client.getQueryState(ledger, { account: 'alice' });
    // @ts-expect-error nor observe it
    client.observe(ledger, { account: 'alice' });
    expectTypeOf(client.observe(balance, 'skip').getSnapshot().data).toEqualTypeOf<
      { amount: number; currency: string } | undefined
    >();
  });

  it('checks message names and payloads like core’s Client', () => {
    expectTypeOf(client.send(Account.ref('alice'), 'deposit', { amount: 5 })).toEqualTypeOf<
      Promise<{ messageId: string }>
    >();
    // @ts-expect-error unknown message
    void client.send(Account.ref('alice'), 'withdraw', { amount: 5 });
    // @ts-expect-error an internal handler: the server refuses it to clients
    void client.send(Account.ref('alice'), 'reset', {});
    // @ts-expect-error nor may a client ask it
    void client.ask(Account.ref('alice'), 'reset', {});
    // @ts-expect-error wrong payload
    void client.send(Account.ref('alice'), 'deposit', { amount: '5' });
    expectTypeOf(client.ask(Account.ref('alice'), 'deposit', { amount: 5 })).toEqualTypeOf<
      Promise<number>
    >();
  });

  it('checks a workflow start’s input and types its ref', () => {
    const Greet = workflow({
      name: 'greet',
      input: z.object({ name: z.string() }),
      run: async (_ctx, { name }) => `hi ${name}`,
    });
    const client = {} as BatonClient;
    expectTypeOf(client.start(Greet, 'g', { name: 'ada' })).resolves.toEqualTypeOf<
      WorkflowRef<{ name: string }, string>
    >();
    // @ts-expect-error: the input must match the workflow's schema
    client.start(Greet, 'g', { name: 1 });
    // Followed live, its output is what its run returns.
    client.subscribeWorkflow(Greet.ref('g'), ({ data }) => {
      expectTypeOf(data?.output).toEqualTypeOf<string | undefined>();
    });
  });

  it("checks a signal's event and payload against the workflow's events", () => {
    const Ship = workflow({
      name: 'ship',
      input: z.object({}),
      events: { shipped: z.object({ tracking: z.string() }) },
      run: async (ctx) => (await ctx.waitForEvent('shipped')).tracking,
    });
    const client = {} as BatonClient;
    const ref = Ship.ref('s');
    void client.send(ref, 'signal', { name: 'shipped', payload: { tracking: 'T-1' } });
    // @ts-expect-error: an event the workflow does not take
    void client.send(ref, 'signal', { name: 'shiped', payload: { tracking: 'T-1' } });
    // @ts-expect-error: the payload must match the event's schema
    void client.send(ref, 'signal', { name: 'shipped', payload: { tracking: 1 } });
    // The same through `signal`, which takes the event's name and payload apart.
    void client.signal(ref, 'shipped', { tracking: 'T-1' });
    // @ts-expect-error: an event the workflow does not take
    void client.signal(ref, 'shiped', { tracking: 'T-1' });
    // @ts-expect-error: the payload must match the event's schema
    void client.signal(ref, 'shipped', { tracking: 1 });
    // @ts-expect-error: the event's schema takes a payload
    void client.signal(ref, 'shipped');
    void client.cancel(ref, { reason: 'lost' });
  });
});
