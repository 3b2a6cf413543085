import { ErrorCode, type WorkflowState, workflow } from '@baton/core';
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

    const state = (await sim.state(Trial.ref('ann'))) as unknown as WorkflowState;
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
});
