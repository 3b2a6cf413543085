/**
 * A finished instance's history pages go with its record: when its retention ends, its turns
 * forget the pages (a few a turn) before it halts, so no page item outlives the instance.
 */
import { defineApp, type WorkflowState, workflow } from '@baton/core';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { DROPS_PER_TURN, pageId } from '../../packages/core/src/workflow/history.ts';
import { storedPages, workflowHarness } from './harness.ts';

const DAY = 24 * 60 * 60 * 1000;
/** About 5 KB per step's result: more than half the history the record keeps, a page each. */
const result = (i: number) => `${i}:${'r'.repeat(5_000)}`;

const Bulky = workflow({
  name: 'bulky',
  input: z.object({ steps: z.number() }),
  retentionMs: DAY,
  run: async (ctx, { steps }) => {
    for (let i = 0; i < steps; i++) await ctx.step(`s${i}`, () => result(i));
    return steps;
  },
});

describe('history pages of a finished instance', () => {
  it('are deleted when its retention ends, over several turns, before it halts', async () => {
    const app = defineApp({ workflows: [Bulky] });
    const h = workflowHarness(app.actors);
    const ref = await h.client.start(Bulky, 'b', { steps: 150 });
    await h.runAll();
    expect(await h.client.result(ref)).toBe(150);

    const ended = (await h.record(ref.id))?.state as WorkflowState;
    const count = ended.sealed?.pages ?? 0;
    // More pages than one turn forgets: the expiry takes several turns.
    expect(count).toBeGreaterThan(DROPS_PER_TURN);
    const keys = Array.from({ length: count }, (_, n) => ({
      kind: 'page' as const,
      peer: pageId(ended, n),
    }));
    expect(await h.backend.store.readOverflow(ref.id, keys)).toHaveLength(count);
    expect(storedPages(h, ref.id)).toHaveLength(count);

    // Kept through the retention: a day later minus a moment, every page is still there.
    await h.runAll({ until: (ended.endedAt ?? 0) + DAY - 1 });
    expect(await h.backend.store.readOverflow(ref.id, keys)).toHaveLength(count);

    await h.runAll({ expire: true });
    const halted = await h.record(ref.id);
    expect(await h.client.workflowStatus(ref)).toMatchObject({ status: 'new' });
    expect(await h.backend.store.readOverflow(ref.id, keys)).toEqual([]);
    expect(storedPages(h, ref.id)).toEqual([]);

    // The record itself goes once its expiry passes, as DynamoDB's TTL deletes it: nothing of
    // the instance is left in the store.
    h.clock.set(halted?.expiresAt ?? Number.POSITIVE_INFINITY);
    h.backend.store.purgeExpired();
    expect(await h.record(ref.id)).toBeUndefined();
    expect(h.backend.store.snapshot().filter((e) => JSON.stringify(e).includes(ref.id))).toEqual(
      [],
    );
  });
});
