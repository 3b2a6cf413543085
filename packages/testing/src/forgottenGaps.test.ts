import { actor } from '@baton/core';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { defaultFaults, type Faults, noFaults } from './faults.ts';
import { Simulation } from './Simulation.ts';

const Tally = actor({
  name: 'tally',
  state: z.object({ ids: z.array(z.string()) }),
  initial: () => ({ ids: [] as string[] }),
  handlers: {
    count: {
      payload: z.object({ id: z.string() }),
      handle: (ctx, { id }) => {
        ctx.state.ids.push(id);
      },
    },
  },
});

/** Passes each ping on to the tally: one channel, pinger → tally, of every message. */
const Pinger = actor({
  name: 'pinger',
  state: z.object({}),
  initial: () => ({}),
  handlers: {
    ping: {
      payload: z.object({ id: z.string() }),
      handle: (ctx, { id }) => {
        ctx.send(Tally.ref('t'), 'count', { id });
      },
    },
  },
});

const PINGS = Array.from({ length: 80 }, (_, i) => `p${i}`);

/**
 * Runs `seeds` simulations of 80 pings whose messages to the tally the inbox strands half the
 * time: with 1.2 KB items the tally's mark of the pinger holds 16 gaps, and forgets the oldest.
 * Returns how many letters were kept where it forgot them.
 */
async function run(seeds: number, faults: Faults): Promise<number> {
  let kept = 0;
  for (let seed = 1; seed <= seeds; seed++) {
    const sim = new Simulation({
      actors: [Pinger, Tally],
      seed,
      processes: 1,
      limits: { maxItemBytes: 1_200 },
      faults: { ...faults, strand: 0.5, strandBudget: 60 },
    });
    for (const id of PINGS) sim.send(Pinger.ref('a'), 'ping', { id });
    await sim.run();
    const { ids } = await sim.state(Tally.ref('t'));
    expect([...ids].sort(), `seed ${seed}`).toEqual([...PINGS].sort());
    kept += sim.stats.forgottenGapLetters;
  }
  return kept;
}

describe('a channel with more gaps than its mark holds', () => {
  it('applies every message once: one of a forgotten gap is kept, and the operator, who knows it never applied, redrives it', async () => {
    expect(await run(10, noFaults)).toBeGreaterThan(0);
  });

  it('applies every message once under crashes, copies and redeliveries too', async () => {
    expect(await run(30, defaultFaults)).toBeGreaterThan(0);
  });
});
