/**
 * An instance id started anew once its retention ended, whose run starts a child at the same id
 * as the earlier run did, while that child, kept longer, still holds the earlier run's output:
 * the new run does not take that output for its own. Its child command is refused, saying to
 * derive the child's id from `ctx.runId`, which starts a child of its own for each run.
 */
import { actor, ErrorCode, workflow } from '@baton/core';
import { expect, it } from 'vitest';
import * as z from 'zod';
import { workflowHarness } from './harness.ts';

const DAY = 24 * 60 * 60 * 1000;

const Ledger = actor({
  name: 'ledger',
  state: z.object({ charges: z.number() }),
  initial: () => ({ charges: 0 }),
  handlers: {
    charge: {
      payload: z.object({}),
      handle: (ctx) => {
        ctx.state.charges++;
        return ctx.state.charges;
      },
    },
  },
});

const Charge = workflow({
  name: 'charge',
  input: z.object({ amount: z.number() }),
  retentionMs: 30 * DAY,
  run: async (ctx) => ctx.call(Ledger.ref('l'), 'charge', {}),
});

/** A monthly parent kept a second, whose child's id is `childId` of its context. */
const monthly = (childId: (ctx: { id: string; runId: string }) => string) =>
  workflow({
    name: 'monthly',
    input: z.object({ amount: z.number() }),
    retentionMs: 1_000,
    run: async (ctx, { amount }) => ctx.child(Charge, childId(ctx), { amount }),
  });

/** Runs the parent `p` twice, its retention over between the runs; the two statuses. */
async function twice(Monthly: ReturnType<typeof monthly>) {
  const h = workflowHarness([Monthly.actor, Charge.actor, Ledger]);
  const p = await h.client.start(Monthly, 'p', { amount: 5 });
  await h.runAll({ until: h.clock.now() + 10_000 });
  const first = await h.client.workflowStatus(p);
  h.clock.advance(60_000);
  await h.runAll({ until: h.clock.now() + 10_000, expire: true });
  expect((await h.client.workflowStatus(p)).status).toBe('new');
  await h.client.start(Monthly, 'p', { amount: 5 });
  await h.runAll({ until: h.clock.now() + 10_000 });
  const second = await h.client.workflowStatus(p);
  return { first, second, ledger: (await h.record('ledger/l'))?.state };
}

it("refuses a new run of a parent's id the child its earlier run started, still kept", async () => {
  const { first, second, ledger } = await twice(monthly((ctx) => `${ctx.id}-charge`));
  expect(first).toMatchObject({ status: 'completed', output: 1 });
  expect(second).toMatchObject({
    status: 'failed',
    error: {
      code: ErrorCode.REJECTED,
      message: expect.stringContaining(
        "workflow instance p-charge is the child of an earlier run of this parent's id, kept longer than that run: its work was done for that run. Derive a child id from ctx.runId when a child may outlive its parent's run (a parent started anew, or one that continued as new)",
      ),
    },
  });
  expect(ledger).toEqual({ charges: 1 });
});

it('starts a child of its own for each run of an id when the child id is derived from ctx.runId', async () => {
  const { first, second, ledger } = await twice(monthly((ctx) => `${ctx.id}-${ctx.runId}`));
  expect(first).toMatchObject({ status: 'completed', output: 1 });
  expect(second).toMatchObject({ status: 'completed', output: 2 });
  expect(ledger).toEqual({ charges: 2 });
});
