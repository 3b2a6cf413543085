/**
 * A parent's end reaches its children: cancelling an instance cancels each child it started
 * that is still running (its compensations run, once), and terminating it terminates them.
 */
import { ErrorCode, workflow } from '@baton/core';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { workflowHarness } from './harness.ts';

function family(log: string[]) {
  const Child = workflow({
    name: 'child',
    input: z.object({}),
    run: async (ctx) => {
      await ctx.step('book', () => void log.push('book'), {
        compensate: () => void log.push('unbook'),
      });
      await ctx.waitForEvent('go');
      return 'done';
    },
  });
  const Parent = workflow({
    name: 'parent',
    input: z.object({}),
    run: async (ctx) => ctx.child(Child, 'c', {}),
  });
  return { Child, Parent };
}

describe('a parent ending', () => {
  it('cancels its waiting child, whose compensation runs once', async () => {
    const log: string[] = [];
    const { Child, Parent } = family(log);
    const h = workflowHarness([Parent.actor, Child.actor]);
    const parent = await h.client.start(Parent, 'p', {});
    await h.runAll();
    expect(await h.client.workflowStatus(Child.ref('c'))).toMatchObject({ status: 'waiting' });

    await h.client.cancel(parent, { reason: 'not needed' });
    await h.runAll();
    await expect(h.client.result(parent)).rejects.toMatchObject({ code: ErrorCode.CANCELLED });
    expect(await h.client.workflowStatus(Child.ref('c'))).toMatchObject({ status: 'cancelled' });
    await expect(h.client.result(Child.ref('c'))).rejects.toMatchObject({
      code: ErrorCode.CANCELLED,
      message: 'workflow instance c was cancelled: its parent p ended',
    });
    // A late signal finds it ended.
    await h.client.signal(Child.ref('c'), 'go');
    await h.runAll();
    expect(log).toEqual(['book', 'unbook']);
  });

  it('terminates its running child when terminated, without compensations', async () => {
    const log: string[] = [];
    const { Child, Parent } = family(log);
    const h = workflowHarness([Parent.actor, Child.actor]);
    const parent = await h.client.start(Parent, 'p', {});
    await h.runAll();
    await h.client.terminate(parent);
    await h.runAll();
    expect(await h.client.workflowStatus(parent)).toMatchObject({ status: 'terminated' });
    expect(await h.client.workflowStatus(Child.ref('c'))).toMatchObject({ status: 'terminated' });
    expect(log).toEqual(['book']);
  });

  it('leaves a child that completed as it is', async () => {
    const log: string[] = [];
    const { Child, Parent } = family(log);
    const h = workflowHarness([Parent.actor, Child.actor]);
    const parent = await h.client.start(Parent, 'p', {});
    await h.runAll();
    await h.client.signal(Child.ref('c'), 'go');
    await h.runAll();
    expect(await h.client.result(parent)).toBe('done');
    await h.client.cancel(parent);
    await h.runAll();
    expect(await h.client.workflowStatus(Child.ref('c'))).toMatchObject({ status: 'completed' });
    expect(log).toEqual(['book']);
  });
});
