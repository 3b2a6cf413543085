/**
 * A history whose early entry stays pending (a wait issued before a long loop) still moves into
 * pages: the record keeps the pending entry (pinned) while the final entries around it move
 * out, and once it completes it moves out with a later page. Without that, the record grows
 * with the loop until a commit is refused as too large.
 */
import { defineApp, silentLogger, type WorkflowState, workflow } from '@baton/core';
import { createEngine, Worker } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { runUntilIdle } from '../engine/helpers.ts';
import { workflowHarness } from './harness.ts';

/** About 1 KB per step's result, different for each step. */
const result = (i: number) => `${i}:${'r'.repeat(1_000)}`;

let ranSteps = 0;
const Guarded = workflow({
  name: 'guarded',
  input: z.object({ steps: z.number() }),
  run: async (ctx, { steps }) => {
    // Issued first and awaited only after the loop: pending all through it.
    const stop = ctx.waitForEvent<string>('stop');
    let checked = 0;
    const loop = async (from: number) => {
      for (let i = from; i < from + steps; i++) {
        const value = await ctx.step(`s${i}`, () => {
          ranSteps++;
          return result(i);
        });
        if (value === result(i)) checked++;
      }
    };
    await loop(0);
    const reason = await stop;
    await loop(steps);
    const last = await ctx.waitForEvent<string>('last');
    return { checked, reason, last };
  },
});

describe('a history with an early pending entry', () => {
  it('moves the final entries around it into pages, then the entry itself once it ends', async () => {
    ranSteps = 0;
    const STEPS = 500; // 500 KB of results before the wait ends: more than a record holds
    const app = defineApp({ workflows: [Guarded] });
    const h = workflowHarness(app.actors);
    const ref = await h.client.start(Guarded, 'g', { steps: STEPS });
    await h.runAll();

    const record = await h.record(ref.id);
    const state = record?.state as WorkflowState;
    expect(state.status).toBe('waiting');
    expect(JSON.stringify(record).length).toBeLessThan(h.backend.store.limits.maxItemBytes);
    expect(state.sealed?.entries).toBeGreaterThan(STEPS - 100);
    // The wait (command 0) stays in the record, pending, while the steps after it moved out.
    expect(state.pinned?.map((e) => `${e.seq} ${e.kind} ${e.state}`)).toEqual(['0 event pending']);
    expect(state.journal[0]?.seq).toBe(state.sealed?.entries);

    // The event ends the pinned wait; the second loop moves it out with a later page.
    await h.client.signal(ref, 'stop', 'enough');
    await h.runAll();
    const after = (await h.record(ref.id))?.state as WorkflowState;
    expect(after.status).toBe('waiting');
    expect(after.pinned).toBeUndefined();
    expect(after.sealed?.entries).toBeGreaterThan(STEPS + 100);

    // A cold worker reads every page back (the wait's entry in a page after later ones) and
    // replays the whole history to the right output, running no step again.
    const cold = new Worker(
      createEngine({
        actors: app.actors,
        store: h.backend.store,
        queue: h.backend.queue,
        clock: h.clock,
        logger: silentLogger,
      }),
    );
    await h.client.signal(ref, 'last', 'done');
    await runUntilIdle(cold, h.backend, h.clock);
    expect(await h.client.result(ref)).toEqual({
      checked: 2 * STEPS,
      reason: 'enough',
      last: 'done',
    });
    expect(ranSteps).toBe(2 * STEPS);
  });

  it('is replayed cold while the entry is still pinned, and the event ends it there', async () => {
    ranSteps = 0;
    const STEPS = 500;
    const app = defineApp({ workflows: [Guarded] });
    const h = workflowHarness(app.actors);
    const ref = await h.client.start(Guarded, 'c', { steps: STEPS });
    await h.runAll();
    expect(((await h.state(ref.id)) as WorkflowState).pinned).toHaveLength(1);

    // Every turn from here on replays cold: the pinned wait is found and settled by its event.
    h.deploy(app.actors);
    await h.client.signal(ref, 'stop', 'cold');
    await h.client.signal(ref, 'last', 'done');
    await h.runAll();
    expect(await h.client.result(ref)).toEqual({
      checked: 2 * STEPS,
      reason: 'cold',
      last: 'done',
    });
    expect(ranSteps).toBe(2 * STEPS);
  });
});
