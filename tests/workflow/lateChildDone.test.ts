/**
 * A halted actor stays halted through a message it applies that leaves it as a new one (the
 * initial state, no timer): a child that ends after its parent halted (its compensations
 * retried for an hour) tells the parent `_childDone`, which the halted parent applies doing
 * nothing. Its record keeps its expiry, rather than staying for ever as an instance no one
 * started. A message that changes the state revives it.
 */
import { workflow } from '@baton/core';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { workflowHarness } from '../workflow/harness.ts';

describe("a child's outcome reaching its parent after the parent halted", () => {
  it('leaves the halted parent to expire', async () => {
    let undos = 0;
    const Child = workflow({
      name: 'slow-child',
      input: z.object({}),
      retentionMs: Number.POSITIVE_INFINITY,
      compensationRetry: { maxAttempts: 2, initialDelayMs: 60 * 60_000 },
      run: async (ctx) => {
        await ctx.step('book', () => 1, {
          compensate: () => {
            if (++undos === 1) throw new Error('slow undo');
          },
        });
        await ctx.waitForEvent('go');
        return 'done';
      },
    });
    const Parent = workflow({
      name: 'parent',
      input: z.object({}),
      retentionMs: 1_000,
      run: async (ctx) => ctx.child(Child, 'c', {}),
    });
    const h = workflowHarness([Parent.actor, Child.actor]);
    const p = await h.client.start(Parent, 'p', {});
    await h.runAll({ until: h.clock.now() });
    await h.client.cancel(p);
    // The parent ends and halts a second later; its child is still undoing.
    await h.runAll({ until: h.clock.now() + 10_000, expire: true });
    const halted = await h.record(p.id);
    expect(halted?.expiresAt).toBeDefined();
    // An hour later the child ends and tells its parent.
    await h.runAll();
    expect(await h.client.workflowStatus(Child.ref('c'))).toMatchObject({ status: 'cancelled' });

    const after = await h.record(p.id);
    expect(after?.ver).toBeGreaterThan(halted!.ver); // the child's outcome was applied
    expect(after?.expiresAt).toBeGreaterThanOrEqual(halted!.expiresAt!);

    // A start revives it: a new run, and no expiry until it ends.
    await h.client.start(Parent, 'p', {});
    await h.runAll({ until: h.clock.now() });
    expect((await h.record(p.id))?.expiresAt).toBeUndefined();
  });
});
