/**
 * The shop's actors: an inventory per product (stock, and what each order not yet shipped holds
 * of it) and the order book (which orders were placed, for the page's list).
 */
import { actor, query, TerminalError } from '@baton/core';
import * as z from 'zod';

/**
 * An order id as the inventory keeps it, a key of `held`: it begins with a letter or a digit, so
 * no client's order can be named `__proto__` (which a record's parse drops), and `held` is read
 * with `Object.hasOwn`, so no name an object has of its own (`constructor`) reads as held.
 */
export const OrderId = z
  .string()
  .regex(/^[A-Za-z0-9][\w-]*$/, 'an order id begins with a letter or a digit');

/**
 * The longest order id the shop takes at its door (the workflow's `authorize`): every order not
 * yet shipped is an entry of its product's record. Not in `OrderId`, so that an order placed
 * before the bound still ships or gives its stock back.
 */
export const ORDER_ID_MAX = 64;

export const Inventory = actor({
  name: 'inventory',
  state: z.object({ stock: z.number(), held: z.record(z.string(), z.number()) }),
  initial: () => ({ stock: 0, held: {} as Record<string, number> }),
  handlers: {
    /** Adds stock (the shop's own code, or anyone on this demo's page). */
    restock: {
      public: true,
      payload: z.object({ qty: z.number().int().positive() }),
      handle: (ctx, { qty }) => {
        ctx.state.stock += qty;
        return ctx.state.stock;
      },
    },
    /**
     * Holds `qty` for `orderId`; refused when too little is left. No check for a repeat: the
     * workflow's `ctx.call` is applied exactly once, crashes and redeliveries included.
     */
    reserve: {
      payload: z.object({ orderId: OrderId, qty: z.number().int().positive() }),
      handle: (ctx, { orderId, qty }) => {
        if (ctx.state.stock < qty) {
          throw new TerminalError(
            `only ${ctx.state.stock} of ${ctx.self.key} left, ${qty} asked: restock it and order again`,
          );
        }
        ctx.state.stock -= qty;
        ctx.state.held[orderId] = heldFor(ctx.state.held, orderId) + qty;
        return { left: ctx.state.stock };
      },
    },
    /** The stock `orderId` holds has left the warehouse: its hold is done with. */
    shipped: {
      payload: z.object({ orderId: OrderId }),
      handle: (ctx, { orderId }) => {
        delete ctx.state.held[orderId];
      },
    },
    /** Gives back what `orderId` holds (an order that will not ship). */
    release: {
      payload: z.object({ orderId: OrderId }),
      handle: (ctx, { orderId }) => {
        const qty = heldFor(ctx.state.held, orderId);
        if (qty === 0) return { left: ctx.state.stock };
        ctx.state.stock += qty;
        delete ctx.state.held[orderId];
        return { left: ctx.state.stock };
      },
    },
  },
});

/** What `orderId` holds: its own entry only. */
function heldFor(held: Record<string, number>, orderId: string): number {
  return Object.hasOwn(held, orderId) ? held[orderId]! : 0;
}

/**
 * Orders the book keeps: the newest, so that its record — written whole by every order —
 * stays small however many orders the shop takes.
 */
export const ORDER_BOOK_SIZE = 200;

export const OrderBook = actor({
  name: 'orderBook',
  state: z.object({ orders: z.array(z.string()) }),
  initial: () => ({ orders: [] as string[] }),
  handlers: {
    placed: {
      payload: z.object({ orderId: z.string() }),
      handle: (ctx, { orderId }) => {
        if (ctx.state.orders.includes(orderId)) return;
        ctx.state.orders.push(orderId);
        if (ctx.state.orders.length > ORDER_BOOK_SIZE) ctx.state.orders.shift();
      },
    },
  },
});

/** The products the shop sells. */
export const PRODUCTS = ['kettle', 'teapot'] as const;

/** Each product's stock left, live. */
export const stockLevels = query({
  name: 'stockLevels',
  public: true,
  args: z.object({}),
  handler: async (ctx) => {
    const levels: Record<string, number> = {};
    for (const sku of PRODUCTS) levels[sku] = (await ctx.get(Inventory.ref(sku))).stock;
    return levels;
  },
});

/** The ids of the newest orders placed ({@link ORDER_BOOK_SIZE}), oldest first, live. */
export const orderList = query({
  name: 'orderList',
  public: true,
  args: z.object({}),
  handler: async (ctx) => (await ctx.get(OrderBook.ref('all'))).orders,
});
