import { describe, expectTypeOf, it } from 'vitest';
import * as z from 'zod';
import { actor, type StateOf } from '../actor.ts';
import type { Client } from '../client/Client.ts';
import type { WorkflowState } from './journal.ts';
import { type WorkflowRef, workflow } from './workflow.ts';

const Stock = actor({
  name: 'stock',
  state: z.object({ n: z.number() }),
  initial: () => ({ n: 0 }),
  handlers: {
    reserve: {
      payload: z.object({ qty: z.number() }),
      handle: (ctx, { qty }) => (ctx.state.n += qty),
    },
  },
});

const Order = workflow({
  name: 'order',
  input: z.object({ sku: z.string(), qty: z.number() }),
  run: async (ctx, input) => {
    expectTypeOf(input).toEqualTypeOf<{ sku: string; qty: number }>();
    const reserved = await ctx.call(
      Stock.ref(input.sku),
      'reserve',
      { qty: input.qty },
      {
        compensate: (reply, saga) => {
          // None when the call timed out or was dead-lettered (it may be applied all the same).
          expectTypeOf(reply).toEqualTypeOf<number | undefined>();
          return saga.call(Stock.ref(input.sku), 'reserve', { qty: -input.qty });
        },
      },
    );
    expectTypeOf(reserved).toEqualTypeOf<number>();
    const price = await ctx.step('price', () => 7);
    expectTypeOf(price).toEqualTypeOf<number>();
    return { total: price * input.qty };
  },
});

describe('workflow types', () => {
  it("types an instance's state as its record, so tests read it without a cast", () => {
    expectTypeOf<StateOf<typeof Order.actor>>().toEqualTypeOf<WorkflowState>();
    expectTypeOf<
      StateOf<NonNullable<ReturnType<typeof Order.ref>['__def']>>
    >().toEqualTypeOf<WorkflowState>();
  });

  it('types refs, starts and results from the definition', () => {
    const client = {} as Client;
    expectTypeOf(client.start(Order, 'o', { sku: 'a', qty: 1 })).resolves.toEqualTypeOf<
      WorkflowRef<{ sku: string; qty: number }, { total: number }>
    >();
    expectTypeOf(client.result(Order.ref('o'))).resolves.toEqualTypeOf<{ total: number }>();
    // @ts-expect-error: the input must match the workflow's schema
    client.start(Order, 'o', { sku: 1 });
  });

  it('types an actor sending the workflow its start', () => {
    actor({
      name: 'shop',
      state: z.object({}),
      initial: () => ({}),
      handlers: {
        buy: {
          payload: z.object({}),
          handle: (ctx) => {
            ctx.send(Order.ref('o'), 'start', { input: { sku: 'a', qty: 1 } });
            // @ts-expect-error: a start carries the workflow's input
            ctx.send(Order.ref('o'), 'start', { input: { sku: 2 } });
            expectTypeOf(ctx.start(Order, 'o', { sku: 'a', qty: 1 })).toEqualTypeOf<
              WorkflowRef<{ sku: string; qty: number }, { total: number }>
            >();
            // @ts-expect-error: ctx.start takes the workflow's input
            ctx.start(Order, 'o', { sku: 'a' });
            ctx.send(Order.ref('o'), 'signal', { name: 'paid', payload: { amount: 3 } });
            // @ts-expect-error: a signal names its event
            ctx.send(Order.ref('o'), 'signal', { bogus: true });
            ctx.send(Order.ref('o'), 'cancel', { reason: 'out of stock' });
            // @ts-expect-error: a cancel's reason is text
            ctx.send(Order.ref('o'), 'cancel', { reason: 3 });
          },
        },
      },
    });
  });
});
