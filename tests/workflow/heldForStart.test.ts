/**
 * What comes for an instance before its start — a signal, a parent's end of a start still on its
 * way — is kept for the instance's retention after the latest (a signal a week at most), and
 * dropped with the instance
 * (halted, its record expiring) if nobody starts it: messages to ids nobody starts cost storage
 * for a while, not for good. A start within the retention takes what was kept.
 */
import { actor, type WorkflowContext, type WorkflowState, workflow } from '@baton/core';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { workflowHarness } from './harness.ts';

const DAY = 24 * 60 * 60 * 1000;

const approval = {
  input: z.object({}),
  run: async (ctx: WorkflowContext) => {
    const answer = await ctx.waitForEvent<string>('approved');
    await ctx.waitForEvent('done');
    return answer;
  },
};
const Approval = workflow({ name: 'approval', retentionMs: 3 * DAY, ...approval });

/** An actor that ends a start of its command 0 before the start comes, as a parent does. */
const Parent = actor({
  name: 'parent',
  state: z.object({}),
  initial: () => ({}),
  handlers: {
    end: {
      payload: z.object({ child: z.string() }),
      handle: (ctx, { child }) => {
        ctx.send(Approval.ref(child) as never, 'cancel' as never, { seq: 0 } as never);
      },
    },
  },
});

const expiryOf = async (h: ReturnType<typeof workflowHarness>, id: string) =>
  (await h.backend.store.listTimers(id)).filter((timer) => timer.id === 'wf:expire');

describe('what comes for an instance before its start', () => {
  it('keeps signals for the retention after the latest, then halts the instance and its record goes', async () => {
    const h = workflowHarness([Approval.actor]);
    const ref = Approval.ref('never');
    const t0 = h.clock.now();
    await h.client.signal(ref, 'approved', 'first');
    await h.runAll({ until: h.clock.now() });
    expect(await expiryOf(h, ref.id)).toMatchObject([{ at: t0 + 3 * DAY }]);

    h.clock.set(t0 + DAY);
    await h.client.signal(ref, 'approved', 'second');
    await h.runAll({ until: h.clock.now() });
    expect(await expiryOf(h, ref.id)).toMatchObject([{ at: t0 + 4 * DAY }]);
    const held = (await h.state(ref.id)) as WorkflowState;
    expect(held.signals.map((s) => s.payload)).toEqual(['first', 'second']);
    expect((await h.backend.store.load(ref.id))?.expiresAt).toBeUndefined();

    await h.runAll({ expire: true });
    expect(h.clock.now()).toBe(t0 + 4 * DAY);
    const halted = await h.backend.store.load(ref.id);
    expect(halted?.expiresAt).toBe(t0 + 4 * DAY + 2 * h.engine.markRetentionMs);
    expect(await h.backend.store.listTimers(ref.id)).toEqual([]);
    h.clock.set(halted!.expiresAt!);
    h.backend.store.purgeExpired();
    expect(await h.backend.store.load(ref.id)).toBeUndefined();

    // The id starts anew, with none of the signals dropped.
    await h.client.start(Approval, 'never', {});
    await h.runAll({ until: h.clock.now() });
    expect(await h.client.workflowStatus(ref)).toMatchObject({ status: 'waiting' });
    expect(((await h.state(ref.id)) as WorkflowState).signals).toEqual([]);
  });

  it('keeps signals to an id never started a week at most, also when finished instances are kept for good', async () => {
    const Kept = workflow({ name: 'kept', retentionMs: Number.POSITIVE_INFINITY, ...approval });
    const h = workflowHarness([Kept.actor]);
    const ref = Kept.ref('nobody-starts-it');
    const t0 = h.clock.now();
    await h.client.signal(ref, 'approved', 'x'.repeat(1_000));
    await h.runAll({ until: h.clock.now() });
    expect(await expiryOf(h, ref.id)).toMatchObject([{ at: t0 + 7 * DAY }]);

    await h.runAll({ expire: true });
    const halted = await h.backend.store.load(ref.id);
    expect(halted?.expiresAt).toBe(t0 + 7 * DAY + 2 * h.engine.markRetentionMs);
    h.clock.set(halted!.expiresAt!);
    h.backend.store.purgeExpired();
    expect(await h.backend.store.load(ref.id)).toBeUndefined();
  });

  it('gives a start within the retention the signals kept, and the running instance no expiry', async () => {
    const h = workflowHarness([Approval.actor]);
    const ref = Approval.ref('soon');
    await h.client.signal(ref, 'approved', 'yes');
    await h.runAll({ until: h.clock.now() });
    h.clock.set(h.clock.now() + 2 * DAY);
    await h.client.start(Approval, 'soon', {});
    await h.runAll({ until: h.clock.now() });
    expect(await expiryOf(h, ref.id)).toEqual([]);
    // A running instance keeps an event no wait took yet, with no expiry of its own.
    await h.client.signal(ref, 'approved', 'again');
    await h.runAll({ until: h.clock.now() });
    expect(((await h.state(ref.id)) as WorkflowState).signals).toHaveLength(1);
    expect(await expiryOf(h, ref.id)).toEqual([]);

    // Past the retention the kept signal set: still running, as it waits for 'done'.
    await h.runAll({ until: h.clock.now() + 10 * DAY, expire: true });
    expect(await h.client.workflowStatus(ref)).toMatchObject({ status: 'waiting' });
    await h.client.signal(ref, 'done');
    await h.runAll({ until: h.clock.now() });
    expect(await h.client.result(ref)).toBe('yes');
    expect(await expiryOf(h, ref.id)).toMatchObject([{ at: h.clock.now() + 3 * DAY }]);
  });

  it("keeps a parent's end of a start still to come for the retention, then drops it", async () => {
    const h = workflowHarness([Parent, Approval.actor]);
    const ref = Approval.ref('child');
    const t0 = h.clock.now();
    await h.client.send(Parent.ref('p'), 'end', { child: 'child' });
    await h.runAll({ until: h.clock.now() });
    const held = (await h.state(ref.id)) as WorkflowState;
    expect(held.status).toBe('new');
    expect(held.endedStarts).toHaveLength(1);
    expect(await expiryOf(h, ref.id)).toMatchObject([{ at: t0 + 3 * DAY }]);

    await h.runAll({ expire: true });
    expect((await h.backend.store.load(ref.id))?.expiresAt).toBe(
      t0 + 3 * DAY + 2 * h.engine.markRetentionMs,
    );
  });

  it("cancels the expiry when a start comes for an instance holding only a parent's end", async () => {
    const h = workflowHarness([Parent, Approval.actor]);
    const ref = Approval.ref('other');
    await h.client.send(Parent.ref('p'), 'end', { child: 'other' });
    await h.runAll({ until: h.clock.now() });
    expect(await expiryOf(h, ref.id)).toHaveLength(1);
    // A client's start, not the parent's command 0: it runs, and the run is not expired.
    await h.client.start(Approval, 'other', {});
    await h.runAll({ until: h.clock.now() });
    expect(await h.client.workflowStatus(ref)).toMatchObject({ status: 'waiting' });
    expect(await expiryOf(h, ref.id)).toEqual([]);
  });

  it('keeps them for the retention a deploy raised since, after the latest', async () => {
    const h = workflowHarness([Approval.actor]);
    const ref = Approval.ref('raised');
    const t0 = h.clock.now();
    await h.client.signal(ref, 'approved', 'yes');
    await h.runAll({ until: h.clock.now() });
    expect(await expiryOf(h, ref.id)).toMatchObject([{ at: t0 + 3 * DAY }]);

    h.deploy([workflow({ name: 'approval', retentionMs: 5 * DAY, ...approval }).actor]);
    await h.runAll({ until: t0 + 4 * DAY, expire: true });
    expect(((await h.state(ref.id)) as WorkflowState).signals).toHaveLength(1);
    expect(await expiryOf(h, ref.id)).toMatchObject([{ at: t0 + 5 * DAY }]);

    await h.runAll({ expire: true });
    expect(h.clock.now()).toBe(t0 + 5 * DAY);
    expect((await h.backend.store.load(ref.id))?.expiresAt).toBe(
      t0 + 5 * DAY + 2 * h.engine.markRetentionMs,
    );
  });

  it('measures a raised retention from the latest of what it holds, not the first', async () => {
    const h = workflowHarness([Approval.actor]);
    const ref = Approval.ref('two');
    const t0 = h.clock.now();
    await h.client.signal(ref, 'approved', 'first');
    await h.runAll({ until: h.clock.now() });
    h.clock.set(t0 + 2 * DAY);
    await h.client.signal(ref, 'approved', 'second');
    await h.runAll({ until: h.clock.now() });

    // Raised to 4 days: the timer set for 3 days after the second fires at 5 days, one day
    // before the raised retention after the second ends (the first's ended a day before).
    h.deploy([workflow({ name: 'approval', retentionMs: 4 * DAY, ...approval }).actor]);
    await h.runAll({ until: t0 + 5 * DAY + 1, expire: true });
    expect(((await h.state(ref.id)) as WorkflowState).signals).toHaveLength(2);
    expect(await expiryOf(h, ref.id)).toMatchObject([{ at: t0 + 6 * DAY }]);
  });

  it('leaves a running instance alone when an expiry reaches it', async () => {
    const h = workflowHarness([Approval.actor]);
    const ref = Approval.ref('running');
    await h.client.start(Approval, 'running', {});
    await h.runAll({ until: h.clock.now() });
    await h.client.send(ref, '_expire' as never, {} as never);
    await h.runAll({ until: h.clock.now() });
    expect(((await h.state(ref.id)) as WorkflowState).status).toBe('waiting');
    expect((await h.backend.store.load(ref.id))?.expiresAt).toBeUndefined();
  });

  it("keeps a parent's end for the retention a deploy raised since", async () => {
    const h = workflowHarness([Parent, Approval.actor]);
    const ref = Approval.ref('raised-child');
    const t0 = h.clock.now();
    await h.client.send(Parent.ref('p'), 'end', { child: 'raised-child' });
    await h.runAll({ until: h.clock.now() });

    const Kept = workflow({ name: 'approval', retentionMs: Number.POSITIVE_INFINITY, ...approval });
    h.deploy([Parent, Kept.actor]);
    await h.runAll({ expire: true });
    expect(h.clock.now()).toBe(t0 + 3 * DAY);
    expect(await h.backend.store.listTimers(ref.id)).toEqual([]);
    expect(((await h.state(ref.id)) as WorkflowState).endedStarts).toHaveLength(1);
    expect((await h.backend.store.load(ref.id))?.expiresAt).toBeUndefined();
  });

  it("keeps a parent's end for good with an infinite retention, as it keeps a finished instance", async () => {
    const Kept = workflow({ name: 'approval', retentionMs: Number.POSITIVE_INFINITY, ...approval });
    const h = workflowHarness([Parent, Kept.actor]);
    const ref = Kept.ref('k');
    await h.client.send(Parent.ref('p'), 'end', { child: 'k' });
    await h.runAll({ until: h.clock.now() });
    expect(await h.backend.store.listTimers(ref.id)).toEqual([]);
    expect(((await h.state(ref.id)) as WorkflowState).endedStarts).toHaveLength(1);
  });
});
