/**
 * A workflow's `timeoutMs`: a run still under way that long after its start fails with
 * TIMED_OUT and its compensations run, once; a run that ends first leaves no timer behind; a
 * child's timeout is its parent's failure to handle; a cancel under way is not overtaken.
 */
import { ErrorCode, TerminalError, type WorkflowState, workflow } from '@baton/core';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { workflowHarness } from './harness.ts';

const HOUR = 60 * 60 * 1000;

/** Charges, then waits for `shipped` up to `waitMs`; the charge is refunded if the run fails. */
function shipping(log: string[], options: { timeoutMs?: number; waitMs?: number } = {}) {
  return workflow({
    name: 'ship',
    input: z.object({}),
    timeoutMs: options.timeoutMs ?? HOUR,
    run: async (ctx) => {
      await ctx.step('charge', () => void log.push('charge'), {
        compensate: () => void log.push('refund'),
      });
      const shipped = await ctx.race([
        ctx.waitForEvent('shipped'),
        ctx.sleep(options.waitMs ?? 2 * HOUR),
      ]);
      if (shipped.index === 1) throw new TerminalError('not shipped');
      return 'shipped';
    },
  });
}

/** Every timer the instance `id` has stored, by id. */
async function timersOf(h: ReturnType<typeof workflowHarness>, id: string) {
  const timers = await h.backend.store.listDueTimers(Number.MAX_SAFE_INTEGER, 1_000);
  return timers.filter((t) => t.actorId === id).map((t) => t.id);
}

describe('a workflow with timeoutMs', () => {
  it('fails a run still under way at its deadline, TIMED_OUT, and runs its compensations once', async () => {
    const log: string[] = [];
    const Ship = shipping(log);
    const h = workflowHarness([Ship.actor]);
    const started = h.clock.now();
    const ref = await h.client.start(Ship, 's-1', {});
    await h.runAll({ until: started + HOUR });

    const status = await h.client.workflowStatus(ref);
    expect(status).toMatchObject({
      status: 'failed',
      error: {
        code: ErrorCode.TIMED_OUT,
        message:
          'workflow instance s-1 timed out: its run did not end within timeoutMs (3600000 ms)',
        details: { id: 's-1', timeoutMs: HOUR },
      },
    });
    expect(h.clock.now()).toBe(started + HOUR);
    expect(log).toEqual(['charge', 'refund']);
    // Its sleep was cancelled with the run: nothing of it fires later.
    await h.runAll();
    expect(log).toEqual(['charge', 'refund']);
    expect((await h.state(ref.id)) as WorkflowState).not.toHaveProperty('deadlineAt');
  });

  it('disarms the deadline when the run ends before it', async () => {
    const log: string[] = [];
    const Ship = shipping(log);
    const h = workflowHarness([Ship.actor]);
    const started = h.clock.now();
    const ref = await h.client.start(Ship, 's-1', {});
    await h.runAll({ until: h.clock.now() });
    expect(await timersOf(h, ref.id)).toContain('wf:deadline');
    expect(await h.client.workflowStatus(ref)).toMatchObject({ deadlineAt: started + HOUR });

    await h.client.signal(ref, 'shipped', null);
    await h.runAll({ until: h.clock.now() });
    expect(await h.client.result(ref)).toBe('shipped');
    expect(await timersOf(h, ref.id)).not.toContain('wf:deadline');
    expect(await h.client.workflowStatus(ref)).not.toHaveProperty('deadlineAt');
    expect(log).toEqual(['charge']);
  });

  it('disarms the deadline of a run terminated before it', async () => {
    const Ship = shipping([]);
    const h = workflowHarness([Ship.actor]);
    const ref = await h.client.start(Ship, 's-1', {});
    await h.runAll({ until: h.clock.now() });
    await h.client.terminate(ref, { reason: 'drill' });
    await h.runAll({ until: h.clock.now() });
    expect(await h.client.workflowStatus(ref)).toMatchObject({ status: 'terminated' });
    expect(await timersOf(h, ref.id)).not.toContain('wf:deadline');
  });

  it('times out a paused run: its compensations run once its code replays, as a cancel does', async () => {
    const log: string[] = [];
    const Buggy = workflow({
      name: 'buggy',
      input: z.object({}),
      timeoutMs: HOUR,
      run: async (ctx) => {
        await ctx.step('charge', () => void log.push('charge'), {
          compensate: () => void log.push('refund'),
        });
        throw new TypeError('a bug: the label is undefined');
      },
    });
    const h = workflowHarness([Buggy.actor]);
    const started = h.clock.now();
    const ref = await h.client.start(Buggy, 'b-1', {});
    await h.runAll({ until: started });
    expect(await h.client.workflowStatus(ref)).toMatchObject({ status: 'paused' });

    // Its rechecks replay the same code, and it stays paused, until the deadline ends it.
    await h.runAll({ until: started + HOUR });
    expect(await h.client.workflowStatus(ref)).toMatchObject({
      status: 'failed',
      error: { code: ErrorCode.TIMED_OUT },
    });
    expect(log).toEqual(['charge', 'refund']);
  });

  it('lets a run that fails on its own before the deadline end with its own error', async () => {
    const log: string[] = [];
    const Ship = shipping(log, { waitMs: HOUR / 2 });
    const h = workflowHarness([Ship.actor]);
    const ref = await h.client.start(Ship, 's-1', {});
    await h.runAll();
    await expect(h.client.result(ref)).rejects.toMatchObject({
      code: ErrorCode.REJECTED,
      message: 'not shipped',
    });
    expect(log).toEqual(['charge', 'refund']);
  });

  it('leaves a cancel under way to end the run as cancelled', async () => {
    const log: string[] = [];
    const Slow = workflow({
      name: 'slow-undo',
      input: z.object({}),
      timeoutMs: HOUR,
      compensationRetry: { initialDelayMs: HOUR },
      run: async (ctx) => {
        await ctx.step('charge', () => void log.push('charge'), {
          // Down at first: the undo retries an hour later, past the deadline.
          compensate: (_, { attempt }) => {
            log.push(`refund ${attempt}`);
            if (attempt === 1) throw new Error('payment service unavailable');
          },
        });
        return ctx.waitForEvent('shipped');
      },
    });
    const h = workflowHarness([Slow.actor]);
    const ref = await h.client.start(Slow, 's-1', {});
    await h.runAll({ until: h.clock.now() + HOUR / 2 });
    await h.client.cancel(ref, { reason: 'not needed' });
    await h.runAll();

    expect(await h.client.workflowStatus(ref)).toMatchObject({
      status: 'cancelled',
      error: { code: ErrorCode.CANCELLED },
    });
    expect(log).toEqual(['charge', 'refund 1', 'refund 2']);
  });

  it("is a child's failure its parent sees", async () => {
    const Child = workflow({
      name: 'child',
      input: z.object({}),
      timeoutMs: HOUR,
      run: (ctx) => ctx.waitForEvent('go'),
    });
    const Parent = workflow({
      name: 'parent',
      input: z.object({}),
      run: async (ctx) => {
        try {
          await ctx.child(Child, 'c', {});
          return 'done';
        } catch (error) {
          return (error as { code: string }).code;
        }
      },
    });
    const h = workflowHarness([Parent.actor, Child.actor]);
    const ref = await h.client.start(Parent, 'p', {});
    await h.runAll();
    expect(await h.client.result(ref)).toBe(ErrorCode.TIMED_OUT);
  });

  it("takes the deadline from the engine's timer alone, and for the run it was armed for", async () => {
    const Ship = shipping([]);
    const h = workflowHarness([Ship.actor]);
    const started = h.clock.now();
    const ref = await h.client.start(Ship, 's-1', {});
    await h.runAll({ until: started });
    const { runId, deadlineAt } = (await h.state(ref.id)) as WorkflowState;
    expect(deadlineAt).toBe(started + HOUR);

    // The same message from trusted code, naming the run: not a timer, so nothing ends.
    await h.client.send(ref, '_deadline' as never, { run: runId, timeoutMs: HOUR } as never);
    await h.runAll({ until: started });
    expect(await h.client.workflowStatus(ref)).toMatchObject({
      status: 'waiting',
      deadlineAt: started + HOUR,
    });

    // The timer of a run that is no longer the instance's (the record now names another):
    // it fires and is ignored.
    await h.rewriteState(ref.id, (state) => ({ ...state, runId: 'another-run' }));
    await h.runAll({ until: started + HOUR });
    expect(await timersOf(h, ref.id)).not.toContain('wf:deadline');
    expect(await h.client.workflowStatus(ref)).toMatchObject({
      status: 'waiting',
      deadlineAt: started + HOUR,
    });
  });

  it('is refused unless it is a number of ms above 0 and at most 1e14, or Infinity', () => {
    const run = async () => null;
    for (const timeoutMs of [0, -1, Number.NaN, '1000', 1e16]) {
      expect(() =>
        workflow({ name: 'w', input: z.object({}), timeoutMs: timeoutMs as number, run }),
      ).toThrow(
        'timeoutMs must be a number of ms > 0 and at most 1e14 (about 3,000 years), or Infinity for no limit',
      );
    }
    expect(() => workflow({ name: 'w', input: z.object({}), timeoutMs: 1e14, run })).not.toThrow();
    expect(() =>
      workflow({ name: 'w', input: z.object({}), timeoutMs: Number.POSITIVE_INFINITY, run }),
    ).not.toThrow();
  });
});
