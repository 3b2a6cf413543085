/**
 * Order fulfilment on virtual time (`@baton/testing`'s Simulation): the three-day wait for the
 * warehouse passes in milliseconds. Every call to the payment service is counted, and each
 * order must be charged once (one idempotency key across its retries) and refunded at most once.
 */
import { callerOf, ErrorCode, type WorkflowState } from '@baton/core';
import { noFaults, Simulation } from '@baton/testing';
import { describe, expect, it } from 'vitest';
import app from './app.ts';
import { Fulfil, SHIP_WITHIN_MS } from './fulfil.ts';
import { Inventory, ORDER_BOOK_SIZE, OrderBook } from './inventory.ts';
import { type FakePayments, fakePayments, setPayments } from './payments.ts';

/** A simulation of the app whose payment service fails the calls `fails` picks. */
async function shop(options: { fails: (n: number) => boolean; faults?: boolean; seed?: number }) {
  const service = fakePayments({ fails: options.fails });
  setPayments(service);
  const sim = new Simulation({
    actors: app.actors,
    seed: options.seed ?? 1,
    ...(options.faults ? {} : { faults: noFaults }),
  });
  sim.send(Inventory.ref('kettle'), 'restock', { qty: 10 });
  await sim.run();
  return { sim, service };
}

const order = async (sim: Simulation, id: string) =>
  (await sim.state(Fulfil.ref(id))) as unknown as WorkflowState;
const chargesOf = (service: FakePayments, orderId: string) =>
  [...service.charges.values()].filter((c) => c.orderId === orderId);

describe('order fulfilment', () => {
  it('holds the stock, charges once through the payment service’s failures, and ships', async () => {
    // The first two calls fail: the charge is retried on durable backoff with one key.
    const { sim, service } = await shop({ fails: (n) => n <= 2 });
    sim.send(Fulfil.ref('o-1'), 'start', { input: { sku: 'kettle', qty: 2, amount: 40 } });
    sim.send(Fulfil.ref('o-1'), 'signal', { name: 'shipped', payload: { tracking: 'T-1' } });
    await sim.run();

    const state = await order(sim, 'o-1');
    expect(state.status).toBe('completed');
    expect(state.output).toEqual({ charge: 'ch-1', tracking: 'T-1' });
    // At least once per attempt (a turn that loses a race runs its step again), charged once.
    expect(service.calls).toBeGreaterThanOrEqual(3);
    expect(service.charges.size).toBe(1);
    expect(state.journal.find((e) => e.name === 'charge')?.attempts).toBe(3);
    expect(service.refunds.size).toBe(0);
    // Shipped: its stock gone, its hold done with.
    expect(await sim.state(Inventory.ref('kettle'))).toEqual({ stock: 8, held: {} });
  });

  it('refunds the charge and gives the stock back when the warehouse does not ship within three days', async () => {
    const { sim, service } = await shop({ fails: () => false });
    const startedAt = sim.clock.now();
    sim.send(Fulfil.ref('o-2'), 'start', { input: { sku: 'kettle', qty: 3, amount: 60 } });
    await sim.run();

    const state = await order(sim, 'o-2');
    expect(state.status).toBe('failed');
    expect(state.error?.code).toBe(ErrorCode.TIMED_OUT);
    expect(sim.clock.now() - startedAt).toBeGreaterThanOrEqual(SHIP_WITHIN_MS);
    expect(chargesOf(service, 'o-2')).toHaveLength(1);
    // Refunded once, under the compensation's own key (the charge's is `charge:0`).
    expect([...service.refunds.entries()]).toEqual([
      [`${Fulfil.ref('o-2').id}:${state.runId}:charge:1`, 'ch-1'],
    ]);
    expect(await sim.state(Inventory.ref('kettle'))).toEqual({ stock: 10, held: {} });
    // A shipment after the deadline changes nothing, and its outcome says it was not taken.
    const late = sim.send(Fulfil.ref('o-2'), 'signal', {
      name: 'shipped',
      payload: { tracking: 'late' },
    });
    await sim.run();
    expect((await order(sim, 'o-2')).status).toBe('failed');
    expect(await sim.outcome(late)).toMatchObject({
      ok: false,
      error: { code: ErrorCode.REJECTED, details: { event: 'shipped', status: 'failed' } },
    });
  });

  it('refunds the charge and gives the stock back once when a waiting order is cancelled', async () => {
    const { sim, service } = await shop({ fails: () => false });
    // The customer cancels as the card is charged: the cancel comes after the charge commits,
    // while the order waits for the warehouse (long before its three days are up).
    let stockAtCharge: unknown;
    setPayments({
      ...service,
      charge: async (request) => {
        stockAtCharge = await sim.state(Inventory.ref('kettle'));
        sim.send(Fulfil.ref('o-4'), 'cancel', { reason: 'changed my mind' });
        return service.charge(request);
      },
    });
    sim.send(Fulfil.ref('o-4'), 'start', { input: { sku: 'kettle', qty: 4, amount: 80 } });
    await sim.run();
    expect(stockAtCharge).toEqual({ stock: 6, held: { 'o-4': 4 } });

    const state = await order(sim, 'o-4');
    expect(state.status).toBe('cancelled');
    expect(state.journal.find((e) => e.name === 'shipped')?.state).toBe('cancelled');
    expect([...service.refunds.entries()]).toEqual([
      [`${Fulfil.ref('o-4').id}:${state.runId}:charge:1`, 'ch-1'],
    ]);
    expect(await sim.state(Inventory.ref('kettle'))).toEqual({ stock: 10, held: {} });
    // The release is the reservation's compensation: a journaled call, applied once.
    expect(state.journal.filter((e) => e.name === 'inventory.release')).toMatchObject([
      { kind: 'call', state: 'done', value: { left: 10 } },
    ]);
  });

  it('charges nothing for an order the stock cannot cover', async () => {
    const { sim, service } = await shop({ fails: () => false });
    sim.send(Fulfil.ref('o-3'), 'start', { input: { sku: 'kettle', qty: 11, amount: 220 } });
    await sim.run();

    const state = await order(sim, 'o-3');
    expect(state.status).toBe('failed');
    expect(state.error?.message).toContain('only 10 of kettle left');
    expect(service.calls).toBe(0);
    expect(await sim.state(Inventory.ref('kettle'))).toEqual({ stock: 10, held: {} });
  });

  it("takes no stock for an order named __proto__, and holds and gives back an order named like an object's own property", async () => {
    const { sim, service } = await shop({ fails: () => false });
    // __proto__ would be dropped from the record's held orders; constructor is in any object.
    for (const id of ['__proto__', 'constructor']) {
      sim.send(Fulfil.ref(id), 'start', { input: { sku: 'kettle', qty: 1, amount: 5 } });
    }
    await sim.run();
    const refused = await order(sim, '__proto__');
    expect(refused.status).toBe('failed');
    expect(refused.error?.message).toContain('an order id begins with a letter or a digit');
    expect(chargesOf(service, '__proto__')).toEqual([]);
    // Held as its own (not read as Object.prototype's), then given back when it timed out.
    const held = await order(sim, 'constructor');
    expect(held.error?.code).toBe(ErrorCode.TIMED_OUT);
    expect(held.journal.find((e) => e.name === 'inventory.reserve')).toMatchObject({
      state: 'done',
      value: { left: 9 },
    });
    expect(held.journal.find((e) => e.name === 'inventory.release')).toMatchObject({
      state: 'done',
      value: { left: 10 },
    });
    expect(await sim.state(Inventory.ref('kettle'))).toEqual({ stock: 10, held: {} });
  });

  it('under crashes, redeliveries and a flaky payment service, charges each order once and keeps the stock whole', async () => {
    let calls = 0;
    const { sim, service } = await shop({ fails: () => ++calls % 3 === 0, faults: true, seed: 7 });
    const ids = ['a', 'b', 'c', 'd'];
    for (const id of ids) {
      sim.send(Fulfil.ref(id), 'start', { input: { sku: 'kettle', qty: 2, amount: 10 } });
    }
    // a and c ship; b and d time out and are refunded.
    sim.send(Fulfil.ref('a'), 'signal', { name: 'shipped', payload: { tracking: 'T-a' } });
    sim.send(Fulfil.ref('c'), 'signal', { name: 'shipped', payload: { tracking: 'T-c' } });
    await sim.run();

    for (const id of ids) {
      const state = await order(sim, id);
      expect(state.status).toBe(id === 'a' || id === 'c' ? 'completed' : 'failed');
      expect(chargesOf(service, id)).toHaveLength(1);
    }
    const refunded = [...service.refunds.values()].sort();
    const chargeOf = (id: string) => chargesOf(service, id)[0]!.id;
    expect(refunded).toEqual([chargeOf('b'), chargeOf('d')].sort());
    expect(await sim.state(Inventory.ref('kettle'))).toEqual({ stock: 6, held: {} });
  });
});

describe('who may order', () => {
  it('anyone, of an id the inventory can keep: a longer one is refused at the door, nothing held', async () => {
    const { sim } = await shop({ fails: () => false });
    const input = { sku: 'kettle', qty: 1, amount: 5 };
    const anyone = callerOf(undefined);
    expect(() =>
      sim.send(Fulfil.ref('o'.repeat(65)), 'start', { input }, { caller: anyone }),
    ).toThrow(expect.objectContaining({ code: ErrorCode.FORBIDDEN }));
    sim.send(Fulfil.ref('o'.repeat(64)), 'start', { input }, { caller: anyone });
    // Not the three days after which an order not shipped gives its stock back.
    await sim.run({ forMs: 60_000 });
    expect(await sim.state(Inventory.ref('kettle'))).toEqual({
      stock: 9,
      held: { ['o'.repeat(64)]: 1 },
    });
  });
});

describe('the order book', () => {
  it(`keeps the newest ${ORDER_BOOK_SIZE} orders, each once`, async () => {
    const sim = new Simulation({ actors: app.actors, seed: 1, faults: noFaults });
    const placed = Array.from({ length: ORDER_BOOK_SIZE + 5 }, (_, i) => `o-${i}`);
    for (const orderId of [...placed, 'o-204'])
      sim.send(OrderBook.ref('all'), 'placed', { orderId });
    await sim.run();
    const { orders } = (await sim.state(OrderBook.ref('all'))) as { orders: string[] };
    expect(orders).toEqual(placed.slice(5));
  });
});
