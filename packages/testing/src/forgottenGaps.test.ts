import { actor } from '@baton/core';
import { purgeDeadLetter, redriveDeadLetter } from '@baton/core/engine';
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
 * The run's own operator redrives those of the letters it knows were never applied (messages
 * it stranded) and leaves the rest; or it leaves them all (`deadLetterRedrives` 0) and, once
 * the run is done, the test settles them as the runbook does, by the tally's state. Returns how
 * many letters were kept where the mark forgot its gaps.
 */
async function run(
  seeds: number,
  faults: Faults,
  operator: 'the run' | 'the runbook',
): Promise<number> {
  let kept = 0;
  for (let seed = 1; seed <= seeds; seed++) {
    const sim = new Simulation({
      actors: [Pinger, Tally],
      seed,
      processes: 1,
      limits: { maxItemBytes: 1_200 },
      faults: { ...faults, strand: 0.5, strandBudget: 60 },
      ...(operator === 'the runbook' ? { deadLetterRedrives: 0 } : {}),
    });
    for (const id of PINGS) sim.send(Pinger.ref('a'), 'ping', { id });
    await sim.run();
    if (operator === 'the runbook') await settleLetters(sim, seed);
    const { ids } = await sim.state(Tally.ref('t'));
    expect([...ids].sort(), `seed ${seed}`).toEqual([...PINGS].sort());
    kept += sim.stats.forgottenGapLetters;
  }
  return kept;
}

/**
 * The runbook's operator: a letter whose ping the tally holds already (a copy) is purged, one it
 * does not (a missing message) redriven with force; then the run goes on, until none is kept.
 */
async function settleLetters(sim: Simulation, seed: number): Promise<void> {
  for (let round = 0; round < 5; round++) {
    const letters = await sim.backend.store.listDeadLetters();
    if (letters.length === 0) return;
    const { ids } = await sim.state(Tally.ref('t'));
    for (const { actorId, messageId, envelope } of letters) {
      expect(actorId, `seed ${seed}`).toBe(Tally.ref('t').id);
      const { id } = envelope.payload as { id: string };
      if (ids.includes(id)) {
        await purgeDeadLetter(sim.backend.store, actorId, messageId, {
          now: sim.clock.now(),
          by: 'the test',
        });
      } else {
        const { store, queue } = sim.backend;
        await redriveDeadLetter(store, queue, actorId, messageId, { force: true });
      }
    }
    await sim.run();
  }
  throw new Error(`seed ${seed}: letters still kept after five rounds of the operator`);
}

describe('a channel with more gaps than its mark holds', () => {
  it('applies every message once: one of a forgotten gap is kept, and the operator, who finds it missing from the state, redrives it', async () => {
    expect(await run(10, noFaults, 'the runbook')).toBeGreaterThan(0);
  });

  it('applies every message once under crashes, copies and redeliveries too', async () => {
    expect(await run(100, defaultFaults, 'the runbook')).toBeGreaterThan(0);
  });

  it("applies every message once with the run's own operator, which redrives only the letters of messages it stranded", async () => {
    expect(await run(100, defaultFaults, 'the run')).toBeGreaterThan(0);
  });
});
