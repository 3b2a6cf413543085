/**
 * `workflowHistory` pages back through a long history to its first command, every command once:
 * a window is the newest `limit` command numbers below `before`, whole. Entries pinned while
 * pending move into a later page than the entries after them, so a window is read until it is
 * whole, not until it holds `limit` entries.
 */
import { defineApp, workflow } from '@baton/core';
import { Registry } from '@baton/core/adapter';
import { evaluateQuery } from '@baton/server/evaluation';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { STATE_PAGES } from '../../packages/core/src/contextSlots.ts';
import { dropHistory, historyWindow, pageId } from '../../packages/core/src/workflow/history.ts';
import type { JournalEntry, WorkflowState } from '../../packages/core/src/workflow/journal.ts';
import { workflowHarness } from './harness.ts';

const WAITS = 40;
const Fan = workflow({
  name: 'fan',
  input: z.object({ b: z.number() }),
  run: async (ctx, { b }) => {
    // Issued first, awaited after a long loop: pinned, then moved out with a later page.
    const waits = Array.from({ length: WAITS }, (_, i) => ctx.waitForEvent(`e${i}`));
    for (let i = 0; i < 300; i++) await ctx.step(`a${i}`, () => `${i}:${'r'.repeat(1_000)}`);
    for (const w of waits) await w;
    for (let i = 0; i < b; i++) await ctx.step(`b${i}`, () => `${i}:${'r'.repeat(1_000)}`);
    return 'ok';
  },
});

describe('workflowHistory paged back through a history with pinned entries', () => {
  it('shows every command once, back to the first', async () => {
    const b = 710;
    const app = defineApp({ workflows: [Fan] });
    const h = workflowHarness(app.actors);
    const ref = await h.client.start(Fan, 'f', { b });
    await h.runAll();
    for (let i = 0; i < WAITS; i++) await h.client.signal(ref, `e${i}`, i);
    await h.runAll();
    const state = (await h.state(ref.id)) as WorkflowState;
    expect(state.status).toBe('completed');
    const total = state.sealed!.entries + state.journal.length;

    const definition = app.queries.find((q) => q.name === 'workflowHistory')!;
    const env = { registry: new Registry(app.actors), store: h.backend.store };
    const seen: number[] = [];
    let before: number | undefined;
    for (let round = 0; round < 20; round++) {
      const args = { workflow: 'fan', id: 'f', ...(before === undefined ? {} : { before }) };
      const { outcome } = await evaluateQuery(definition, args, undefined, env);
      if (!outcome.ok) throw outcome.error;
      const r = JSON.parse(outcome.text) as { history: { seq: number }[]; older: boolean };
      seen.push(...r.history.map((e) => e.seq));
      if (!r.older) break;
      before = r.history[0]!.seq;
    }
    const missing = Array.from({ length: total }, (_, i) => i).filter((s) => !seen.includes(s));
    expect(missing).toEqual([]);
  });

  it('reads on until the window is whole, past pinned entries read from a later page', async () => {
    // Page 0: 1..5 (0 pending, pinned); pages 1..15: 6..20; page 16: 0 (now final) and 21.
    const entry = (seq: number) =>
      ({ seq, kind: 'step', name: `s${seq}`, state: 'done' }) as JournalEntry;
    const contents = [[1, 2, 3, 4, 5], ...Array.from({ length: 15 }, (_, i) => [6 + i]), [0, 21]];
    const state = {
      status: 'waiting',
      runId: 'r',
      journal: [entry(22)],
      completed: 23,
      signals: [],
      notify: [],
      sealed: { entries: 22, pages: contents.length, lows: [0] },
    } as unknown as WorkflowState;
    const store = new Map(contents.map((c, n) => [pageId(state, n), c.map(entry)]));
    const read = async (ids: readonly string[]) => new Map(ids.map((id) => [id, store.get(id)]));
    const { entries, older } = await historyWindow(state, read, { limit: 18 });
    expect(entries.map((e) => e.seq)).toEqual(Array.from({ length: 18 }, (_, i) => 5 + i));
    expect(older).toBe(true);
  });

  it('stops at the first command missing, and says older ones are left out', async () => {
    // Pages of one entry each (0..99), the record holding 100 and the pinned entry 0.
    const entry = (seq: number) =>
      ({ seq, kind: 'step', name: `s${seq}`, state: 'done' }) as JournalEntry;
    const state = {
      status: 'completed',
      runId: 'r',
      journal: [entry(100)],
      pinned: [entry(0)],
      completed: 101,
      signals: [],
      notify: [],
      sealed: { entries: 100, pages: 100, lows: [1, 64] },
    } as unknown as WorkflowState;
    const store = new Map(Array.from({ length: 100 }, (_, n) => [pageId(state, n), [entry(n)]]));
    const read = async (ids: readonly string[]) => new Map(ids.map((id) => [id, store.get(id)]));
    const window = async (reader?: typeof read) => {
      const { entries, older } = await historyWindow(state, reader);
      return { seqs: entries.map((e) => e.seq), older };
    };
    // Without the pages: the record's newest, not its pinned 0 (which would hide 1..99).
    expect(await window()).toEqual({ seqs: [100], older: true });
    // A page missing: the run down to it.
    store.delete(pageId(state, 98));
    expect(await window(read)).toEqual({ seqs: [99, 100], older: true });
    // A finished instance forgetting its pages, the newest first: the run down to the gap.
    const ctx = {
      state,
      [STATE_PAGES]: { put: () => {}, drop: (id: string) => store.delete(id), read },
    };
    expect(dropHistory(ctx as never)).toBe(false);
    expect(await window(read)).toEqual({ seqs: [100], older: true });
  });
});
