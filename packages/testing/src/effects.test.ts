import { actor, effect, webhook } from '@baton/core';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { Simulation, SimulationError } from './Simulation.ts';

const Paid = webhook({
  name: 'paid',
  url: 'https://shop.example/hooks/paid',
  payload: z.object({ order: z.string() }),
});

const Order = actor({
  name: 'order',
  state: z.object({ paid: z.boolean() }),
  initial: () => ({ paid: false }),
  handlers: {
    pay: {
      payload: z.object({}),
      handle: (ctx) => {
        ctx.state.paid = true;
        ctx.effect(Paid, { order: ctx.self.key });
      },
    },
  },
});

describe('effects in a simulation', () => {
  it('stops a run whose effect awaits what the simulation does not control, saying so and what to pass instead', async () => {
    // As a webhook's POST to a host that does not answer within the run.
    const hanging = effect({
      name: 'paid',
      payload: z.object({ order: z.string() }),
      run: () => new Promise<void>(() => {}),
    });
    const sim = new Simulation({ actors: [Order], effects: [hanging], seed: 1 });
    sim.send(Order.ref('o1'), 'pay', {});
    const error = await sim.run().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SimulationError);
    const message = (error as Error).message;
    expect(message).toContain('a task is stuck outside the gates');
    expect(message).toContain('real I/O in an effect or a workflow step');
    expect(message).toContain('an effect() of the same name in `effects`');
  });

  it('runs an in-memory stand-in of the same name for a webhook the handlers ask for, as the README shows', async () => {
    const posted: string[] = [];
    const fakePaid = effect({
      name: Paid.name,
      payload: z.object({ order: z.string() }),
      run: async ({ order }) => {
        posted.push(order);
      },
    });
    const sim = new Simulation({ actors: [Order], effects: [fakePaid], seed: 1 });
    sim.send(Order.ref('o1'), 'pay', {});
    await sim.run();
    expect((await sim.state(Order.ref('o1'))).paid).toBe(true);
    expect(new Set(posted)).toEqual(new Set(['o1']));
  });
});
