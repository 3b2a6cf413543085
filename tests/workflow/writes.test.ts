/**
 * What a workflow step costs in writes (the budget: at most one write of the instance's
 * record per step, plus the message that carries its result): counted on the store's commits of
 * the instance, for a run of actor calls (one turn per reply) and for a run of outside steps
 * (several a turn), with the timer items those commits write. The emulators' figure, against a
 * hand-written actor, is `BENCH_ONLY=8 pnpm bench`'s row 8c.
 */
import { type ActorRef, actor, defineApp, workflow } from '@baton/core';
import type { Commit } from '@baton/core/adapter';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { workflowHarness } from './harness.ts';

const STEPS = 40;

const Tally = actor({
  name: 'tally',
  state: z.object({ count: z.number() }),
  initial: () => ({ count: 0 }),
  handlers: {
    add: { payload: z.object({}), handle: (ctx) => ++ctx.state.count },
  },
});

const Calls = workflow({
  name: 'calls',
  input: z.object({}),
  run: async (ctx) => {
    let last = 0;
    for (let i = 0; i < STEPS; i++) last = await ctx.call(Tally.ref(ctx.id), 'add', {});
    return last;
  },
});

const Steps = workflow({
  name: 'steps',
  input: z.object({}),
  run: async (ctx) => {
    let total = 0;
    for (let i = 0; i < STEPS; i++) total += await ctx.step(`s${i}`, () => i);
    return total;
  },
});

/** The harness, and the commits of each record as its store took them. */
function counted() {
  const { actors } = defineApp({ actors: [Tally], workflows: [Calls, Steps] });
  const h = workflowHarness(actors);
  const commits = new Map<string, Commit[]>();
  const store = h.backend.store;
  const commit = store.commit.bind(store);
  store.commit = async (c: Commit) => {
    await commit(c);
    commits.set(c.record.id, [...(commits.get(c.record.id) ?? []), c]);
  };
  return { h, of: (ref: ActorRef) => commits.get(ref.id) ?? [] };
}

describe('the writes of a workflow step', () => {
  it('are one write of the record per actor call, and one message out for it', async () => {
    const { h, of } = counted();
    const ref = await h.client.start(Calls, 'c', {});
    await h.runAll();
    expect(await h.client.result(ref)).toBe(STEPS);
    // The start's turn issues the first call; each reply's turn journals it and issues the next.
    expect(of(ref)).toHaveLength(STEPS + 1);
    expect(of(ref).length / STEPS).toBeLessThanOrEqual(1.1);
    const sent = of(ref).map((c) => c.outbox.length + (c.record.outbox?.length ?? 0));
    expect(Math.max(...sent)).toBe(1);
    // Timer items: each call's timeout, put with the call and removed with its reply, and the
    // finished instance's expiry; no other (a recheck of a run never paused, say).
    const timers = (pick: (c: Commit) => readonly string[]) => of(ref).flatMap(pick);
    const asks = (ids: string[]) => ids.filter((id) => id.startsWith('ask:'));
    const put = timers((c) => (c.timers?.put ?? []).map((t) => t.id));
    const removed = timers((c) => c.timers?.remove ?? []);
    expect(asks(put)).toHaveLength(STEPS);
    expect(asks(removed)).toEqual(asks(put));
    expect(put.filter((id) => !id.startsWith('ask:'))).toEqual(['wf:expire']);
    expect(removed.filter((id) => !id.startsWith('ask:'))).toEqual([]);
    // The actor's side: one commit per call, as for any ask.
    expect(of(Tally.ref('c'))).toHaveLength(STEPS);
  });

  it('are fewer than one write of the record per outside step, several steps a turn', async () => {
    const { h, of } = counted();
    const ref = await h.client.start(Steps, 's', {});
    await h.runAll();
    expect(await h.client.result(ref)).toBe((STEPS * (STEPS - 1)) / 2);
    // At most maxStepsPerTurn (10) steps a turn: the start's turn and three more.
    expect(of(ref).length).toBeGreaterThanOrEqual(STEPS / 10);
    expect(of(ref).length).toBeLessThanOrEqual(STEPS / 10 + 1);
  });
});
