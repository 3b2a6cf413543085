/**
 * `workflowHistory` reads a long history's pages too: the newest entries first (at most 500 a
 * result), and older ones a window at a time with `before`, back to the first command. The
 * inspectors (`baton inspect`, `baton dev`) show the newest steps from the pages as well.
 */
import { defineApp, TerminalError, type WorkflowState, workflow } from '@baton/core';
import { Registry } from '@baton/core/adapter';
import { evaluateQuery } from '@baton/server/evaluation';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { DevBackend } from '../../packages/cli/src/dev/child/DevBackend.ts';
import { inspectorSnapshot } from '../../packages/cli/src/dev/child/inspectorSnapshot.ts';
import { TurnLog } from '../../packages/cli/src/dev/child/TurnLog.ts';
import { readActor } from '../../packages/cli/src/ops/inspect/inspectData.ts';
import type { Target } from '../../packages/cli/src/ops/target.ts';
import { PAGE_BLOCK } from '../../packages/core/src/workflow/history.ts';
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

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

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

    // A window of the first commands reads the pages of their block, not every later one: a
    // caller who may read the instance cannot make each query read the whole history.
    const pagesRead: string[] = [];
    const counting = {
      load: (id: string) => h.backend.store.load(id),
      readOverflow: async (...args: Parameters<typeof h.backend.store.readOverflow>) => {
        pagesRead.push(...args[1].map((key) => key.peer));
        return h.backend.store.readOverflow(...args);
      },
    };
    expect(state.sealed?.pages).toBeGreaterThan(3 * PAGE_BLOCK);
    expect(seqs(await history({ before: 10 }, counting))).toEqual(range(0, 10));
    expect(pagesRead.length).toBeLessThanOrEqual(PAGE_BLOCK);
    pagesRead.length = 0;
    expect(seqs(await history({ before: 0 }, counting))).toEqual([]);
    expect(pagesRead).toEqual([]);

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

  it("shows the app's steps and compensations, not Baton's own markers", async () => {
    const Trip = workflow({
      name: 'trip',
      input: z.object({}),
      run: async (ctx) => {
        await ctx.step('book', () => 'booked', { compensate: () => 'unbooked' });
        await ctx.step('pay', () => {
          throw new TerminalError('declined');
        });
      },
    });
    const app = defineApp({ workflows: [Trip] });
    const h = workflowHarness(app.actors);
    const ref = await h.client.start(Trip, 't', {});
    await h.runAll();
    const state = (await h.state(ref.id)) as WorkflowState;
    const marker = (e: { kind: string; name: string }) =>
      e.kind === 'patch' && e.name.startsWith('baton:');
    expect(state.journal.some(marker)).toBe(true);

    const definition = app.queries.find((q) => q.name === 'workflowHistory')!;
    const env = { registry: new Registry(app.actors), store: h.backend.store };
    const { outcome } = await evaluateQuery(
      definition,
      { workflow: 'trip', id: 't' },
      undefined,
      env,
    );
    if (!outcome.ok) throw outcome.error;
    const { history } = JSON.parse(outcome.text) as {
      history: { kind: string; name: string; state: string }[];
    };
    expect(history.some(marker)).toBe(false);
    expect(history.map((e) => `${e.kind} ${e.name} ${e.state}`)).toEqual([
      'step book done',
      'step pay failed',
      expect.stringMatching(/^compensate book/),
    ]);
  });

  it('is shown by both inspectors: the newest steps, from the pages too', async () => {
    const app = defineApp({ workflows: [Long] });
    const h = workflowHarness(app.actors);
    const ref = await h.client.start(Long, 'i', { steps: STEPS });
    await h.runAll();
    const record = await h.record(ref.id);
    if (!record) throw new Error('the instance has no record');
    expect((record.state as WorkflowState).sealed?.entries).toBeGreaterThan(STEPS - 300);

    // `baton inspect`'s actor page: the newest 500 steps.
    const inspected = await readActor({ store: h.backend.store } as unknown as Target, ref.id);
    const steps = inspected.steps as { seq: number }[];
    expect(steps.map((e) => e.seq)).toEqual(range(STEPS - 500, STEPS));

    // `baton dev`'s inspector: the newest 200 steps of each instance it lists.
    const backend = {
      label: 'embedded',
      store: h.backend.store,
      actorsListed: 'all',
      listActors: async () => [record],
      depths: async () => ({ visible: 0, inFlight: 0, delayed: 0 }),
    } as unknown as DevBackend;
    const snapshot = await inspectorSnapshot({
      app,
      backend,
      turns: new TurnLog(),
      startedAt: 0,
      server: () => undefined,
    });
    expect(snapshot.workflows.map((w) => w.id)).toEqual(['i']);
    expect(snapshot.workflows[0]?.steps.map((e) => e.seq)).toEqual(range(STEPS - 200, STEPS));
  });
});
