/**
 * A step's compensation covers every attempt, not only a completed one: a charge that reached
 * the payment service but whose result was never committed (its turn crashed, its response was
 * lost) is refunded when the order is cancelled, found by the key its attempts carried. A step
 * with a compensation is committed before it is attempted, so no attempt goes unrecorded.
 */
import {
  actor,
  replayWorkflow,
  silentLogger,
  TerminalError,
  type WorkflowState,
  workflow,
} from '@baton/core';
import { Client } from '@baton/core/client';
import { createEngine, Worker } from '@baton/core/engine';
import { createEmbeddedBackend, startEmbedded } from '@baton/embedded';
import { Simulation } from '@baton/testing';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { virtualClock } from '../engine/helpers.ts';
import { workflowHarness } from './harness.ts';

/** A card gateway: charges once per key; refunds by the charge's key (nothing if none). */
function gateway() {
  const charges = new Map<string, number>();
  const refunded = new Set<string>();
  let loseNextResponse = false;
  return {
    charges,
    refunded,
    /** Called as a charge is made, before it is. */
    onCharge: (_key: string) => {},
    loseNextResponse: () => {
      loseNextResponse = true;
    },
    async charge(amount: number, key: string) {
      this.onCharge(key);
      charges.set(key, amount);
      if (loseNextResponse) {
        loseNextResponse = false;
        throw new Error('timed out: no response from the gateway');
      }
      return { id: key };
    },
    async refund(chargeKey: string) {
      if (charges.has(chargeKey)) refunded.add(chargeKey);
    },
    /** What the gateway kept of the charges with keys of instance `id`. */
    kept(id: string) {
      return [...charges]
        .filter(([key]) => key.startsWith(`${id}:`) && !refunded.has(key))
        .reduce((sum, [, amount]) => sum + amount, 0);
    },
  };
}

const Stock = actor({
  name: 'stock',
  state: z.object({ held: z.number() }),
  initial: () => ({ held: 0 }),
  handlers: {
    reserve: { payload: z.object({}), handle: (ctx) => void ctx.state.held++ },
    release: { payload: z.object({}), handle: (ctx) => void ctx.state.held-- },
  },
});

function order(card: ReturnType<typeof gateway>) {
  return workflow({
    name: 'order',
    input: z.object({ amount: z.number() }),
    retentionMs: Number.POSITIVE_INFINITY,
    run: async (ctx, { amount }) => {
      await ctx.call(
        Stock.ref('s'),
        'reserve',
        {},
        { compensate: (_, saga) => saga.call(Stock.ref('s'), 'release', {}) },
      );
      const charge = await ctx.step('charge', ({ key }) => card.charge(amount, key), {
        retry: { maxAttempts: 5, initialDelayMs: 1_000 },
        compensate: (_, { stepKey }) => card.refund(stepKey),
      });
      await ctx.waitForEvent('shipped');
      return charge.id;
    },
  });
}

describe("a step's compensation", () => {
  it('refunds, under crashes, every charge a cancelled order made, and keeps a shipped one', async () => {
    const card = gateway();
    const Order = order(card);
    for (let seed = 1; seed <= 100; seed++) {
      card.charges.clear();
      card.refunded.clear();
      const sim = new Simulation({
        actors: [Stock],
        workflows: [Order],
        seed,
        faults: { crash: 0.1 },
      });
      // Four customers cancel at once, two as their card is charged (right behind that turn).
      const cancelled = ['c1', 'c2', 'c3', 'c4', 'c5', 'c6'];
      const shipped = ['s1', 's2'];
      card.onCharge = (key) => {
        const id = ['c5', 'c6'].find((c) => key.startsWith(`${Order.ref(c).id}:`));
        if (id && !card.charges.has(key)) sim.send(Order.ref(id), 'cancel', { reason: 'late' });
      };
      for (const id of [...cancelled, ...shipped]) {
        sim.send(Order.ref(id), 'start', { input: { amount: 45 } });
      }
      for (const id of ['c1', 'c2', 'c3', 'c4'])
        sim.send(Order.ref(id), 'cancel', { reason: 'changed mind' });
      await sim.run();
      for (const id of shipped) sim.send(Order.ref(id), 'signal', { name: 'shipped' });
      await sim.run();

      const kept = (id: string) => card.kept(Order.ref(id).id);
      expect(cancelled.map(kept), `seed ${seed}`).toEqual([0, 0, 0, 0, 0, 0]);
      expect(shipped.map(kept), `seed ${seed}`).toEqual([45, 45]);
      for (const id of shipped) {
        expect((await sim.state(Order.ref(id))).status, `seed ${seed}`).toBe('completed');
      }
      expect((await sim.state(Stock.ref('s'))).held, `seed ${seed}`).toBe(2);
    }
  });

  it('refunds a charge whose response was lost, when the order is cancelled as it waits to retry', async () => {
    const card = gateway();
    const Order = order(card);
    const app = startEmbedded({ actors: [Stock], workflows: [Order], logger: silentLogger });
    try {
      card.loseNextResponse();
      const ref = await app.client.asSystem().start(Order, 'o', { amount: 45 });
      await expect.poll(() => card.charges.size).toBe(1);
      await app.client.asSystem().cancel(ref, { reason: 'changed mind' });
      await expect(app.client.asSystem().result(ref)).rejects.toMatchObject({ code: 'CANCELLED' });
      await app.idle();
      expect(card.kept(ref.id)).toBe(0);
      expect(card.refunded.size).toBe(1);
      const state = (await app.backend.store.load(ref.id))?.state as WorkflowState;
      expect(state.journal.find((e) => e.name === 'charge')).toMatchObject({
        state: 'cancelled',
        attempts: 1,
      });
    } finally {
      await app.stop();
    }
  });

  it('is not attempted in the turn that issued it: the turn commits it first', async () => {
    const card = gateway();
    const Order = order(card);
    const h = workflowHarness([Stock, Order.actor]);
    const ref = await h.client.start(Order, 'o', { amount: 45 });
    // Polls one turn at a time, reading the record after each.
    const seen: string[] = [];
    for (let turn = 0; turn < 10 && card.charges.size === 0; turn++) {
      await h.worker.poll();
      const state = (await h.state(ref.id)) as WorkflowState | undefined;
      const charge = state?.journal.find((e) => e.name === 'charge');
      if (charge) seen.push(`${charge.state}:${charge.attempts}:${card.charges.size}`);
    }
    expect(seen[0]).toBe('pending:0:0');
    await h.runAll();
    expect(card.charges.size).toBe(1);
  });

  it('replays a saga an earlier Baton ran without undoing the step that had no result', async () => {
    const Trip = workflow({
      name: 'trip',
      input: z.object({}),
      run: async (ctx) => {
        await ctx.step('flight', () => 'f-1', { compensate: () => 'unbooked' });
        await ctx.step(
          'hotel',
          () => {
            throw new Error('busy');
          },
          { retry: { maxAttempts: 3, initialDelayMs: 60_000 }, compensate: () => 'unbooked' },
        );
      },
    });
    const h = workflowHarness([Trip.actor]);
    const ref = await h.client.start(Trip, 't', {});
    await h.runAll({ until: h.clock.now() });
    await h.client.cancel(ref, { reason: 'changed mind' });
    await h.runAll();
    const now = (await h.state(ref.id)) as WorkflowState;
    expect(now.journal.map((e) => `${e.kind} ${e.name}`)).toEqual([
      'step flight',
      'step hotel',
      'patch baton:saga-by-command',
      'compensate hotel',
      'compensate flight',
    ]);
    await expect(replayWorkflow(Trip, now)).resolves.toEqual({ outcome: 'cancelled', commands: 5 });

    // The same saga as an earlier Baton ran it: the flight alone undone, and no patch.
    const [flight, hotel, , , undoFlight] = now.journal;
    const earlier: WorkflowState = {
      ...now,
      journal: [flight!, hotel!, { ...undoFlight!, seq: 2, order: 1 }],
      completed: 2,
    };
    await expect(replayWorkflow(Trip, earlier)).resolves.toEqual({
      outcome: 'cancelled',
      commands: 3,
    });
  });

  it('runs in the reverse order the steps were first attempted, an abandoned one among them', async () => {
    const log: string[] = [];
    const Trip = workflow({
      name: 'trip-order',
      input: z.object({}),
      run: async (ctx) => {
        // The hotel times out (it may have reserved all the same); the run stops waiting.
        await ctx.race([
          ctx.step('reserve', () => Promise.reject(new Error('timed out')), {
            retry: { maxAttempts: 5, initialDelayMs: 60_000 },
            compensate: (_, { stepAttempts }) => void log.push(`release (${stepAttempts})`),
          }),
          ctx.sleep(1_000),
        ]);
        await ctx.step('charge', () => 'c-1', {
          compensate: (charge) => void log.push(`refund ${charge}`),
        });
        await ctx.step('ship', () => Promise.reject(new TerminalError('no stock')));
      },
    });
    const h = workflowHarness([Trip.actor]);
    await h.client.start(Trip, 't', {});
    await h.runAll();
    expect(log).toEqual(['refund c-1', 'release (1)']);
  });

  it('commits every compensable step due at once, not one a turn', async () => {
    let turns = 0;
    const Many = workflow({
      name: 'many',
      input: z.object({}),
      run: async (ctx) => {
        await ctx.map(
          Array.from({ length: 30 }, (_, n) => n),
          (n) => ctx.step(`book ${n}`, () => n, { compensate: () => 0 }),
        );
      },
    });
    const h = workflowHarness([Many.actor], { onTurn: () => void turns++ });
    await h.client.start(Many, 'm', {});
    await h.runAll();
    expect((await h.client.workflowStatus(Many.ref('m'))).status).toBe('completed');
    // One turn commits them all, then ten steps a turn (maxStepsPerTurn).
    expect(turns).toBeLessThanOrEqual(5);
  });

  it('tells a compensation of a step that was never attempted so: stepAttempts 0', async () => {
    const seen: number[] = [];
    const Nap = workflow({
      name: 'nap',
      input: z.object({}),
      run: async (ctx) => {
        await ctx.step('lie down', () => 'down', {
          compensate: (_, { stepAttempts }) => void seen.push(stepAttempts),
        });
      },
    });
    const h = workflowHarness([Nap.actor]);
    const ref = await h.client.start(Nap, 'n', {});
    // Cancelled right behind its start: the step is committed for an attempt, and none made.
    await h.client.cancel(ref, { reason: 'woken' });
    await h.runAll();
    expect(seen).toEqual([0]);
  });

  it('checks a failed saga an earlier Baton ended without undoing the failed step as failed', async () => {
    const Pay = workflow({
      name: 'pay',
      input: z.object({}),
      run: async (ctx) => {
        ctx.send(Stock.ref('s'), 'reserve', {}, { compensate: () => {} });
        await ctx.step('charge', () => Promise.reject(new TerminalError('declined')), {
          compensate: () => 'refund',
        });
      },
    });
    const h = workflowHarness([Stock, Pay.actor]);
    const ref = await h.client.start(Pay, 'p', {});
    await h.runAll();
    const now = (await h.state(ref.id)) as WorkflowState;
    await expect(replayWorkflow(Pay, now)).resolves.toMatchObject({ outcome: 'failed' });
    // As an earlier Baton left it: no patch, nothing undone.
    const journal = now.journal.filter((e) => e.kind !== 'patch' && e.kind !== 'compensate');
    const earlier = {
      ...now,
      journal,
      completed: journal.filter((e) => e.order !== undefined).length,
    };
    await expect(replayWorkflow(Pay, earlier)).resolves.toMatchObject({ outcome: 'failed' });
  });

  it('undoes in the reverse order of the commands when every step succeeded, a retried one too', async () => {
    const log: string[] = [];
    let flaky = 0;
    const Trip = workflow({
      name: 'trip-parallel',
      input: z.object({}),
      run: async (ctx) => {
        await ctx.parallel([
          () =>
            ctx.step('flight', () => (flaky++ === 0 ? Promise.reject(new Error('busy')) : 'f'), {
              retry: { maxAttempts: 2, initialDelayMs: 1_000 },
              compensate: () => void log.push('unbook flight'),
            }),
          () => ctx.step('hotel', () => 'h', { compensate: () => void log.push('unbook hotel') }),
        ]);
        await ctx.step('pay', () => Promise.reject(new TerminalError('declined')));
      },
    });
    const h = workflowHarness([Trip.actor]);
    await h.client.start(Trip, 't', {});
    await h.runAll();
    // The flight completed last (after its retry), but was booked first: it is undone last.
    expect(log).toEqual(['unbook hotel', 'unbook flight']);
  });

  it("runs no step, and no compensation, on a worker's warm record another worker committed over", async () => {
    const log: string[] = [];
    const Shipment = workflow({
      name: 'shipment',
      input: z.object({}),
      retentionMs: Number.POSITIVE_INFINITY,
      run: async (ctx) => {
        await ctx.step('charge', ({ key }) => void log.push(`charge ${key.split(':')[0]}`), {
          compensate: (_, { stepKey }) => void log.push(`refund ${stepKey.split(':')[0]}`),
        });
        await ctx.waitForEvent('ship');
        return 'shipped';
      },
    });
    const clock = virtualClock();
    const backend = createEmbeddedBackend({ clock });
    const ports = { store: backend.store, queue: backend.queue, clock };
    const worker = () =>
      new Worker(
        createEngine({ actors: [Shipment.actor], ...ports, logger: silentLogger, batchSize: 1 }),
      );
    const [a, b] = [worker(), worker()];
    const client = new Client({ actors: [Shipment.actor], ...ports }).asSystem();
    const drain = async (w: Worker) => {
      while ((await w.poll()) > 0);
    };

    // Shipped on B after A ran it to its wait; a late cancel then reaches A's warm record.
    const shipped = await client.start(Shipment, 's1', {});
    await drain(a);
    await client.signal(shipped, 'ship', {});
    await drain(b);
    await client.cancel(shipped, { reason: 'late' });
    await drain(a);
    expect(await client.workflowStatus(shipped)).toMatchObject({ status: 'completed' });

    // Cancelled on B after A armed the charge; the wake then reaches A's warm record.
    const cancelled = await client.start(Shipment, 's2', {});
    await client.cancel(cancelled, { reason: 'changed mind' });
    await a.poll(); // the start: the charge is committed for an attempt, a wake queued
    await b.poll(); // the cancel: the saga undoes the charge (never made)
    await drain(a);
    expect(await client.workflowStatus(cancelled)).toMatchObject({ status: 'cancelled' });

    const [first, second] = [shipped.id, cancelled.id];
    expect(log).toEqual([`charge ${first}`, `refund ${second}`]);
    // Each turn was done again at once on the store's record, not left for a redelivery.
    expect(backend.queue.counts().total).toBe(0);
    backend.close();
  });
});
