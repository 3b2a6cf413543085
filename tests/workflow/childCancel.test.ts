/**
 * A parent's end reaches its children: cancelling an instance cancels each child it started
 * that is still running (its compensations run, once), and terminating it terminates them.
 */
import { ErrorCode, type WorkflowState, workflow } from '@baton/core';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { family } from './bookingFamily.ts';
import { workflowHarness } from './harness.ts';

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
    // A late signal finds it ended: refused, and nothing runs again.
    await expect(h.client.signal(Child.ref('c'), 'go')).rejects.toMatchObject({
      code: ErrorCode.REJECTED,
    });
    await h.runAll();
    expect(log).toEqual(['book', 'unbook']);
  });

  it('cancels a child it shares with another parent, whose ctx.child then rejects', async () => {
    const log: string[] = [];
    const { Child, Parent } = family(log);
    const h = workflowHarness([Parent.actor, Child.actor]);
    // Both parents start child c with the same input: trusted code, so both take it as theirs.
    const first = await h.client.start(Parent, 'p1', {});
    const second = await h.client.start(Parent, 'p2', {});
    await h.runAll();
    expect(await h.client.workflowStatus(Child.ref('c'))).toMatchObject({ status: 'waiting' });

    await h.client.cancel(first);
    await h.runAll();
    await expect(h.client.result(Child.ref('c'))).rejects.toMatchObject({
      code: ErrorCode.CANCELLED,
      message: 'workflow instance c was cancelled: its parent p1 ended',
    });
    await expect(h.client.result(second)).rejects.toMatchObject({ code: ErrorCode.CANCELLED });
    // The other parent's run met the rejection unhandled: it failed, with the child's error.
    expect(await h.client.workflowStatus(second)).toMatchObject({ status: 'failed' });
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

  it("and starting anew is not told of its earlier run's child", async () => {
    let undos = 0;
    const Child = workflow({
      name: 'slow-child',
      input: z.object({ n: z.number() }),
      // Its compensation fails once and is retried an hour later: the child outlives its parent.
      compensationRetry: { maxAttempts: 2, initialDelayMs: 60 * 60_000 },
      run: async (ctx, { n }) => {
        await ctx.step('book', () => n, {
          compensate: () => {
            if (++undos === 1) throw new Error('slow undo');
          },
        });
        await ctx.waitForEvent('go');
        return `child ${n}`;
      },
    });
    const Parent = workflow({
      name: 'racer',
      input: z.object({ n: z.number() }),
      retentionMs: 1_000,
      run: async (ctx, { n }) => {
        const raced = await ctx.race([ctx.child(Child, `c${n}`, { n }), ctx.waitForEvent('stop')]);
        return raced.index === 0 ? raced.value : 'stopped';
      },
    });
    const h = workflowHarness([Parent.actor, Child.actor]);
    const p = Parent.ref('p');
    await h.client.start(Parent, 'p', { n: 1 });
    await h.runAll({ until: h.clock.now() });
    await h.client.signal(p, 'stop');
    // The parent's first run ends, and its record after its retention; c1 is still undoing.
    await h.runAll({ until: h.clock.now() + 10_000, expire: true });
    await h.client.start(Parent, 'p', { n: 2 });
    await h.runAll({ until: h.clock.now() + 10_000 });
    // c1 ends an hour later and tells "p" of its command 0, which is c2's in the new run.
    await h.runAll();
    expect(await h.client.workflowStatus(Child.ref('c1'))).toMatchObject({ status: 'cancelled' });
    const state = (await h.state(p.id)) as WorkflowState;
    expect(state.status).toBe('running');
    expect(state.journal[0]).toMatchObject({ child: Child.ref('c2').id, state: 'pending' });

    await h.client.signal(Child.ref('c2'), 'go');
    await h.runAll();
    expect(await h.client.result(p)).toBe('child 2');
  });

  it('takes the outcome of a child its record does not name, as records before child names were', async () => {
    const log: string[] = [];
    const { Child, Parent } = family(log);
    const h = workflowHarness([Parent.actor, Child.actor]);
    const ref = await h.client.start(Parent, 'p', {});
    await h.runAll();
    // The record as earlier code left it: the child command names no child instance.
    const record = (await h.record(ref.id))!;
    const earlier = structuredClone(record.state) as WorkflowState;
    delete earlier.drivenBy;
    for (const entry of earlier.journal) delete entry.child;
    const next = { ...record, ver: record.ver + 1, state: earlier };
    await h.backend.store.commit({
      expectedVer: record.ver,
      record: next,
      outbox: [],
      idempotency: [],
    });
    h.engine.cache.clear();
    await h.client.signal(Child.ref('c'), 'go');
    await h.runAll();
    expect(await h.client.result(ref)).toBe('done');
  });
});
