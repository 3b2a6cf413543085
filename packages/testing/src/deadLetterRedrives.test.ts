import { actor, ErrorCode } from '@baton/core';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { noFaults } from './faults.ts';
import { Simulation, SimulationError, type SimulationOptions } from './Simulation.ts';

/** A stock that refuses a reservation larger than what is left with a plain Error. */
const Stock = actor({
  name: 'stock',
  state: z.object({ available: z.number() }),
  initial: () => ({ available: 1 }),
  handlers: {
    reserve: {
      payload: z.object({ qty: z.number() }),
      handle: (ctx, { qty }) => {
        if (ctx.state.available < qty) throw new Error('not enough stock');
        ctx.state.available -= qty;
      },
    },
  },
});

function reserveTooMany(options: Partial<SimulationOptions> = {}): Simulation {
  const sim = new Simulation({
    actors: [Stock],
    seed: 1,
    faults: noFaults,
    maxAttempts: 3,
    maxSteps: 5_000,
    ...options,
  });
  sim.send(Stock.ref('widgets'), 'reserve', { qty: 5 }, { idempotencyKey: 'too-many' });
  return sim;
}

describe("the simulated operator's redrives of dead letters", () => {
  it('stops at a message its handler fails after every redrive, naming the actor, the handler, the message and its error', async () => {
    const sim = reserveTooMany();
    const error = await sim.run().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SimulationError);
    const message = (error as Error).message;
    expect(message).toContain('handler "reserve" of stock/widgets failed message');
    expect(message).toContain('again after 3 redrives');
    expect(message).toContain('(last: unexpected error: not enough stock)');
    expect(message).toContain('deadLetterRedrives: 0');
    expect(message).not.toContain('not quiet');
    expect(sim.stats.redrives).toBe(3);
    expect(sim.stats.deadLettered).toBe(4);
  });

  it('stops at a message whose handler sends to an actor the app forgot to register, saying so', async () => {
    const Order = actor({
      name: 'order',
      state: z.object({ placed: z.boolean() }),
      initial: () => ({ placed: false }),
      handlers: {
        place: {
          payload: z.object({}),
          handle: (ctx) => {
            ctx.state.placed = true;
            ctx.send(Stock.ref('widgets'), 'reserve', { qty: 1 });
          },
        },
      },
    });
    // Stock left out: the run must not pass quietly with the order's message rejected.
    const sim = new Simulation({ actors: [Order], seed: 1, faults: noFaults, maxSteps: 5_000 });
    sim.send(Order.ref('o1'), 'place', {}, { idempotencyKey: 'o1' });
    const error = await sim.run().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as Error).message).toMatch(
      /handler "place" of order\/o1 failed message .* again after \d+ redrives .*unknown actor type "stock": register it with the app/,
    );
    // Nothing threw: the hint names what the letter was kept for, not a thrown Error.
    expect((error as Error).message).toContain(
      'It was kept for UNKNOWN_ACTOR: fix what its error names',
    );
    expect((error as Error).message).not.toContain('throws an Error');
    expect(await sim.state(Order.ref('o1'))).toEqual({ placed: false });
  });

  it('stops at a message whose handler leaves state its schema refuses, which no redrive applies, unless the test expects dead letters', async () => {
    const List = actor({
      name: 'list',
      state: z.object({ titles: z.array(z.string().min(1)) }),
      initial: () => ({ titles: [] as string[] }),
      handlers: {
        add: {
          payload: z.object({ title: z.string() }),
          handle: (ctx, { title }) => {
            ctx.state.titles.push(title);
          },
        },
      },
    });
    const adding = (options: Partial<SimulationOptions> = {}) => {
      const sim = new Simulation({ actors: [List], seed: 1, faults: noFaults, ...options });
      sim.send(List.ref('home'), 'add', { title: '' }, { idempotencyKey: 'empty' });
      return sim;
    };
    // A test that asserts on state alone would pass with the message lost: the run fails.
    await expect(adding().run()).rejects.toThrow(
      /handler "add" of list\/home left message .* kept as a dead letter for its code's fault, which no redrive applies until the code is fixed: .*state\.titles\.0.*deadLetterRedrives: 0/,
    );
    const expecting = adding({ deadLetterRedrives: 0 });
    await expecting.run();
    expect(await expecting.outcome('empty')).toMatchObject({
      ok: false,
      error: { code: ErrorCode.DEAD_LETTERED },
    });
  });

  it('redrives as often as deadLetterRedrives says', async () => {
    const sim = reserveTooMany({ deadLetterRedrives: 1 });
    await expect(sim.run()).rejects.toThrow(/again after 1 redrives/);
    expect(sim.stats.redrives).toBe(1);
  });

  it('with deadLetterRedrives 0, redrives none: the message ends DEAD_LETTERED and the run goes quiet', async () => {
    const sim = reserveTooMany({ deadLetterRedrives: 0 });
    const stats = await sim.run();
    expect(stats).toMatchObject({ deadLettered: 1, redrives: 0 });
    expect(await sim.outcome('too-many')).toMatchObject({
      ok: false,
      error: { code: ErrorCode.DEAD_LETTERED },
    });
    expect(await sim.state(Stock.ref('widgets'))).toEqual({ available: 1 });
  });

  it('goes on redriving a letter that a later redrive applies', async () => {
    let failures = 0;
    const Flaky = actor({
      name: 'flaky',
      state: z.object({ done: z.number() }),
      initial: () => ({ done: 0 }),
      handlers: {
        work: {
          payload: z.object({}),
          handle: (ctx) => {
            // Fails its first two letters' attempts (one each), then succeeds.
            if (failures++ < 2) throw new Error('not yet');
            ctx.state.done++;
          },
        },
      },
    });
    const sim = new Simulation({
      actors: [Flaky],
      seed: 1,
      faults: noFaults,
      maxAttempts: 1,
      deadLetterRedrives: 2,
    });
    sim.send(Flaky.ref('f'), 'work', {}, { idempotencyKey: 'w' });
    const stats = await sim.run();
    expect(stats).toMatchObject({ deadLettered: 2, redrives: 2 });
    expect(await sim.outcome('w')).toMatchObject({ ok: true });
    expect(await sim.state(Flaky.ref('f'))).toEqual({ done: 1 });
  });

  it('with the default options and faults, stops at a handler that always throws after hundreds of attempts, not thousands', async () => {
    // What a user's first test meets when a handler has a bug: the run must end with the
    // handler's error well within a test runner's 5-second timeout, on a loaded machine too.
    const sim = new Simulation({ actors: [Stock], seed: 1 });
    sim.send(Stock.ref('widgets'), 'reserve', { qty: 5 });
    await expect(sim.run()).rejects.toThrow(
      /handler "reserve" of stock\/widgets failed message .* \(last: unexpected error: not enough stock\)/,
    );
    // Four letters (the first and its three redrives), each after `maxAttempts` deliveries.
    expect(sim.stats.deadLettered).toBe(4);
    expect(sim.stats.deliveries).toBeLessThan(5_000);
  });
});
