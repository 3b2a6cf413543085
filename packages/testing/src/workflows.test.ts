import { ErrorCode, workflow } from '@baton/core';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { noFaults, replayWorkflow, Simulation } from './index.ts';

const DAY = 24 * 60 * 60 * 1000;

const Trial = workflow({
  name: 'trial',
  input: z.object({ user: z.string() }),
  retentionMs: Number.POSITIVE_INFINITY,
  run: async (ctx, { user }) => {
    await ctx.step('welcome', () => `welcome ${user}`);
    await ctx.sleep(30 * DAY);
    return ctx.step('bill', () => `bill ${user}`);
  },
});

describe('workflows in a simulation', () => {
  it('runs a workflow on virtual time: a 30-day sleep completes at once', async () => {
    const sim = new Simulation({ actors: [Trial.actor], seed: 1, faults: noFaults });
    sim.send(Trial.ref('ann'), 'start', { input: { user: 'ann' } });
    const started = sim.clock.now();
    await sim.run();

    const state = await sim.state(Trial.ref('ann'));
    expect(state.status).toBe('completed');
    expect(state.output).toBe('bill ann');
    expect(sim.clock.now() - started).toBeGreaterThanOrEqual(30 * DAY);
    // The recorded history replays with the same code, and not with a changed one.
    await expect(replayWorkflow(Trial, state)).resolves.toMatchObject({ outcome: 'completed' });
    const Changed = workflow({
      name: 'trial',
      version: '2',
      input: z.object({ user: z.string() }),
      run: async (ctx) => ctx.sleep(DAY),
    });
    await expect(replayWorkflow(Changed, state)).rejects.toMatchObject({
      code: ErrorCode.NON_DETERMINISTIC,
    });
  });

  it('takes workflows as defineApp does, and names the option when a workflow is missing', async () => {
    const sim = new Simulation({ actors: [], workflows: [Trial], seed: 2, faults: noFaults });
    sim.send(Trial.ref('bo'), 'start', { input: { user: 'bo' } });
    await sim.run();
    expect((await sim.state(Trial.ref('bo'))).output).toBe('bill bo');

    const without = new Simulation({ actors: [Trial.actor], seed: 3, faults: noFaults });
    const Other = workflow({ name: 'other', input: z.object({}), run: async () => 1 });
    expect(() => without.send(Other.ref('o'), 'start', { input: {} })).toThrow(
      /unknown actor type "wf-other".*; for workflow "other", pass it as defineApp's workflows \(or its \.actor among the actors\)/,
    );
  });
});
