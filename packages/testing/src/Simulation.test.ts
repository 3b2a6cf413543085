import { actor, RetryableError } from '@baton/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { noFaults } from './faults.ts';
import { Simulation, SimulationError } from './Simulation.ts';

let sideEffects = 0;

const Counter = actor({
  name: 'counter',
  state: z.object({ count: z.number() }),
  initial: () => ({ count: 0 }),
  handlers: {
    add: {
      payload: z.object({ by: z.number() }),
      handle: (ctx, { by }) => {
        sideEffects++; // direct I/O in a handler: at-least-once, unlike the state
        ctx.state.count += by;
      },
    },
    forward: {
      payload: z.object({ to: z.string() }),
      // A block body: an expression body returning ctx.send(Counter…) would make Counter's
      // type depend on itself.
      handle: (ctx, { to }) => {
        ctx.send(Counter.ref(to), 'add', { by: 1 });
      },
    },
    stuck: {
      payload: z.object({}),
      handle: () => {
        throw new RetryableError('never succeeds');
      },
    },
  },
});

async function runCounters(seed: number, faults = {}) {
  const sim = new Simulation({ actors: [Counter], seed, faults });
  for (let i = 0; i < 20; i++) sim.send(Counter.ref(`c${i % 3}`), 'add', { by: 1 });
  for (let i = 0; i < 10; i++) sim.send(Counter.ref(`c${i % 3}`), 'forward', { to: 'total' });
  await sim.run();
  return sim;
}

describe('Simulation', () => {
  it('replays the same schedule step for step from the same seed', async () => {
    const a = await runCounters(42, { crash: 0.1 });
    const b = await runCounters(42, { crash: 0.1 });
    const c = await runCounters(43, { crash: 0.1 });
    expect(a.trace).toEqual(b.trace);
    expect(a.stats).toEqual(b.stats);
    expect(c.trace).not.toEqual(a.trace);
  });

  it('applies every message to the state exactly once while crashes rerun handlers', async () => {
    let rerun = false;
    for (let seed = 1; seed <= 30; seed++) {
      sideEffects = 0;
      const sim = await runCounters(seed, { crash: 0.2, crashBudget: 50 });
      const counts = await Promise.all(
        ['c0', 'c1', 'c2', 'total'].map((k) => sim.state(Counter.ref(k))),
      );
      expect(counts.map((s) => s.count)).toEqual([7, 7, 6, 10]);
      expect(sideEffects).toBeGreaterThanOrEqual(30);
      if (sideEffects > 30 && sim.stats.crashes > 0) rerun = true;
    }
    // The harness really crashed turns after their handlers ran: the side effect shows it.
    expect(rerun).toBe(true);
  });

  it('runs without faults when told to, and injects them by default', async () => {
    const quiet = await runCounters(7, noFaults);
    expect(quiet.stats.crashes + quiet.stats.restarts + quiet.stats.timeouts).toBe(0);
    let injected = 0;
    for (let seed = 1; seed <= 10; seed++) {
      const sim = await runCounters(seed);
      injected += sim.stats.crashes + sim.stats.redeliveries + sim.stats.duplicateIngress;
    }
    expect(injected).toBeGreaterThan(0);
  });

  it('fails a run that never goes quiet, naming the seed to replay', async () => {
    const sim = new Simulation({ actors: [Counter], seed: 9, maxSteps: 500 });
    sim.send(Counter.ref('x'), 'stuck', {});
    const error = await sim.run().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SimulationError);
    expect((error as SimulationError).message).toMatch(/not quiet after 500 steps[\s\S]*seed 9/);
  });

  it('rejects a send the actor cannot take before running anything', () => {
    const sim = new Simulation({ actors: [Counter], seed: 1 });
    // @ts-expect-error wrong payload type
    expect(() => sim.send(Counter.ref('x'), 'add', { by: 'one' })).toThrow(/payload\.by/);
  });
});
