/**
 * Deploys of changed workflow code: a run that no longer replays its history pauses with
 * NON_DETERMINISTIC (never fails, never corrupts), fixed code resumes it, `ctx.patched` lets
 * old and new runs take their own paths, and `replayWorkflow` finds the break before a deploy.
 */
import {
  type AnyWorkflowDefinition,
  actor,
  ErrorCode,
  replayWorkflow,
  type WorkflowContext,
  type WorkflowState,
  workflow,
} from '@baton/core';
import { WORKFLOW_LEFT_PAUSED_LOG } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { recordingLogger } from '../engine/helpers.ts';
import { workflowHarness } from './harness.ts';

/** Counts step runs by name across every version of the code. */
const runs = new Map<string, number>();
const ran = (name: string) => () => {
  runs.set(name, (runs.get(name) ?? 0) + 1);
  return name;
};

/** A version of workflow "ship": same name, other code. */
function ship(version: string, run: (ctx: WorkflowContext) => Promise<unknown>) {
  return workflow({ name: 'ship', version, input: z.object({}), run: (ctx) => run(ctx) });
}

const V1 = ship('1', async (ctx) => {
  await ctx.step('pack', ran('pack'));
  await ctx.waitForEvent('go');
  return ctx.step('send', ran('send'));
});
/** Renames the first step: an incompatible change. */
const V2 = ship('2', async (ctx) => {
  await ctx.step('box', ran('box'));
  await ctx.waitForEvent('go');
  return ctx.step('send', ran('send'));
});
/** V1 with a new step behind a patch: a compatible change. */
const V3 = ship('3', async (ctx) => {
  await ctx.step('pack', ran('pack'));
  if (ctx.patched('label')) await ctx.step('label', ran('label'));
  await ctx.waitForEvent('go');
  return ctx.step('send', ran('send'));
});

describe('a deploy of changed workflow code', () => {
  it('pauses an instance its code no longer replays, and resumes it once fixed code runs', async () => {
    runs.clear();
    const { logger, lines } = recordingLogger();
    const h = workflowHarness([V1.actor], { logger });
    const ref = await h.client.start(V1, 'p', {});
    await h.runAll();

    h.deploy([V2.actor]);
    await h.client.signal(ref, 'go');
    // Replayed again on a timer in case a deploy was rolling out: after 1, 2, 4, 8 and 16 minutes.
    await h.runAll({ until: h.clock.now() });
    const rechecks: number[] = [];
    for (let timers = await h.backend.store.listTimers(ref.id); timers.length > 0; ) {
      expect(timers.map((t) => t.id)).toEqual(['wf:recheck']);
      rechecks.push(timers[0]!.at - h.clock.now());
      await h.runAll({ until: timers[0]!.at });
      timers = await h.backend.store.listTimers(ref.id);
    }
    expect(rechecks).toEqual([1, 2, 4, 8, 16].map((minutes) => minutes * 60_000));
    const paused = await h.client.workflowStatus(ref);
    expect(paused.status).toBe('paused');
    expect(paused.paused).toMatchObject({
      version: '2',
      error: {
        code: ErrorCode.NON_DETERMINISTIC,
        details: { workflow: 'ship', version: '2', seq: 0, step: 'pack', kind: 'step' },
      },
    });
    expect(paused.paused?.error.message).toContain(
      'command 0 of the history is step "pack", but the code now issues step "box" there',
    );
    // Another version recorded it: a deploy, not a run that is not deterministic.
    expect(paused.paused?.error.details).toMatchObject({ recordedBy: '1' });
    expect(paused.paused?.error.message).not.toContain('same version recorded it');
    expect(paused.paused?.error.message).toMatch(
      /\(keep the old path behind ctx\.patched\(id\)\) and resume it$/,
    );
    // Nothing of the new code ran, and the history (with the event) is intact.
    expect(runs.get('box')).toBeUndefined();
    const state = (await h.state(ref.id)) as WorkflowState;
    expect(state.journal.map((e) => [e.kind, e.name, e.state])).toEqual([
      ['step', 'pack', 'done'],
      ['event', 'go', 'done'],
    ]);
    // Left paused after the last recheck, with no timer; said once, not at each recheck.
    expect(state.rechecks).toBe(5);
    const said = lines.filter((line) => line.message.startsWith('workflow paused'));
    expect(said).toMatchObject([
      {
        level: 'error',
        message: 'workflow paused: its code cannot go on from its history',
        fields: { workflow: 'ship', version: '2', error: paused.paused?.error.message },
      },
    ]);
    // Said once no replay is left due, not while one is (a deploy may still be rolling out):
    // what PausedWorkflowsAlarm pages for.
    expect(lines.filter((line) => line.message === WORKFLOW_LEFT_PAUSED_LOG)).toMatchObject([
      { level: 'error', fields: { workflow: 'ship', version: '2' } },
    ]);

    h.deploy([V1.actor]);
    await h.client.resumeWorkflow(ref);
    await h.runAll();
    expect(await h.client.result(ref)).toBe('send');
    expect(Object.fromEntries(runs)).toEqual({ pack: 1, send: 1 });
  });

  it('leaves no recheck behind when a paused instance is terminated', async () => {
    const h = workflowHarness([V1.actor]);
    const ref = await h.client.start(V1, 't', {});
    await h.runAll();
    h.deploy([V2.actor]);
    await h.client.signal(ref, 'go');
    await h.runAll({ until: h.clock.now() });
    expect((await h.backend.store.listTimers(ref.id)).map((t) => t.id)).toEqual(['wf:recheck']);

    await h.client.terminate(ref, { reason: 'stuck' });
    await h.runAll({ until: h.clock.now() });
    // Only the finished instance's expiry is left.
    expect((await h.backend.store.listTimers(ref.id)).map((t) => t.id)).toEqual(['wf:expire']);
    expect((await h.client.workflowStatus(ref)).status).toBe('terminated');
  });

  it('keeps the cancel of a paused instance until its code replays, then runs its compensations', async () => {
    const log: string[] = [];
    const order = (email: boolean) =>
      workflow({
        name: 'order',
        input: z.object({}),
        run: async (ctx) => {
          await ctx.step('charge', () => void log.push('charge'), {
            compensate: () => void log.push('refund'),
          });
          if (email) await ctx.step('email', () => void log.push('email'));
          await ctx.waitForEvent('shipped');
          return 'shipped';
        },
      });
    const [next, previous] = [order(true), order(false)];
    const h = workflowHarness([next.actor]);
    const ref = await h.client.start(next, 'o', {});
    await h.runAll({ until: h.clock.now() });
    // A worker still on the previous code takes the next message: it pauses the instance.
    h.deploy([previous.actor]);
    await h.client.signal(ref, 'shipped');
    await h.runAll({ until: h.clock.now() });
    expect((await h.client.workflowStatus(ref)).status).toBe('paused');

    // Its rechecks run out while the old code runs on: no replay is left on a timer.
    await h.runAll({ until: h.clock.now() + 60 * 60_000 });
    expect(((await h.state(ref.id)) as WorkflowState).rechecks).toBe(5);
    expect((await h.backend.store.listTimers(ref.id)).map((t) => t.id)).toEqual([]);

    await h.client.cancel(ref, { reason: 'customer cancelled' });
    await h.runAll({ until: h.clock.now() });
    // Its compensations are the code's: none runs until a replay succeeds. The cancel shows,
    // and gets rechecks of its own.
    expect(await h.client.workflowStatus(ref)).toMatchObject({
      status: 'paused',
      ending: { status: 'cancelled', error: { code: ErrorCode.CANCELLED } },
    });
    expect((await h.backend.store.listTimers(ref.id)).map((t) => t.id)).toEqual(['wf:recheck']);
    expect(log).toEqual(['charge', 'email']);

    // The deploy is done: the recheck replays on the new code, which runs the saga.
    h.deploy([next.actor]);
    await h.runAll();
    const state = (await h.state(ref.id)) as WorkflowState;
    expect(state.status).toBe('cancelled');
    expect(state.error).toMatchObject({
      code: ErrorCode.CANCELLED,
      details: { reason: 'customer cancelled' },
    });
    expect(log).toEqual(['charge', 'email', 'refund']);
    expect((await h.backend.store.listTimers(ref.id)).map((t) => t.id)).toEqual(['wf:expire']);
  });

  it('carries on by itself an instance old code paused while the deploy rolled out', async () => {
    runs.clear();
    const h = workflowHarness([V2.actor]);
    const ref = await h.client.start(V2, 'r', {});
    await h.runAll();
    // A worker still on the old code takes the next message: it cannot replay the new history.
    h.deploy([V1.actor]);
    await h.client.signal(ref, 'go');
    await h.runAll({ until: h.clock.now() });
    expect((await h.client.workflowStatus(ref)).paused).toMatchObject({ version: '1' });

    // The deploy is done: the replay on a timer runs the new code, with no resume.
    h.deploy([V2.actor]);
    await h.runAll();
    expect(await h.client.result(ref)).toBe('send');
    expect(Object.fromEntries(runs)).toEqual({ box: 1, send: 1 });
    const state = (await h.state(ref.id)) as WorkflowState;
    expect([state.paused, state.rechecks, state.version]).toEqual([undefined, undefined, '2']);
  });

  it('lets a run recorded before a patch keep its path, and new runs take the patched one', async () => {
    runs.clear();
    const h = workflowHarness([V1.actor]);
    const old = await h.client.start(V1, 'old', {});
    await h.runAll();
    h.deploy([V3.actor]);
    const fresh = await h.client.start(V3, 'new', {});
    await h.runAll();
    await h.client.signal(old, 'go');
    await h.client.signal(fresh, 'go');
    await h.runAll();

    expect(await h.client.result(old)).toBe('send');
    expect(await h.client.result(fresh)).toBe('send');
    expect(Object.fromEntries(runs)).toEqual({ pack: 2, label: 1, send: 2 });
  });
});

describe('replayWorkflow', () => {
  /** The recorded history of a finished V1 instance. */
  async function history(definition: AnyWorkflowDefinition): Promise<WorkflowState> {
    const h = workflowHarness([definition.actor]);
    const ref = await h.client.start(definition, 'h', {});
    await h.client.signal(ref, 'go');
    await h.runAll();
    return (await h.state(ref.id)) as WorkflowState;
  }

  it('passes code that replays a recorded history, patched code included', async () => {
    const recorded = await history(V1);
    await expect(replayWorkflow(V1, recorded)).resolves.toEqual({
      outcome: 'completed',
      commands: 3,
    });
    await expect(replayWorkflow(V3, recorded)).resolves.toMatchObject({ outcome: 'completed' });
  });

  it('rejects code that renamed, removed or reordered a command, naming it', async () => {
    const recorded = await history(V1);
    await expect(replayWorkflow(V2, recorded)).rejects.toMatchObject({
      code: ErrorCode.NON_DETERMINISTIC,
      details: { step: 'pack', version: '2' },
    });
    const removed = ship('4', async (ctx) => {
      await ctx.step('pack', ran('pack'));
      return ctx.step('send', ran('send'));
    });
    await expect(replayWorkflow(removed, recorded)).rejects.toMatchObject({
      code: ErrorCode.NON_DETERMINISTIC,
      details: { seq: 1, step: 'go', kind: 'event' },
    });
    const reordered = ship('5', async (ctx) => {
      await ctx.waitForEvent('go');
      await ctx.step('pack', ran('pack'));
      return ctx.step('send', ran('send'));
    });
    await expect(replayWorkflow(reordered, recorded)).rejects.toMatchObject({
      code: ErrorCode.NON_DETERMINISTIC,
      details: { seq: 0, step: 'pack' },
    });
  });

  it('pauses a run whose call, send or child goes to another actor than its history says', async () => {
    const Counter = actor({
      name: 'counter',
      state: z.object({ n: z.number() }),
      initial: () => ({ n: 0 }),
      handlers: {
        count: {
          payload: z.object({}),
          handle: (ctx) => {
            ctx.state.n++;
            return ctx.state.n;
          },
        },
      },
    });
    const Child = workflow({ name: 'child', input: z.object({}), run: async () => 'done' });
    /** Picks its actors by a variable outside the history, as a run drawing Math.random does. */
    let pick = 'a';
    const Pick = workflow({
      name: 'pick',
      input: z.object({}),
      run: async (ctx) => {
        await ctx.call(Counter.ref(pick), 'count', {});
        ctx.send(Counter.ref(`${pick}-sent`), 'count', {});
        await ctx.child(Child, `${pick}-child`, {});
        await ctx.waitForEvent('go');
        return pick;
      },
    });
    const h = workflowHarness([Counter, Child.actor, Pick.actor]);
    const ref = await h.client.start(Pick, 'p', {});
    await h.runAll({ until: h.clock.now() });
    const recorded = (await h.state(ref.id)) as WorkflowState;
    expect(recorded.journal[2]).not.toHaveProperty('to'); // a child names its instance in `child`
    expect(recorded.journal.slice(0, 3).map((e) => e.to ?? e.child)).toEqual([
      'counter/a',
      'counter/a-sent',
      'wf-child/a-child',
    ]);

    pick = 'b';
    await expect(replayWorkflow(Pick, recorded)).rejects.toMatchObject({
      code: ErrorCode.NON_DETERMINISTIC,
      message: expect.stringContaining(
        'command 0 of the history is call "counter.count" to counter/a, but the code now issues it to counter/b there',
      ),
    });
    // Another worker (a cold one) replays the run to go on.
    h.deploy([Counter, Child.actor, Pick.actor]);
    await h.client.signal(ref, 'go');
    await h.runAll({ until: h.clock.now() });
    expect(await h.client.workflowStatus(ref)).toMatchObject({
      status: 'paused',
      paused: { error: { code: ErrorCode.NON_DETERMINISTIC, details: { seq: 0 } } },
    });
    // The run's effects went to the actors its history names, once each; none to the others.
    expect(await h.state(Counter.ref('a').id)).toEqual({ n: 1 });
    expect(await h.state(Counter.ref('b').id)).toBeUndefined();

    // The send and the child are checked too.
    const [call, send, child] = recorded.journal;
    const sendOnly = { ...recorded, journal: [{ ...call!, to: 'counter/b' }, send!, child!] };
    await expect(replayWorkflow(Pick, sendOnly)).rejects.toMatchObject({
      message: expect.stringContaining(
        'command 1 of the history is send "counter.count" to counter/a-sent, but the code now issues it to counter/b-sent',
      ),
    });
    const childOnly = {
      ...recorded,
      journal: [{ ...call!, to: 'counter/b' }, { ...send!, to: 'counter/b-sent' }, child!],
    };
    await expect(replayWorkflow(Pick, childOnly)).rejects.toMatchObject({
      message: expect.stringContaining(
        'command 2 of the history is child "child" to wf-child/a-child, but the code now issues it to wf-child/b-child',
      ),
    });
    // A history journaled before entries named their actor replays as it is.
    const unnamed = {
      ...recorded,
      journal: recorded.journal.map(({ to: _, child: __, ...entry }) => entry),
    };
    await expect(replayWorkflow(Pick, unnamed)).resolves.toMatchObject({ outcome: 'suspended' });
  });
});
