/**
 * A workflow that continues as new, round after round, under every fault the simulation has
 * (crashes at each I/O boundary, redeliveries, messages stranded and redriven late, timeouts,
 * concurrent workers, a deploy mid-run): each round's actor calls applied once — the one that may lose its race
 * to a sleep and be left under way as the run ends too — each round's outside step always with
 * one key of its run's, each event consumed by one run, and the instance completes once, with
 * the last run's output.
 */
import { actor, TerminalError, type WorkflowState, workflow } from '@baton/core';
import { Simulation } from '@baton/testing';
import { afterAll, describe, expect, it } from 'vitest';
import * as z from 'zod';

const DAY = 24 * 60 * 60 * 1000;
const SEEDS = Number(process.env.BATON_SIM_CONTINUE_RUNS ?? 8);
const ROUNDS = 4;

const Counter = actor({
  name: 'counter',
  state: z.object({ added: z.array(z.number()), noted: z.array(z.number()) }),
  initial: () => ({ added: [] as number[], noted: [] as number[] }),
  handlers: {
    add: {
      payload: z.object({ round: z.number() }),
      handle: (ctx, { round }) => {
        ctx.state.added.push(round);
        return ctx.state.added.length;
      },
    },
    note: {
      payload: z.object({ round: z.number() }),
      handle: (ctx, { round }) => {
        ctx.state.noted.push(round);
        return round;
      },
    },
  },
});

/** Per meter and round, the keys each run of its `read` step saw. */
const readKeys = new Map<string, string[]>();

/** A round a run: a call that races a short sleep, a step, a call, an event; then anew. */
const Meter = workflow({
  name: 'meter',
  // Kept: the simulation jumps time to every stored timer, an expiry's included.
  retentionMs: Number.POSITIVE_INFINITY,
  maxStepsPerTurn: 1,
  input: z.object({ meter: z.string(), round: z.number() }),
  events: { tick: z.number() },
  run: async (ctx, { meter, round }) => {
    // A sleep may win: the call is left under way as the run ends, and its reply comes to a run
    // that ended (tests/workflow/continueAsNew.test.ts holds it back until the next run's call
    // of the same number waits: taken by no call).
    const noted = await ctx.race([ctx.call(Counter.ref(meter), 'note', { round }), ctx.sleep(10)]);
    if (noted.index === 0 && noted.value !== round) throw new TerminalError('another round noted');
    await ctx.step('read', ({ key }) => {
      const at = `${meter}:${round}`;
      readKeys.set(at, [...(readKeys.get(at) ?? []), key]);
    });
    await ctx.call(Counter.ref(meter), 'add', { round });
    const tick = await ctx.waitForEvent('tick');
    if (round + 1 < ROUNDS) ctx.continueAsNew({ meter, round: round + 1 });
    return { rounds: ROUNDS, tick };
  },
});

describe('a workflow that continues as new in the simulation', () => {
  /** Over all seeds, the paths are exercised: races the call lost, crashes, deploys. */
  const seen = { lostRaces: 0, crashes: 0, deploys: 0 };
  afterAll(() => {
    if (SEEDS < 8) return;
    expect(seen.lostRaces).toBeGreaterThan(0);
    expect(seen.crashes).toBeGreaterThan(0);
    expect(seen.deploys).toBeGreaterThan(0);
  });

  it.each(Array.from({ length: SEEDS }, (_, i) => i + 1))(
    'applies each round once, whatever the faults (seed %i)',
    async (seed) => {
      readKeys.clear();
      const meters = ['m1', 'm2'];
      const sim = new Simulation({
        actors: [Counter, Meter.actor],
        seed,
        processes: 1 + (seed % 3),
        markRetentionMs: 14 * DAY,
        // Some messages wait in the dead-letter queue until all else is done, then come back
        // late: a call's reply among them, after its run ended.
        faults: { strand: 0.2, strandBudget: 3, agingJumpBudget: 0 },
        // Even seeds: a deploy of the same code mid-run (new workers, no warm run kept).
        ...(seed % 2 === 0 ? { upgrades: [[Counter, Meter.actor]] } : {}),
      });
      for (const meter of meters) {
        const ref = Meter.ref(meter);
        sim.send(
          ref,
          'start',
          { input: { meter, round: 0 } },
          { idempotencyKey: `start-${meter}` },
        );
        // Events come before the runs wait for them: held, one taken by each run in turn.
        for (let tick = 0; tick < ROUNDS; tick++) {
          sim.send(ref, 'signal', { name: 'tick', payload: tick });
        }
        // Starting again, with the first input, is the same start.
        sim.send(ref, 'start', { input: { meter, round: 0 } });
      }
      const stats = await sim.run();
      seen.crashes += stats.crashes;
      seen.deploys += stats.deploys;

      const rounds = Array.from({ length: ROUNDS }, (_, i) => i);
      for (const meter of meters) {
        const at = `${meter} in seed ${seed}`;
        const state = (await sim.state(Meter.ref(meter))) as unknown as WorkflowState;
        expect(state.status, at).toBe('completed');
        expect(state.continued, at).toBe(ROUNDS - 1);
        expect(state.output, at).toEqual({ rounds: ROUNDS, tick: ROUNDS - 1 });
        expect(state.signals, at).toEqual([]);
        // The last run's racing call: lost to the sleep, it was left under way.
        const note = state.journal.find((e) => e.name === 'counter.note');
        if (note?.state === 'cancelled') seen.lostRaces++;
        const counter = await sim.state(Counter.ref(meter));
        expect([...counter.added].sort(), at).toEqual(rounds);
        expect([...counter.noted].sort(), at).toEqual(rounds);
        for (const round of rounds) {
          const keys = readKeys.get(`${meter}:${round}`) ?? [];
          expect(keys.length, `${at}: round ${round} read`).toBeGreaterThanOrEqual(1);
          expect(new Set(keys).size, `${at}: round ${round} read with one key`).toBe(1);
        }
        // Each round's step had a key of its own: its run's.
        expect(new Set(rounds.map((r) => readKeys.get(`${meter}:${r}`)?.[0])).size, at).toBe(
          ROUNDS,
        );
      }
    },
  );
});
