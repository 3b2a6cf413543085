/**
 * A sleep, or a wait for an event, that spans deploys: a compatible one, an incompatible one, a
 * rollback to the release before, and one that removes the workflow. Its timer fires once, on
 * whatever code runs then: carried on, paused, or kept as a dead letter a redrive applies once.
 */
import { ErrorCode, type WorkflowState, workflow } from '@baton/core';
import { redriveDeadLetter } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { workflowHarness } from './harness.ts';

const DAY = 24 * 60 * 60 * 1000;

/** Steps run, by name, across every version. */
const ran: string[] = [];

/** Release 1: books, sleeps three days, waits for `go`, ships. Release 2 adds an audit behind a patch. */
function trip(release: 1 | 2) {
  return workflow({
    name: 'trip',
    version: String(release),
    input: z.object({}),
    run: async (ctx) => {
      await ctx.step('book', () => void ran.push('book'));
      if (release === 2 && ctx.patched('audit'))
        await ctx.step('audit', () => void ran.push('audit'));
      await ctx.sleep(3 * DAY);
      await ctx.waitForEvent('go');
      await ctx.step('ship', () => void ran.push('ship'));
      return 'shipped';
    },
  });
}
const R1 = trip(1);
const R2 = trip(2);

describe('a sleep across deploys', () => {
  it('fires once when a deploy removed the workflow: kept as a dead letter, applied once redriven', async () => {
    ran.length = 0;
    const h = workflowHarness([R1.actor], { maxAttempts: 3 });
    const ref = await h.client.start(R1, 's', {});
    await h.runAll({ until: h.clock.now() });
    h.deploy([]);
    await h.runAll({ until: h.clock.now() + 4 * DAY });
    // The fire waited for code that knows the workflow, then was kept: the record as it was.
    const letters = await h.backend.store.listDeadLetters(ref.id);
    expect(letters.map((l) => l.envelope.name)).toEqual(['_timer']);
    const state = (await h.state(ref.id)) as WorkflowState;
    expect(state.status).toBe('waiting');
    expect(state.journal.map((e) => [e.name, e.state])).toEqual([
      ['book', 'done'],
      ['sleep', 'pending'],
    ]);

    h.deploy([R1.actor]);
    await redriveDeadLetter(h.backend.store, h.backend.queue, ref.id, letters[0]!.messageId);
    await h.client.signal(ref, 'go');
    await h.runAll();
    expect(await h.client.result(ref)).toBe('shipped');
    expect(ran).toEqual(['book', 'ship']);
    const after = (await h.state(ref.id)) as WorkflowState;
    expect(after.journal.filter((e) => e.name === 'sleep')).toMatchObject([{ state: 'done' }]);
  });

  it('pauses when it fires on a rollback that cannot replay the history, and carries on once rolled forward', async () => {
    ran.length = 0;
    const h = workflowHarness([R2.actor]);
    const ref = await h.client.start(R2, 'r', {});
    await h.runAll({ until: h.clock.now() });
    // Rolled back to release 1 as the instance sleeps: its history holds release 2's patch.
    h.deploy([R1.actor]);
    await h.runAll({ until: h.clock.now() + 3 * DAY });
    const paused = (await h.state(ref.id)) as WorkflowState;
    expect(paused.status).toBe('paused');
    expect(paused.paused).toMatchObject({
      version: '1',
      error: { code: ErrorCode.NON_DETERMINISTIC },
    });
    // The fire is journaled as it came, once.
    expect(paused.journal.map((e) => [e.kind, e.name, e.state])).toEqual([
      ['step', 'book', 'done'],
      ['patch', 'audit', 'done'],
      ['step', 'audit', 'done'],
      ['sleep', 'sleep', 'done'],
    ]);
    await h.client.signal(ref, 'go');
    await h.runAll({ until: h.clock.now() });

    // Rolled forward within its rechecks: it carries on by itself.
    h.deploy([R2.actor]);
    await h.runAll();
    expect(await h.client.result(ref)).toBe('shipped');
    expect(ran).toEqual(['book', 'audit', 'ship']);
  });

  it('stays paused after a rollback that outlasts its rechecks, until resumed once rolled forward', async () => {
    ran.length = 0;
    const h = workflowHarness([R2.actor]);
    const ref = await h.client.start(R2, 'l', {});
    await h.runAll({ until: h.clock.now() });
    h.deploy([R1.actor]);
    // The rollback lasts a day: the fire pauses it, and its rechecks are spent on release 1.
    await h.runAll({ until: h.clock.now() + 4 * DAY });
    h.deploy([R2.actor]);
    await h.runAll({ until: h.clock.now() + DAY });
    const state = (await h.state(ref.id)) as WorkflowState;
    expect([state.status, state.rechecks]).toEqual(['paused', 5]);
    expect(await h.backend.store.listTimers(ref.id)).toEqual([]);

    await h.client.resumeWorkflow(ref);
    await h.client.signal(ref, 'go');
    await h.runAll();
    expect(await h.client.result(ref)).toBe('shipped');
    expect(ran).toEqual(['book', 'audit', 'ship']);
  });

  it("keeps a finished instance's expiry that fires after its workflow was removed as a dead letter, which halts it once redriven", async () => {
    const h = workflowHarness([R1.actor], { maxAttempts: 3 });
    const ref = await h.client.start(R1, 'e', {});
    await h.runAll({ until: h.clock.now() + 3 * DAY });
    await h.client.signal(ref, 'go');
    await h.runAll({ until: h.clock.now() });
    expect(await h.client.result(ref)).toBe('shipped');
    // Removed while the finished instance waits out its retention: its expiry cannot run.
    h.deploy([]);
    await h.runAll({ expire: true });
    const letters = await h.backend.store.listDeadLetters(ref.id);
    expect(letters.map((l) => l.envelope.name)).toEqual(['_expire']);
    expect((await h.record(ref.id))?.expiresAt).toBeUndefined();

    h.deploy([R1.actor]);
    await redriveDeadLetter(h.backend.store, h.backend.queue, ref.id, letters[0]!.messageId);
    await h.runAll({ expire: true });
    expect((await h.client.workflowStatus(ref)).status).toBe('new');
    expect((await h.record(ref.id))?.expiresAt).toBeDefined();
  });
});
