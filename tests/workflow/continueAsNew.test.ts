/**
 * `ctx.continueAsNew(input)`: a run ends and the instance starts a new run with an empty history
 * — each step still applied once, on a warm worker and a cold one; the instance keeps its id,
 * its parents, the events it holds and its starts' idempotency; the ended run's pages are
 * forgotten; a run that would leave work under way or compensations kept is refused (paused).
 */
import {
  actor,
  defineApp,
  ErrorCode,
  TerminalError,
  type WorkflowState,
  workflow,
} from '@baton/core';
import { pauseActor, resumeActor } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { storedPages, workflowHarness } from './harness.ts';

const MINUTE = 60_000;

/** Keeps the tag of each message it applies, and replies `echo:<tag>`. */
const Echo = actor({
  name: 'echo',
  state: z.object({ applied: z.array(z.string()) }),
  initial: () => ({ applied: [] as string[] }),
  handlers: {
    echo: {
      payload: z.object({ tag: z.string() }),
      handle: (ctx, { tag }) => {
        ctx.state.applied.push(tag);
        return `echo:${tag}`;
      },
    },
  },
});

/** Polls `total` times, 3 a run, a minute apart; each poll's step records its run and key. */
function poller(log: { n: number; run: string; key: string }[]) {
  return workflow({
    name: 'poller',
    input: z.object({ round: z.number(), total: z.number() }),
    run: async (ctx, { round, total }) => {
      for (let i = 0; i < 3; i++) {
        const n = round * 3 + i;
        await ctx.step('poll', ({ key }) => void log.push({ n, run: ctx.runId, key }));
        await ctx.sleep(MINUTE);
      }
      if ((round + 1) * 3 < total) ctx.continueAsNew({ round: round + 1, total });
      return { polled: total };
    },
  });
}

describe('ctx.continueAsNew', () => {
  it('runs each step once across runs, each run with its own id, keys and history', async () => {
    const log: { n: number; run: string; key: string }[] = [];
    const Poller = poller(log);
    const h = workflowHarness([Poller.actor]);
    const ref = await h.client.start(Poller, 'p-1', { round: 0, total: 9 });
    await h.runAll();

    const status = await h.client.workflowStatus(ref);
    expect(status).toMatchObject({ status: 'completed', output: { polled: 9 }, continued: 2 });
    // The record holds the last run's commands alone: 3 polls and 3 sleeps.
    expect(status.steps).toBe(6);
    expect(log.map((l) => l.n)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(new Set(log.map((l) => l.run)).size).toBe(3);
    expect(new Set(log.map((l) => l.key)).size).toBe(9);
    const state = (await h.state(ref.id)) as WorkflowState;
    expect(state.input).toEqual({ round: 2, total: 9 });
    expect(state.firstRun?.input).toEqual({ round: 0, total: 9 });
  });

  it('goes on from the record on a cold worker, each step still once', async () => {
    const log: { n: number; run: string; key: string }[] = [];
    const Poller = poller(log);
    const h = workflowHarness([Poller.actor]);
    const ref = await h.client.start(Poller, 'p-1', { round: 0, total: 9 });
    // Into the second run, then new code (no warm run) at every turn from there.
    await h.runAll({ until: h.clock.now() + 4 * MINUTE });
    expect((await h.client.workflowStatus(ref)).continued).toBe(1);
    for (let turn = 0; turn < 20; turn++) {
      h.deploy([Poller.actor]);
      const timers = await h.backend.store.listDueTimers(Number.MAX_SAFE_INTEGER, 10);
      const next = timers.find((t) => t.actorId === ref.id && t.id.startsWith('wf:'));
      if (!next) break;
      await h.runAll({ until: next.at });
    }
    await h.runAll();
    expect(await h.client.result(ref)).toEqual({ polled: 9 });
    expect(log.map((l) => l.n)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('starts the next run in a turn of its own, so a run that continues at once does not loop in one', async () => {
    const Count = workflow({
      name: 'count',
      input: z.object({ n: z.number() }),
      run: async (ctx, { n }) => {
        if (n < 3) {
          ctx.setProgress(n);
          ctx.continueAsNew({ n: n + 1 });
        }
        return `${ctx.runId}:${n}`;
      },
    });
    const h = workflowHarness([Count.actor]);
    const ref = await h.client.start(Count, 'c-1', { n: 0 });
    // The start's turn ends the first run: the next, begun in the record, has not run yet.
    await h.worker.poll();
    expect(await h.client.workflowStatus(ref)).toMatchObject({
      status: 'running',
      continued: 1,
      steps: 0,
      progress: 0,
    });
    await h.runAll();
    const status = await h.client.workflowStatus(ref);
    // The progress the last run that set it gave, committed with its continue.
    expect(status).toMatchObject({ status: 'completed', continued: 3, progress: 2 });
    const state = (await h.state(ref.id)) as WorkflowState;
    expect(status.output).toBe(`${state.runId}:3`);
    expect(state.runId).not.toBe(state.firstRun?.runId);
  });

  it('keeps the events the instance holds for the next run, and cancels the ended run’s waits', async () => {
    const Inbox = workflow({
      name: 'inbox',
      input: z.object({ handled: z.number() }),
      events: { mail: z.object({ id: z.string() }), stop: z.object({}) },
      run: async (ctx, { handled }) => {
        const got = await ctx.race([ctx.waitForEvent('mail'), ctx.sleep(60 * MINUTE)]);
        if (got.index === 1) throw new TerminalError('no mail for an hour');
        ctx.setProgress({ handled: handled + 1, last: got.value.id });
        if (handled + 1 < 3) ctx.continueAsNew({ handled: handled + 1 });
        return handled + 1;
      },
    });
    const h = workflowHarness([Inbox.actor]);
    const ref = await h.client.start(Inbox, 'i-1', { handled: 0 });
    for (const id of ['m1', 'm2', 'm3']) await h.client.signal(ref, 'mail', { id });
    await h.runAll({ until: h.clock.now() });
    expect(await h.client.workflowStatus(ref)).toMatchObject({
      status: 'completed',
      output: 3,
      continued: 2,
      progress: { handled: 3, last: 'm3' },
    });
    // Each run's hour-long sleep lost its race, its timer gone with it.
    const timers = await h.backend.store.listTimers(ref.id);
    expect(timers.filter((t) => t.id.startsWith('wf:') && t.id !== 'wf:expire')).toEqual([]);
  });

  it('forgets the pages of the runs that ended, and the last one’s once its retention ends', async () => {
    const Bulk = workflow({
      name: 'bulk',
      input: z.object({ round: z.number() }),
      retentionMs: MINUTE,
      // A turn of two steps at most: each run's early steps move out into pages before it ends.
      maxStepsPerTurn: 2,
      run: async (ctx, { round }) => {
        for (let i = 0; i < 6; i++) await ctx.step(`s${i}`, () => 'r'.repeat(5_000));
        if (round < 2) ctx.continueAsNew({ round: round + 1 });
        return round;
      },
    });
    const app = defineApp({ workflows: [Bulk] });
    const h = workflowHarness(app.actors);
    const ref = await h.client.start(Bulk, 'b-1', { round: 0 });
    await h.runAll();
    expect(await h.client.result(ref)).toBe(2);
    const ended = (await h.state(ref.id)) as WorkflowState;
    const pagesOfLastRun = ended.sealed?.pages ?? 0;
    expect(pagesOfLastRun).toBeGreaterThan(0);
    // Only the last run's pages are left: the earlier runs' went with the turns that followed.
    expect(ended.earlierPages).toBeUndefined();
    const pages = storedPages(h, ref.id);
    expect(pages).toHaveLength(pagesOfLastRun);
    expect(pages.every((p) => p.peer.startsWith(`wf:${ended.runId}:`))).toBe(true);

    await h.runAll({ expire: true });
    expect(await h.client.workflowStatus(ref)).toMatchObject({ status: 'new' });
    expect(storedPages(h, ref.id)).toEqual([]);
  });

  it('forgets many pages of an ended run in turns of their own, whatever the next run’s turns write', async () => {
    // 69 pages of the first run, beside a next run whose first turn arms 45 timers: together,
    // more than a commit holds (100 items).
    const Wide = workflow({
      name: 'wide',
      input: z.object({ round: z.number() }),
      run: async (ctx, { round }) => {
        if (round === 0) {
          for (let i = 0; i < 80; i++) await ctx.step(`s${i}`, () => 'r'.repeat(6_000));
          ctx.continueAsNew({ round: 1 });
        }
        await Promise.all(Array.from({ length: 45 }, (_, i) => ctx.sleep(MINUTE + i)));
        return 'done';
      },
    });
    const app = defineApp({ workflows: [Wide] });
    const h = workflowHarness(app.actors);
    const ref = await h.client.start(Wide, 'w-1', { round: 0 });
    await h.runAll({ until: h.clock.now() });
    const state = (await h.state(ref.id)) as WorkflowState;
    expect(state).toMatchObject({ status: 'waiting', continued: 1 });
    expect(state.earlierPages).toBeUndefined();
    expect(storedPages(h, ref.id)).toEqual([]);
    expect(await h.backend.store.listDeadLetters(ref.id)).toEqual([]);
    await h.runAll();
    expect(await h.client.result(ref)).toBe('done');
  });

  it('gives a reply to a call of the ended run to no call of the new one', async () => {
    // The first run's call loses a race and is left under way; the next run's call has its number.
    const Asker = workflow({
      name: 'asker',
      input: z.object({ round: z.number() }),
      run: async (ctx, { round }) => {
        if (round === 0) {
          await ctx.race([ctx.call(Echo.ref('c'), 'echo', { tag: 'old' }), ctx.sleep(1000)]);
          ctx.continueAsNew({ round: 1 });
        }
        return ctx.call(Echo.ref('c'), 'echo', { tag: 'new' });
      },
    });
    const h = workflowHarness([Echo, Asker.actor]);
    // The actor takes its messages late: both calls wait in its inbox.
    await pauseActor(h.backend.store, h.backend.queue, 'echo/c', {
      by: 'drill',
      now: h.clock.now(),
    });
    const ref = await h.client.start(Asker, 'a-1', { round: 0 });
    await h.runAll({ until: h.clock.now() + 2000 });
    expect((await h.client.workflowStatus(ref)).continued).toBe(1);
    // A reply without a run, as to an ask an earlier Baton made (of the first run): not taken.
    const stale = { ok: true, value: 'echo:stale', context: { seq: 0 } };
    await h.client.send(ref as never, '_reply' as never, stale as never);
    await h.runAll({ until: h.clock.now() });
    await resumeActor(h.backend.store, h.backend.queue, 'echo/c', {
      by: 'drill',
      now: h.clock.now(),
    });
    await h.runAll();
    expect(await h.state('echo/c')).toEqual({ applied: ['old', 'new'] });
    expect(await h.client.result(ref)).toBe('echo:new');
  });

  it('takes a reply without a run, as to an ask an earlier Baton made, while the instance never continued', async () => {
    const Once = workflow({
      name: 'once',
      input: z.object({}),
      run: async (ctx) => ctx.call(Echo.ref('c'), 'echo', { tag: 'once' }),
    });
    const h = workflowHarness([Echo, Once.actor]);
    await pauseActor(h.backend.store, h.backend.queue, 'echo/c', {
      by: 'drill',
      now: h.clock.now(),
    });
    const ref = await h.client.start(Once, 'o-1', {});
    await h.runAll({ until: h.clock.now() });
    const earlier = { ok: true, value: 'from an earlier Baton', context: { seq: 0 } };
    await h.client.send(ref as never, '_reply' as never, earlier as never);
    await h.runAll({ until: h.clock.now() });
    expect(await h.client.result(ref)).toBe('from an earlier Baton');
  });

  it('refuses a child id its earlier run used, saying to derive it from ctx.runId', async () => {
    const Kid = workflow({ name: 'kid', input: z.object({}), run: async () => 'grown' });
    const Family = workflow({
      name: 'family',
      input: z.object({ round: z.number() }),
      run: async (ctx, { round }) => {
        await ctx.child(Kid, `${ctx.id}-kid`, {});
        if (round === 0) ctx.continueAsNew({ round: 1 });
        return 'done';
      },
    });
    const h = workflowHarness([Kid.actor, Family.actor]);
    const ref = await h.client.start(Family, 'f-1', { round: 0 });
    await h.runAll();
    expect((await h.client.workflowStatus(ref)).error?.message).toContain(
      "Derive a child id from ctx.runId when a child may outlive its parent's run (a parent started anew, or one that continued as new)",
    );
  });

  it('takes a start of the first input again as the same start, and refuses another', async () => {
    const log: { n: number; run: string; key: string }[] = [];
    const Poller = poller(log);
    const h = workflowHarness([Poller.actor]);
    const ref = await h.client.start(
      Poller,
      'p-1',
      { round: 0, total: 9 },
      { idempotencyKey: 'k' },
    );
    await h.runAll({ until: h.clock.now() + 4 * MINUTE });
    expect((await h.client.workflowStatus(ref)).continued).toBe(1);
    // A retry of the start, with or without its key: the instance's start, taken already.
    await expect(
      h.client.start(Poller, 'p-1', { round: 0, total: 9 }, { idempotencyKey: 'k' }),
    ).resolves.toEqual(ref);
    await expect(h.client.start(Poller, 'p-1', { round: 0, total: 9 })).resolves.toEqual(ref);
    // The current run's input is no start of the instance's.
    await expect(h.client.start(Poller, 'p-1', { round: 1, total: 9 })).rejects.toMatchObject({
      code: ErrorCode.REJECTED,
      details: { id: 'p-1' },
    });
    await h.runAll();
    expect(log.map((l) => l.n)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it("is its parent's child throughout: the parent gets the last run's output", async () => {
    const Child = workflow({
      name: 'child',
      input: z.object({ n: z.number() }),
      run: async (ctx, { n }) => {
        await ctx.sleep(MINUTE);
        return n < 2 ? ctx.continueAsNew({ n: n + 1 }) : n * 10;
      },
    });
    const Parent = workflow({
      name: 'parent',
      input: z.object({}),
      run: async (ctx) => ctx.child(Child, `${ctx.id}-child`, { n: 0 }),
    });
    const h = workflowHarness([Parent.actor, Child.actor]);
    const ref = await h.client.start(Parent, 'p', {});
    await h.runAll();
    expect(await h.client.result(ref)).toBe(20);
  });

  it('bounds each run by timeoutMs from its own start', async () => {
    const Laps = workflow({
      name: 'laps',
      input: z.object({ lap: z.number() }),
      timeoutMs: 60 * MINUTE,
      run: async (ctx, { lap }) => {
        await ctx.sleep(40 * MINUTE);
        return lap < 3 ? ctx.continueAsNew({ lap: lap + 1 }) : lap;
      },
    });
    const h = workflowHarness([Laps.actor]);
    const started = h.clock.now();
    const ref = await h.client.start(Laps, 'l-1', { lap: 0 });
    await h.runAll({ until: started + 50 * MINUTE });
    expect(await h.client.workflowStatus(ref)).toMatchObject({
      status: 'waiting',
      continued: 1,
      deadlineAt: started + 100 * MINUTE,
    });
    await h.runAll();
    expect(await h.client.workflowStatus(ref)).toMatchObject({ status: 'completed', output: 3 });
  });

  it('fails a step whose function calls it, at once: its outside work is not run again', async () => {
    let attempts = 0;
    const Inside = workflow({
      name: 'inside',
      input: z.object({}),
      run: async (ctx) => {
        await ctx.step('poll', () => {
          attempts++;
          ctx.continueAsNew({});
        });
        return 'done';
      },
    });
    const h = workflowHarness([Inside.actor]);
    const ref = await h.client.start(Inside, 'i-1', {});
    await h.runAll();
    const status = await h.client.workflowStatus(ref);
    expect(status.error).toMatchObject({ code: ErrorCode.STEP_FAILED });
    expect(status.error?.message).toContain(
      `ctx.continueAsNew of workflow "inside" was called inside a step's function or a compensation: call it from the run's code`,
    );
    expect(attempts).toBe(1);
  });

  it("is refused in a call's compensation, which runs once the run has ended", async () => {
    const Undo = workflow({
      name: 'undo',
      input: z.object({}),
      run: async (ctx) => {
        await ctx.call(
          Echo.ref('d'),
          'echo',
          { tag: 'hold' },
          {
            // A compensation's context has no continueAsNew: called all the same, it is refused.
            compensate: (_, saga) => (saga as unknown as typeof ctx).continueAsNew({}),
          },
        );
        throw new TerminalError('no room');
      },
    });
    const h = workflowHarness([Echo, Undo.actor]);
    const ref = await h.client.start(Undo, 'u-1', {});
    await h.runAll();
    const status = await h.client.workflowStatus(ref);
    expect(status).toMatchObject({ status: 'failed' });
    expect(status).not.toHaveProperty('continued');
    expect(status.error?.details?.compensationErrors).toEqual([
      expect.objectContaining({
        code: ErrorCode.REJECTED,
        message: `ctx.continueAsNew of workflow "undo" was called inside a step's function or a compensation: call it from the run's code`,
      }),
    ]);
  });

  it('pauses a run that would leave compensations kept or work under way, or give a bad input', async () => {
    // A child that runs until told: it stays under way.
    const Waiter = workflow({
      name: 'waiter',
      input: z.object({}),
      run: async (ctx) => ctx.waitForEvent('go'),
    });
    const cases: [string, (ctx: any) => Promise<unknown>, string][] = [
      [
        'kept',
        async (ctx) => {
          await ctx.step('charge', () => 1, { compensate: () => undefined });
          ctx.continueAsNew({});
        },
        'the run leaves compensations kept, or work to undo, which a new run would neither await nor undo',
      ],
      [
        'unawaited',
        async (ctx) => {
          void ctx.child(Waiter, 'w-1', {});
          ctx.continueAsNew({});
        },
        'the run leaves work under way (child "waiter")',
      ],
      [
        'several',
        async (ctx) => {
          void ctx.step('label', () => 1);
          void ctx.sleep(60_000);
          void ctx.child(Waiter, 'w-2', {});
          ctx.continueAsNew({});
        },
        // A sleep is no work: it is cancelled, as the run ends.
        'the run leaves work under way (step "label", child "waiter")',
      ],
      [
        'input',
        async (ctx) => ctx.continueAsNew({ n: 'one' }),
        'its input schema refuses the input (input.n: ',
      ],
    ];
    for (const [name, run, message] of cases) {
      const Bad = workflow({ name, input: z.object({ n: z.number().optional() }), run });
      const h = workflowHarness([Waiter.actor, Bad.actor]);
      const ref = await h.client.start(Bad, 'b-1', {});
      await h.runAll({ until: h.clock.now() });
      const status = await h.client.workflowStatus(ref);
      expect(status.status, name).toBe('paused');
      expect(status.paused?.error.message, name).toContain(
        `threw INVALID_ARGUMENT: ctx.continueAsNew of workflow "${name}": ${message}`,
      );
      expect(status, name).not.toHaveProperty('continued');
    }
  });

  it('pauses a run that caught what it throws and returned, rather than completing as the code did not mean', async () => {
    const Caught = (version: string, letThrough: boolean) =>
      workflow({
        name: 'caught',
        version,
        input: z.object({ n: z.number() }),
        run: async (ctx, { n }) => {
          await ctx.step('tick', () => n);
          if (n > 0) return n;
          if (n < 0) await ctx.waitForEvent('go');
          try {
            ctx.continueAsNew({ n: n + 1 });
          } catch (error) {
            if (letThrough) throw error;
          }
          return -1;
        },
      });
    const h = workflowHarness([Caught('1', false).actor]);
    const ref = await h.client.start(Caught('1', false), 'c-1', { n: 0 });
    await h.runAll({ until: h.clock.now() });
    const status = await h.client.workflowStatus(ref);
    expect(status.status).toBe('paused');
    expect(status.paused?.error.message).toContain(
      'threw INVALID_ARGUMENT: workflow "caught" returned after ctx.continueAsNew, which ends the run by throwing: a try around it caught that and the run went on. Let it through',
    );
    h.deploy([Caught('2', true).actor]);
    await h.client.resumeWorkflow(ref);
    await h.runAll({ until: h.clock.now() });
    expect(await h.client.workflowStatus(ref)).toMatchObject({
      status: 'completed',
      output: 1,
      continued: 1,
    });
    // A run an earlier release started (no `rules`) completes as it did.
    h.deploy([Caught('3', false).actor]);
    const earlier = await h.client.start(Caught('3', false), 'c-2', { n: -1 });
    await h.runAll({ until: h.clock.now() });
    await h.rewriteState(earlier.id, ({ rules: _rules, ...state }) => state);
    await h.client.signal(earlier, 'go');
    await h.runAll({ until: h.clock.now() });
    expect(await h.client.workflowStatus(earlier)).toMatchObject({
      status: 'completed',
      output: -1,
    });
  });
});
