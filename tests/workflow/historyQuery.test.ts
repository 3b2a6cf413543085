/**
 * `workflowHistory` reads a long history's pages too: the newest entries first (at most 500 a
 * result), and older ones a window at a time with `before`, back to the first command.
 */
import { defineApp, type WorkflowState, workflow } from '@baton/core';
import { Registry } from '@baton/core/adapter';
import { evaluateQuery } from '@baton/server/evaluation';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { workflowHarness } from './harness.ts';

const STEPS = 1_200;
const Long = workflow({
  name: 'long',
  input: z.object({ steps: z.number() }),
  run: async (ctx, { steps }) => {
    for (let i = 0; i < steps; i++) await ctx.step(`s${i}`, () => `${i}:${'r'.repeat(1_000)}`);
    return steps;
  },
});

interface HistoryResult {
  readonly steps: number;
  readonly history: { seq: number; name: string; value?: unknown }[];
  readonly older: boolean;
}

describe('the workflowHistory query of a history in pages', () => {
  it('shows the newest 500 entries, and the older ones a window at a time', async () => {
    const app = defineApp({ workflows: [Long] });
    const h = workflowHarness(app.actors);
    const ref = await h.client.start(Long, 'l', { steps: STEPS });
    await h.runAll();
    const state = (await h.state(ref.id)) as WorkflowState;
    expect(state.sealed?.entries).toBeGreaterThan(STEPS - 300); // most of it in pages

    const history = async (args: object, store: Parameters<typeof evaluateQuery>[3]['store']) => {
      const definition = app.queries.find((q) => q.name === 'workflowHistory')!;
      const env = { registry: new Registry(app.actors), store };
      const { outcome } = await evaluateQuery(
        definition,
        { workflow: 'long', id: 'l', ...args },
        undefined,
        env,
      );
      if (!outcome.ok) throw outcome.error;
      return JSON.parse(outcome.text) as HistoryResult;
    };
    const seqs = (result: HistoryResult) => result.history.map((e) => e.seq);
    const range = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, i) => from + i);

    const newest = await history({}, h.backend.store);
    expect(newest.steps).toBe(STEPS);
    expect(seqs(newest)).toEqual(range(STEPS - 500, STEPS));
    expect(newest.history.at(0)).toMatchObject({
      name: `s${STEPS - 500}`,
      value: `${STEPS - 500}:${'r'.repeat(1_000)}`,
    });
    expect(newest.older).toBe(true);

    const next = await history({ before: STEPS - 500 }, h.backend.store);
    expect(seqs(next)).toEqual(range(STEPS - 1_000, STEPS - 500));
    expect(next.older).toBe(true);
    const first = await history({ before: STEPS - 1_000 }, h.backend.store);
    expect(seqs(first)).toEqual(range(0, STEPS - 1_000));
    expect(first.older).toBe(false);

    // A store that cannot read pages: the record's entries only, and it says older ones exist.
    const loadOnly = { load: (id: string) => h.backend.store.load(id) };
    const recordOnly = await history({}, loadOnly);
    expect(seqs(recordOnly)).toEqual(range(state.sealed?.entries ?? 0, STEPS));
    expect(recordOnly.older).toBe(true);

    // The arguments a subscription passes are checked: `before` is a command number.
    const definition = app.queries.find((q) => q.name === 'workflowHistory')!;
    expect(definition.args.safeParse({ workflow: 'long', id: 'l', before: -1 }).success).toBe(
      false,
    );
    expect(definition.args.safeParse({ workflow: 'long', id: 'l', before: 3 }).success).toBe(true);
  });
});
