import { describe, expectTypeOf, it } from 'vitest';
import * as z from 'zod';
import { actor, type StateOf } from '../actor.ts';
import type { Client } from '../client/Client.ts';
import type { WorkflowState } from './journal.ts';
import { type ProgressOf, type WorkflowRef, type WorkflowRequest, workflow } from './workflow.ts';

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

const Approval = workflow({
  name: 'approval',
  input: z.object({ doc: z.string() }),
  events: {
    // Its input (what a sender passes) and output (what the run gets) differ.
    approved: z.object({ by: z.string(), amount: z.string().transform(Number) }),
    withdrawn: z.object({ note: z.string() }).optional(),
  },
  run: async (ctx) => {
    const approved = await ctx.waitForEvent('approved', { timeoutMs: 1_000 });
    expectTypeOf(approved).toEqualTypeOf<{ by: string; amount: number }>();
    const withdrawn = await ctx.waitForEvent('withdrawn');
    expectTypeOf(withdrawn).toEqualTypeOf<{ note: string } | undefined>();
    // @ts-expect-error: not one of its events
    await ctx.waitForEvent('aproved');
    // @ts-expect-error: its events type the payload: no type argument to claim another
    await ctx.waitForEvent<{ by: number }>('approved');
    return approved.amount;
  },
});

describe('workflow types', () => {
  it("types a workflow's declared events: the wait's payload, the signal's name and payload", async () => {
    const client = {} as Client;
    const ref = Approval.ref('a');
    client.signal(ref, 'approved', { by: 'ann', amount: '30' });
    client.signal(ref, 'approved', { by: 'ann', amount: '30' }, { idempotencyKey: 'k' });
    client.signal(ref, 'withdrawn');
    client.signal(ref, 'withdrawn', { note: 'no longer needed' });
    // @ts-expect-error: an event the workflow does not take
    client.signal(ref, 'aproved', { by: 'ann', amount: '30' });
    // @ts-expect-error: the payload is the event schema's input (amount: text)
    client.signal(ref, 'approved', { by: 'ann', amount: 30 });
    // @ts-expect-error: the event's payload is required
    client.signal(ref, 'approved');
    // The ref client.start returns is typed alike.
    const started = await client.start(Approval, 'b', { doc: 'd' });
    // @ts-expect-error: an event the workflow does not take
    client.signal(started, 'rejected', {});
    // A typed ref goes wherever a ref of any workflow does.
    expectTypeOf(client.result(ref)).resolves.toEqualTypeOf<number>();
    client.cancel(ref);
    const any: WorkflowRef = ref;
    client.signal(any, 'anything', 1);
  });

  it('takes any event name and payload of a workflow that declares no events', () => {
    const client = {} as Client;
    client.signal(Order.ref('o'), 'paid', { amount: 3 });
    client.signal(Order.ref('o'), 'go');
    workflow({
      name: 'free',
      input: z.object({}),
      run: async (ctx) => {
        expectTypeOf(await ctx.waitForEvent('go')).toEqualTypeOf<unknown>();
        expectTypeOf(await ctx.waitForEvent<string>('go')).toEqualTypeOf<string>();
      },
    });
  });

  it("narrows authorize's signal request to the workflow's declared events", () => {
    workflow({
      name: 'review',
      input: z.object({ doc: z.string() }),
      events: { approved: z.object({ by: z.string() }), withdrawn: z.object({}).optional() },
      public: true,
      authorize: (_caller, request) => {
        if (request.action === 'start')
          expectTypeOf(request.input).toEqualTypeOf<{ doc: string }>();
        if (request.action !== 'signal') return true;
        expectTypeOf(request.event).toEqualTypeOf<'approved' | 'withdrawn'>();
        // @ts-expect-error: not one of its events, so never asked about
        return request.event !== 'aproved';
      },
      run: async (ctx) => (await ctx.waitForEvent('approved')).by,
    });
    // An authorize written for any workflow's requests fits one with events too.
    const anyone = (_caller: unknown, request: WorkflowRequest) => request.action !== 'cancel';
    workflow({
      name: 'review-any',
      input: z.object({}),
      events: { approved: z.object({}) },
      public: true,
      authorize: anyone,
      run: async () => {},
    });
  });

  it("keeps authorize's signal event any name for a workflow without events", () => {
    workflow({
      name: 'open',
      input: z.object({}),
      public: true,
      authorize: (_caller, request) => {
        if (request.action === 'signal') expectTypeOf(request.event).toEqualTypeOf<string>();
        return true;
      },
      run: async () => {},
    });
    expectTypeOf<Extract<WorkflowRequest, { action: 'signal' }>['event']>().toEqualTypeOf<string>();
  });

  it("types an actor's signal of a workflow with events", () => {
    actor({
      name: 'reviewer',
      state: z.object({}),
      initial: () => ({}),
      handlers: {
        approve: {
          payload: z.object({}),
          handle: (ctx) => {
            ctx.send(Approval.ref('a'), 'signal', {
              name: 'approved',
              payload: { by: 'bot', amount: '1' },
            });
            ctx.send(Approval.ref('a'), 'signal', { name: 'withdrawn' });
            // @ts-expect-error: an event the workflow does not take
            ctx.send(Approval.ref('a'), 'signal', { name: 'aproved', payload: {} });
            // @ts-expect-error: the payload is the event schema's input
            ctx.send(Approval.ref('a'), 'signal', { name: 'approved', payload: { by: 1 } });
          },
        },
      },
    });
  });

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

  it("narrows a race's value by the winner's index", () => {
    workflow({
      name: 'raced',
      input: z.object({}),
      events: { paid: z.object({ amount: z.number() }) },
      run: async (ctx) => {
        const won = await ctx.race([ctx.waitForEvent('paid'), ctx.step('quote', () => 'q-1')]);
        expectTypeOf(won.index).toEqualTypeOf<0 | 1>();
        if (won.index === 0) expectTypeOf(won.value).toEqualTypeOf<{ amount: number }>();
        else expectTypeOf(won.value).toEqualTypeOf<string>();
        // Of an array that is no tuple: any index, any of its values.
        const quotes = ['a', 'b'].map((shop) => ctx.step(shop, () => 1));
        const first = await ctx.race(quotes);
        expectTypeOf(first).toEqualTypeOf<{ readonly index: number; readonly value: number }>();
        return null;
      },
    });
  });

  it('types what a step, a child and a result give as the JSON that is journaled', () => {
    const Dated = workflow({
      name: 'dated',
      input: z.object({}),
      run: async (ctx) => {
        const at = await ctx.step('at', () => new Date(), {
          compensate: (result) => {
            expectTypeOf(result).toEqualTypeOf<string | undefined>();
          },
        });
        expectTypeOf(at).toEqualTypeOf<string>();
        const seen = await ctx.step('seen', async () => new Map<string, number>());
        expectTypeOf(seen).toEqualTypeOf<Record<string, never>>();
        const total = await ctx.child(Order, 'o', { sku: 'a', qty: 1 });
        expectTypeOf(total).toEqualTypeOf<{ total: number }>();
        return { at: new Date(at), note: undefined as string | undefined };
      },
    });
    const client = {} as Client;
    expectTypeOf(client.result(Dated.ref('d'))).resolves.toEqualTypeOf<{
      at: string;
      note?: string;
    }>();
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

describe('ctx.setProgress', () => {
  it("takes the input of the workflow's progress schema, and any value without one", () => {
    const Pack = workflow({
      name: 'pack',
      input: z.object({}),
      progress: z.object({ stage: z.enum(['packing', 'shipped']), packed: z.number() }),
      run: async (ctx) => {
        ctx.setProgress({ stage: 'packing', packed: 1 });
        // @ts-expect-error: a stage the schema does not name
        ctx.setProgress({ stage: 'lost', packed: 1 });
        // @ts-expect-error: the schema's fields are required
        ctx.setProgress({ stage: 'shipped' });
      },
    });
    const Free = workflow({
      name: 'free',
      input: z.object({}),
      run: async (ctx) => {
        expectTypeOf(ctx.setProgress).parameter(0).toEqualTypeOf<unknown>();
      },
    });
    // Its readers get it typed by the schema, and unknown without one.
    const client = {} as Client;
    const status = async () => (await client.workflowStatus(Pack.ref('p'))).progress;
    expectTypeOf(status).returns.resolves.toEqualTypeOf<
      { stage: 'packing' | 'shipped'; packed: number } | undefined
    >();
    const free = async () => (await client.workflowStatus(Free.ref('f'))).progress;
    expectTypeOf(free).returns.resolves.toEqualTypeOf<unknown>();
    expectTypeOf<ProgressOf<typeof Pack>>().toEqualTypeOf<{
      stage: 'packing' | 'shipped';
      packed: number;
    }>();
    expectTypeOf<ProgressOf<typeof Free>>().toEqualTypeOf<unknown>();
    workflow({
      name: 'maybe',
      input: z.object({}),
      progress: z.string().optional(),
      run: async (ctx) => {
        ctx.setProgress('a');
        // @ts-expect-error: undefined is no JSON, whatever the schema takes
        ctx.setProgress(undefined);
      },
    });
  });
});
