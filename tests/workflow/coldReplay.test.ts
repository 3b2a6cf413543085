/**
 * A run that is not deterministic — it picks its commands by something a replay sees otherwise,
 * as `Math.random()` or `Date.now()` — goes unnoticed while a worker carries its run on warm, and
 * pauses the first time a cold worker replays it. Tests find it before production does:
 * `startEmbedded({ workflowCacheSize: 0 })` replays every turn, the Simulation replays cold in
 * every other process by default, and the error names what to use instead.
 */
import { silentLogger, type WorkflowState, workflow } from '@baton/core';
import { startEmbedded } from '@baton/embedded';
import { Simulation } from '@baton/testing';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';

/**
 * Takes one step on its first run of each instance and another on any later run: a choice that
 * differs on each run of `run`, as one drawn from Math.random() or Date.now() does.
 */
function picker() {
  const runs = new Map<string, number>();
  return workflow({
    name: 'pick',
    input: z.object({}),
    run: async (ctx) => {
      const run = (runs.get(ctx.id) ?? 0) + 1;
      runs.set(ctx.id, run);
      const side = run === 1 ? 'left' : 'right';
      await ctx.step(side, () => side);
      await ctx.sleep(10);
      return side;
    },
  });
}

const NON_DETERMINISTIC_HINT = /same version recorded it: .*Math\.random\(\).*ctx\.random\(\)/;

describe('a run that is not deterministic', () => {
  it('completes on a worker that keeps it warm, and pauses with workflowCacheSize 0', async () => {
    const outcomes: Record<string, WorkflowState['status']> = {};
    for (const workflowCacheSize of [undefined, 0]) {
      const Pick = picker();
      const app = startEmbedded({
        actors: [],
        workflows: [Pick],
        logger: silentLogger,
        ...(workflowCacheSize === undefined ? {} : { workflowCacheSize }),
      });
      try {
        const ref = await app.client.asSystem().start(Pick, 'p-1', {});
        await app.idle();
        const status = await app.client.asSystem().workflowStatus(ref);
        outcomes[String(workflowCacheSize ?? 'default')] = status.status;
        if (workflowCacheSize === 0) {
          expect(status.paused?.error).toMatchObject({
            code: 'NON_DETERMINISTIC',
            details: { version: '1', recordedBy: '1', step: 'left' },
          });
          expect(status.paused?.error.message).toMatch(NON_DETERMINISTIC_HINT);
        }
      } finally {
        await app.stop();
      }
    }
    expect(outcomes).toEqual({ default: 'completed', 0: 'paused' });
  });

  it('pauses in a Simulation, whose odd processes (its first worker) replay cold', async () => {
    const ids = Array.from({ length: 8 }, (_, i) => `p-${i}`);
    /** The instances a one-worker run without crashes leaves paused, with that cache size. */
    const pausedWith = async (workflowCacheSize?: number) => {
      const Pick = picker();
      const sim = new Simulation({
        actors: [],
        workflows: [Pick],
        seed: 7,
        processes: 1,
        faults: { crash: 0, restart: 0 },
        ...(workflowCacheSize === undefined ? {} : { workflowCacheSize }),
      });
      for (const id of ids) sim.send(Pick.ref(id), 'start', { input: {} });
      await sim.run();
      const states = await Promise.all(
        ids.map(async (id) => (await sim.state(Pick.ref(id))) as unknown as WorkflowState),
      );
      return states.filter((s) => s.status === 'paused');
    };
    const paused = await pausedWith();
    expect(paused).toHaveLength(ids.length);
    expect(paused[0]!.paused?.error.message).toMatch(NON_DETERMINISTIC_HINT);
    // A worker that keeps every run warm never replays one: the Simulation would find nothing.
    expect(await pausedWith(200)).toHaveLength(0);
  });
});
