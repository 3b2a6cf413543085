import { actor, ErrorCode } from '@baton/core';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { noFaults } from './faults.ts';
import { Simulation } from './Simulation.ts';

const DAY = 24 * 60 * 60 * 1000;

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

/** Passes each ping on to the tally; `stop` halts it, so its next ping begins a new life. */
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
    stop: { payload: z.object({}), handle: (ctx) => ctx.halt() },
  },
});

describe('copies redriven late, past the mark retention', () => {
  it("never applies again a copy of a sender's ended life, nor skips the new life's message of the same seq", async () => {
    let acrossLives = 0;
    let kept = 0;
    for (let seed = 1; seed <= 20; seed++) {
      const sim = new Simulation({
        actors: [Pinger, Tally],
        seed,
        processes: 1,
        faults: { ...noFaults, lateRedrive: 1, lateRedriveBudget: 3 },
      });
      const pinger = Pinger.ref('a');
      for (const id of ['p1', 'p2', 'p3']) sim.send(pinger, 'ping', { id });
      sim.send(pinger, 'stop', {});
      await sim.run();
      // The halted record expires; copies of its life's messages are kept aside, and come back
      // while the new life sends from seq 1 again.
      sim.idle(2 * DAY + 1);
      for (const id of ['p4', 'p5', 'p6']) sim.send(pinger, 'ping', { id });
      await sim.run();

      const { ids } = await sim.state(Tally.ref('t'));
      expect([...ids].sort(), `seed ${seed}`).toEqual(['p1', 'p2', 'p3', 'p4', 'p5', 'p6']);
      const letters = await sim.backend.store.listDeadLetters();
      for (const letter of letters) {
        expect(sim.lateCopies.has(letter.messageId), `seed ${seed}`).toBe(true);
        expect(letter.error.code, `seed ${seed}`).toBe(ErrorCode.DEAD_LETTERED);
      }
      acrossLives += sim.stats.lateRedrivesOfEndedLives;
      kept += sim.stats.lateCopiesKept;
    }
    expect(acrossLives).toBeGreaterThan(0);
    expect(kept).toBeGreaterThan(0);
  });
});
