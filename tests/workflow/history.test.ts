/**
 * Histories larger than a record: an instance of 10,000 steps with 10 MB of step results (the
 * record's item holds 400 KB) completes, its record stays under the item limit with the oldest
 * entries moved out into pages, and a cold worker reads the pages back and replays the whole
 * history to the right output. (Its timings, on DynamoDB too: `pnpm tsx bench/workflow-history.ts`.)
 */
import { defineApp, replayWorkflow, silentLogger, type WorkflowState, workflow } from '@baton/core';
import { createEngine, Worker } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { runUntilIdle, setup } from '../engine/helpers.ts';

const STEPS = 10_000;
/** About 1 KB per step's result, different for each step. */
const result = (i: number) => `${i}:${'r'.repeat(1_000)}`;

let runs = 0;
let ranSteps = 0;
const Long = workflow({
  name: 'long',
  input: z.object({ steps: z.number() }),
  run: async (ctx, { steps }) => {
    runs++;
    let checked = 0;
    for (let i = 0; i < steps; i++) {
      const value = await ctx.step(`s${i}`, () => {
        ranSteps++;
        return result(i);
      });
      if (value === result(i)) checked++;
    }
    const last = await ctx.waitForEvent<string>('last');
    return { checked, last };
  },
});

describe('a workflow history larger than a record', () => {
  it('moves into pages, so 10,000 steps of 1 KB complete, and a cold worker replays them all', async () => {
    runs = 0;
    ranSteps = 0;
    const app = defineApp({ workflows: [Long] });
    const h = setup({ actors: app.actors });

    const ref = await h.client.start(Long, 'big', { steps: STEPS });
    // Ten steps a turn, each turn's next a message to itself: a thousand turns and more.
    await runUntilIdle(h.worker, h.backend, h.clock, 5_000);
    const record = await h.record(ref.id);
    const state = record?.state as WorkflowState;
    expect(state.status).toBe('waiting');
    expect(JSON.stringify(record).length).toBeLessThan(h.backend.store.limits.maxItemBytes);
    // The record keeps only its newest entries: at most the store's `historyBytes` of them.
    expect(JSON.stringify(state.journal).length).toBeLessThanOrEqual(8 * 1024);
    expect(STEPS - (state.sealed?.entries ?? 0)).toBeLessThan(10);
    // Pages of up to 7 KiB (seven eighths of it): six entries of about 1.1 KB each.
    expect(state.sealed?.pages).toBeGreaterThan(1_600);
    expect(state.sealed?.pages).toBeLessThan(1_700);
    expect(runs).toBe(1); // one warm worker: never replayed

    // Another worker, cold: the event's turn reads every page back and replays all 10,000.
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

    expect(runs).toBe(2);
    expect(ranSteps).toBe(STEPS); // the replay ran no step again
    expect(await h.client.result(ref)).toEqual({ checked: STEPS, last: 'done' });
    expect(await h.client.workflowStatus(ref)).toMatchObject({ steps: STEPS + 1 });
  }, 180_000);

  it("keeps in the record what the store's historyBytes says, whatever the history's length", async () => {
    const app = defineApp({ workflows: [Long] });
    const pages: number[] = [];
    for (const historyBytes of [4 * 1024, 64 * 1024]) {
      const h = setup({ actors: app.actors, limits: { historyBytes } });
      const journals: number[] = [];
      h.backend.feed.subscribe((record) => {
        const journal = (record.state as Partial<WorkflowState> | null)?.journal;
        if (journal) journals.push(JSON.stringify(journal).length);
      });
      const ref = await h.client.start(Long, `keep-${historyBytes}`, { steps: 300 });
      await runUntilIdle(h.worker, h.backend, h.clock, 1_000);
      const state = (await h.record(ref.id))?.state as WorkflowState;
      expect(state.status, `${historyBytes}`).toBe('waiting');
      // Every commit's record kept at most that much, and the rest moved out in pages of up to
      // seven eighths of it.
      expect(Math.max(...journals), `${historyBytes}`).toBeLessThanOrEqual(historyBytes);
      expect(Math.max(...journals), `${historyBytes}`).toBeGreaterThan(historyBytes / 2);
      pages.push(state.sealed?.pages ?? 0);
    }
    // The history's 330 KB: pages of 3.5 KiB (three entries) each, or of 56 KiB each.
    expect(pages[0]).toBeGreaterThan(90);
    expect(pages[0]).toBeLessThan(110);
    expect(pages[1]).toBeGreaterThan(4);
    expect(pages[1]).toBeLessThan(10);
  });

  it('is refused by replayWorkflow without its pages, saying what to pass', async () => {
    const state = {
      status: 'waiting',
      journal: [],
      completed: 2,
      signals: [],
      notify: [],
      sealed: { entries: 2, pages: 1 },
    } satisfies WorkflowState;
    await expect(replayWorkflow(Long, state)).rejects.toThrow(/2 entries in pages of their own/);
  });
});
