/**
 * Order fulfilment as a workflow: hold the stock, charge the card (retried while the payment
 * service fails, one idempotency key for every attempt), then wait up to three days for the
 * warehouse to say it shipped. An order that does not ship in time, or that is cancelled (e.g.
 * from the inspector), is undone by the saga: the charge is refunded (the charge step's
 * compensation, outside work) and the stock goes back to the inventory (the reservation's
 * compensation, an actor call applied exactly once).
 */
import { workflow } from '@baton/core';
import * as z from 'zod';
import { Inventory, ORDER_ID_MAX, OrderBook, OrderId } from './inventory.ts';
import { payments } from './payments.ts';

const DAY = 24 * 60 * 60 * 1000;
/** How long the warehouse has to ship an order before it is refunded. */
export const SHIP_WITHIN_MS = 3 * DAY;

export const Fulfil = workflow({
  name: 'fulfil',
  input: z.object({
    sku: z.string(),
    qty: z.number().int().positive(),
    amount: z.number().positive(),
  }),
  events: { shipped: z.object({ tracking: z.string() }) },
  // Where an order stands, in the shop's words: the page shows it live (`useWorkflow`).
  progress: z.object({ stage: z.enum(['holding stock', 'charging', 'awaiting shipment']) }),
  // A demo shop without sign-in: anyone may place, follow and ship orders, of an id the
  // inventory can keep. A real one would check `caller` here too (e.g. only the warehouse's
  // service may send `shipped`).
  public: true,
  authorize: (_caller, { id }) => id.length <= ORDER_ID_MAX && OrderId.safeParse(id).success,
  // Orders stay on the books (the page lists every one); the default halts them after 7 days.
  retentionMs: Number.POSITIVE_INFINITY,
  run: async (ctx, { sku, qty, amount }) => {
    const orderId = ctx.id;
    ctx.send(OrderBook.ref('all'), 'placed', { orderId });
    const stock = Inventory.ref(sku);
    ctx.setProgress({ stage: 'holding stock' });
    // Exactly once, committed with this step of the workflow: refused when out of stock.
    await ctx.call(
      stock,
      'reserve',
      { orderId, qty },
      { compensate: (_, saga) => saga.call(stock, 'release', { orderId }) },
    );
    ctx.setProgress({ stage: 'charging' });
    const charge = await ctx.step(
      'charge',
      ({ key }) => payments().charge({ key, orderId, amount }),
      {
        retry: { maxAttempts: 6, initialDelayMs: 500, maxDelayMs: 10_000 },
        // Kept from the first attempt: a charge whose result was lost (a crash, a timeout) is
        // refunded too, found by the key its attempts carried. The refund's own key makes a
        // retried refund once, like the charge.
        compensate: (_, { key, stepKey }) => payments().refund({ key, chargeKey: stepKey }),
      },
    );
    ctx.setProgress({ stage: 'awaiting shipment' });
    // Typed by `events`: the payload the door checked against its schema.
    const { tracking } = await ctx.waitForEvent('shipped', { timeoutMs: SHIP_WITHIN_MS });
    // The stock left with the parcel: the inventory keeps holds of orders not yet shipped only.
    await ctx.call(stock, 'shipped', { orderId });
    return { charge: charge.id, tracking };
  },
});
