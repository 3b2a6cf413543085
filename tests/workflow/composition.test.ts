/**
 * Composing workflows: concurrent branches whose results come in any order, map with a
 * concurrency limit, child workflows, sagas whose compensations run in reverse on failure or
 * cancel, and terminate.
 */
import {
  type Caller,
  defineApp,
  ErrorCode,
  TerminalError,
  type WorkflowState,
  workflow,
} from '@baton/core';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { workflowHarness } from './harness.ts';

const DAY = 24 * 60 * 60 * 1000;

describe('composition', () => {
  it('replays branches in the order their results came, so either order completes', async () => {
    const Both = workflow({
      name: 'both',
      input: z.object({}),
      run: async (ctx) =>
        ctx.parallel([
          async () => {
            const a = await ctx.waitForEvent<string>('a');
            return ctx.step('after a', () => `${a}!`);
          },
          async () => {
            const b = await ctx.waitForEvent<string>('b');
            return ctx.step('after b', () => `${b}!`);
          },
        ]),
    });
    const h = workflowHarness([Both.actor]);
    const ab = await h.client.start(Both, 'ab', {});
    const ba = await h.client.start(Both, 'ba', {});
    await h.runAll();
    await h.client.signal(ab, 'a', 'x');
    await h.client.signal(ba, 'b', 'y');
    await h.runAll();
    await h.client.signal(ab, 'b', 'y');
    await h.client.signal(ba, 'a', 'x');
    await h.runAll();

    expect(await h.client.result(ab)).toEqual(['x!', 'y!']);
    expect(await h.client.result(ba)).toEqual(['x!', 'y!']);
    const names = async (id: string) =>
      ((await h.state(id)) as WorkflowState).journal.map((e) => e.name);
    expect(await names(ab.id)).toEqual(['a', 'b', 'after a', 'after b']);
    expect(await names(ba.id)).toEqual(['a', 'b', 'after b', 'after a']);
  });

  it('maps over items with at most maxConcurrency waiting at once, results in order', async () => {
    const Batch = workflow({
      name: 'batch',
      input: z.object({ items: z.array(z.number()) }),
      run: async (ctx, { items }) =>
        ctx.map(items, async (item) => (await ctx.waitForEvent<number>(`item-${item}`)) * 10, {
          maxConcurrency: 2,
        }),
    });
    const h = workflowHarness([Batch.actor]);
    const ref = await h.client.start(Batch, 'm', { items: [1, 2, 3, 4] });
    const waiting = async () =>
      ((await h.state(ref.id)) as WorkflowState).journal
        .filter((e) => e.state === 'pending')
        .map((e) => e.name);
    await h.runAll();
    expect(await waiting()).toEqual(['item-1', 'item-2']);
    await h.client.signal(ref, 'item-2', 2);
    await h.runAll();
    expect(await waiting()).toEqual(['item-1', 'item-3']);
    for (const item of [3, 1, 4]) await h.client.signal(ref, `item-${item}`, item);
    await h.runAll();
    expect(await h.client.result(ref)).toEqual([10, 20, 30, 40]);
  });

  it('fails on the first failure, and starts no item after it (a run an earlier release started goes on as it did)', async () => {
    const charged: string[] = [];
    const Charges = workflow({
      name: 'charges',
      input: z.object({ customers: z.array(z.string()) }),
      run: async (ctx, { customers }) => {
        await ctx.waitForEvent('begin');
        try {
          await ctx.map(
            customers,
            (customer) =>
              ctx.step('charge', () => {
                if (customer === 'bob') throw new TerminalError('card declined');
                charged.push(`${ctx.id}:${customer}`);
              }),
            { maxConcurrency: 2 },
          );
          return 'all charged';
        } catch {
          // What a run does with a failed batch: it waits, and no item of it starts meanwhile.
          await ctx.sleep(DAY);
          return 'batch aborted';
        }
      },
    });
    // No warm run kept: each turn replays the history, as a cold worker does.
    const h = workflowHarness([Charges.actor], { cacheSize: 0 });
    const customers = ['ann', 'bob', 'cat', 'dan', 'eve'];
    const [now, earlier] = [Charges.ref('now'), Charges.ref('earlier')];
    for (const { key } of [now, earlier]) await h.client.start(Charges, key, { customers });
    await h.runAll({ until: h.clock.now() });
    // The record as an earlier release left it: no `rules`.
    await h.rewriteState(earlier.id, ({ rules: _rules, ...state }) => state);
    for (const ref of [now, earlier]) await h.client.signal(ref, 'begin');
    await h.runAll();
    for (const ref of [now, earlier]) expect(await h.client.result(ref)).toBe('batch aborted');
    // Steps run one at a time: Ann's lane took Cat once Ann was charged, before Bob's step ran
    // and failed; the map failed then, and Dan and Eve were never started.
    expect(charged.filter((c) => c.startsWith('now:'))).toEqual(['now:ann', 'now:cat']);
    const steps = ((await h.state(now.id)) as WorkflowState).journal.filter(
      (e) => e.name === 'charge',
    );
    expect(steps).toHaveLength(3);
    // Its lanes went on taking items, as that release's did, so its history replays as it ran.
    expect(charged.filter((c) => c.startsWith('earlier:'))).toEqual([
      'earlier:ann',
      'earlier:cat',
      'earlier:dan',
      'earlier:eve',
    ]);
  });

  it('runs a child workflow and resumes the parent with its output or its error', async () => {
    let childSteps = 0;
    const Child = workflow({
      name: 'child',
      input: z.object({ n: z.number() }),
      run: async (ctx, { n }) => {
        await ctx.sleep(DAY);
        return ctx.step(
          'square',
          () => {
            childSteps++;
            if (n < 0) throw new Error('negative');
            return n * n;
          },
          { retry: { maxAttempts: 1 } },
        );
      },
    });
    const Parent = workflow({
      name: 'parent',
      input: z.object({ n: z.number() }),
      run: async (ctx, { n }) => {
        try {
          return await ctx.child(Child, `sq-${n}`, { n });
        } catch (error) {
          return (error as { code: string }).code;
        }
      },
    });
    const h = workflowHarness([Parent.actor, Child.actor]);
    const ok = await h.client.start(Parent, 'p3', { n: 3 });
    const bad = await h.client.start(Parent, 'p-1', { n: -1 });
    await h.runAll();

    expect(await h.client.result(ok)).toBe(9);
    expect(await h.client.result(bad)).toBe(ErrorCode.STEP_FAILED);
    expect(await h.client.result(Child.ref('sq-3'))).toBe(9);
    expect(childSteps).toBe(2);
  });

  it("fails a child whose output is too large for its parent's journal, its compensations run, and tells the parent", async () => {
    let parts = 0;
    const undone: string[] = [];
    const exportOf = (name: string, maxStepsPerTurn?: number) =>
      workflow({
        name,
        input: z.object({}),
        retentionMs: Number.POSITIVE_INFINITY,
        ...(maxStepsPerTurn === undefined ? {} : { maxStepsPerTurn }),
        run: async (ctx) => {
          const chunks: string[] = [];
          // Each part is within the 64 KiB a value may take; the output, 200 KiB, is not.
          for (let i = 0; i < 4; i++) {
            const part = await ctx.step(
              `part-${i}`,
              () => {
                parts++;
                return 'x'.repeat(50 * 1024);
              },
              { compensate: (result) => void undone.push(`${i}: ${result?.length}`) },
            );
            chunks.push(part);
          }
          return chunks;
        },
      });
    // One step a turn (the last turn's step ran with the output), and every step in one turn.
    const Exports = [exportOf('export', 1), exportOf('export-all')];
    const reportOf = (Export: (typeof Exports)[number]) =>
      workflow({
        name: `report-${Export.name}`,
        input: z.object({}),
        retentionMs: Number.POSITIVE_INFINITY,
        run: async (ctx) => {
          try {
            const chunks = await ctx.child(Export, `${ctx.id}-export`, {});
            return { chunks: chunks.length };
          } catch (error) {
            return { failed: (error as { code: string }).code };
          }
        },
      });
    const Reports = Exports.map(reportOf);
    const h = workflowHarness([...Exports, ...Reports].map((w) => w.actor));
    for (const [i, Report] of Reports.entries()) {
      parts = 0;
      undone.length = 0;
      const ref = await h.client.start(Report, 'r', {});
      await h.runAll();

      // Each step ran once, its result journaled; the child failed, its steps undone with them.
      expect(parts).toBe(4);
      expect(undone).toEqual(['3: 51200', '2: 51200', '1: 51200', '0: 51200']);
      const child = (await h.state(Exports[i]!.ref('r-export').id)) as WorkflowState;
      expect(child.status).toBe('failed');
      expect(child.output).toBeUndefined();
      expect(child.error).toMatchObject({
        code: ErrorCode.MESSAGE_TOO_LARGE,
        message: expect.stringMatching(
          /^the output of workflow "export(-all)?" r-export is 204\d{3} bytes, more than the 65536 .* return a reference/,
        ),
      });
      expect(await h.client.result(ref)).toEqual({ failed: ErrorCode.MESSAGE_TOO_LARGE });
    }
    // A top-level instance's output is capped alike.
    await h.client.start(Exports[1]!, 'alone', {});
    await h.runAll();
    await expect(h.client.result(Exports[1]!.ref('alone'))).rejects.toMatchObject({
      code: ErrorCode.MESSAGE_TOO_LARGE,
    });
  });

  it('fails the child command of a parent taking an instance an earlier release let complete with a larger output', async () => {
    const Export = workflow({
      name: 'export',
      input: z.object({}),
      retentionMs: Number.POSITIVE_INFINITY,
      run: async () => 'small',
    });
    const Report = workflow({
      name: 'report',
      input: z.object({}),
      retentionMs: Number.POSITIVE_INFINITY,
      run: (ctx) => ctx.child(Export, 'shared-export', {}),
    });
    const h = workflowHarness([Export.actor, Report.actor]);
    const child = await h.client.start(Export, 'shared-export', {});
    await h.runAll();
    // Its record as an earlier release left it: completed, with an output of 100 KiB.
    await h.rewriteState(child.id, (state) => ({ ...state, output: 'x'.repeat(100 * 1024) }));
    const ref = await h.client.start(Report, 'r', {});
    await h.runAll();

    await expect(h.client.result(ref)).rejects.toMatchObject({
      code: ErrorCode.MESSAGE_TOO_LARGE,
      message: expect.stringContaining("so its parent's ctx.child fails"),
    });
    const parent = (await h.state(ref.id)) as WorkflowState;
    expect(JSON.stringify(parent).length).toBeLessThan(64 * 1024);
  });

  it('takes a child started before as its own only if trusted code started it with the same input', async () => {
    const mallory: Caller = { kind: 'user', identity: { userId: 'mallory' } };
    const owns = (caller: Caller, id: string) =>
      caller.kind === 'user' && id.startsWith(`${(caller.identity as { userId: string }).userId}-`);
    // Public, so a user may start a charge of their own; a checkout charges the shop's price.
    const Charge = workflow({
      name: 'charge',
      input: z.object({ amount: z.number() }),
      public: true,
      authorize: (caller, request) => owns(caller, request.id),
      run: async (_ctx, { amount }) => ({ charged: amount }),
    });
    const Checkout = workflow({
      name: 'checkout',
      input: z.object({}),
      public: true,
      authorize: (caller, request) => owns(caller, request.id),
      run: async (ctx) => {
        const { charged } = await ctx.child(Charge, `${ctx.id}-charge`, { amount: 1_000 });
        return { paid: charged };
      },
    });
    // Both parents charge the same child, with the same input: one run serves both.
    const Twin = workflow({
      name: 'twin',
      input: z.object({}),
      run: async (ctx) => ctx.child(Charge, 'shared-charge', { amount: 5 }),
    });
    const { actors } = defineApp({ workflows: [Checkout, Charge, Twin] });
    const h = workflowHarness(actors);
    const { door } = h;
    // Mallory starts, for nothing, the charge her checkout will use; then the checkout.
    await door.start(Charge, 'mallory-1-charge', { amount: 0 }, { caller: mallory });
    await h.runAll();
    const order = await door.start(Checkout, 'mallory-1', {}, { caller: mallory });
    await h.runAll();
    await expect(h.client.result(order)).rejects.toMatchObject({
      code: ErrorCode.REJECTED,
      message: expect.stringMatching(/mallory-1-charge was started by another caller.*ctx\.id/),
    });
    // Nor with the price itself: a user's start is not the parent's, whatever its input.
    await door.start(Charge, 'mallory-2-charge', { amount: 1_000 }, { caller: mallory });
    await h.runAll();
    const second = await door.start(Checkout, 'mallory-2', {}, { caller: mallory });
    await h.runAll();
    await expect(h.client.result(second)).rejects.toMatchObject({ code: ErrorCode.REJECTED });

    const a = await h.client.start(Twin, 'a', {});
    const b = await h.client.start(Twin, 'b', {});
    await h.runAll();
    expect(await h.client.result(a)).toEqual({ charged: 5 });
    expect(await h.client.result(b)).toEqual({ charged: 5 });
    // Trusted code's start with another input is no child of a parent asking for 5 either.
    await h.client.start(Charge, 'shared-charge-2', { amount: 7 });
    await h.runAll();
    const Other = workflow({
      name: 'other',
      input: z.object({}),
      run: async (ctx) => ctx.child(Charge, 'shared-charge-2', { amount: 5 }),
    });
    h.deploy([...actors, Other.actor]);
    const c = await h.client.start(Other, 'c', {});
    await h.runAll();
    await expect(h.client.result(c)).rejects.toMatchObject({ code: ErrorCode.REJECTED });
  });
});

describe('sagas and ending early', () => {
  /** Books three things, undoing each booked one on failure or cancel; logs every call. */
  function trip(log: string[]) {
    return workflow({
      name: 'trip',
      input: z.object({ failHotel: z.boolean() }),
      run: async (ctx, { failHotel }) => {
        const undo = (what: string) => () => void log.push(`undo ${what}`);
        await ctx.step('flight', () => void log.push('flight'), { compensate: undo('flight') });
        await ctx.step('car', () => void log.push('car'), { compensate: undo('car') });
        await ctx.waitForEvent('confirm');
        await ctx.step(
          'hotel',
          () => {
            log.push('hotel');
            if (failHotel) throw new Error('no rooms');
          },
          { retry: { maxAttempts: 1 }, compensate: undo('hotel') },
        );
        return 'booked';
      },
    });
  }

  it('runs the compensations of the steps attempted in reverse when the run fails, the failed one first', async () => {
    const log: string[] = [];
    const Trip = trip(log);
    const h = workflowHarness([Trip.actor]);
    const ref = await h.client.start(Trip, 't', { failHotel: true });
    await h.client.signal(ref, 'confirm');
    await h.runAll();

    await expect(h.client.result(ref)).rejects.toMatchObject({ code: ErrorCode.STEP_FAILED });
    // The hotel's attempt failed, but may have booked all the same: it is undone too.
    expect(log).toEqual(['flight', 'car', 'hotel', 'undo hotel', 'undo car', 'undo flight']);
  });

  it('cancels a waiting instance: compensations run once, in reverse, and it ends cancelled', async () => {
    const log: string[] = [];
    const Trip = trip(log);
    const h = workflowHarness([Trip.actor]);
    const ref = await h.client.start(Trip, 't', { failHotel: false });
    await h.runAll();
    await h.client.cancel(ref, { reason: 'changed plans' });
    await h.client.cancel(ref);
    await h.client.signal(ref, 'confirm');
    await h.runAll();

    await expect(h.client.result(ref)).rejects.toMatchObject({
      code: ErrorCode.CANCELLED,
      message: 'workflow instance t was cancelled: changed plans',
    });
    expect(log).toEqual(['flight', 'car', 'undo car', 'undo flight']);
    expect(await h.client.workflowStatus(ref)).toMatchObject({ status: 'cancelled' });
  });

  it('terminates an instance at once, without compensations', async () => {
    const log: string[] = [];
    const Trip = trip(log);
    const h = workflowHarness([Trip.actor]);
    const ref = await h.client.start(Trip, 't', { failHotel: false });
    await h.runAll();
    await h.client.terminate(ref, { reason: 'operator' });
    await h.runAll();

    await expect(h.client.result(ref)).rejects.toMatchObject({ code: ErrorCode.CANCELLED });
    expect(await h.client.workflowStatus(ref)).toMatchObject({ status: 'terminated' });
    expect(log).toEqual(['flight', 'car']);
  });

  it('halts a finished instance after its retention, so its id starts anew', async () => {
    let runs = 0;
    const Short = workflow({
      name: 'short',
      input: z.object({}),
      retentionMs: DAY,
      run: async (ctx) => ctx.step('once', () => ++runs),
    });
    const h = workflowHarness([Short.actor]);
    const ref = await h.client.start(Short, 's', {});
    await h.runAll({ expire: true });
    expect(await h.client.workflowStatus(ref)).toMatchObject({ status: 'new' });
    await h.client.start(Short, 's', {});
    await h.runAll();
    expect(await h.client.result(ref)).toBe(2);
  });

  it('keeps a finished instance for the retention a deploy raised since, so a start of its id does not run it again', async () => {
    let runs = 0;
    const kept = (retentionMs: number) =>
      workflow({
        name: 'kept',
        input: z.object({}),
        retentionMs,
        run: async (ctx) => ctx.step('once', () => ++runs),
      });
    const h = workflowHarness([kept(DAY).actor]);
    const ref = await h.client.start(kept(DAY), 'k', {});
    const expiry = async () =>
      (await h.backend.store.listTimers(ref.id)).filter((timer) => timer.id === 'wf:expire');
    await h.runAll();
    const ended = h.clock.now();
    expect(await expiry()).toMatchObject([{ at: ended + DAY }]);

    // Raised to 3 days: the expiry set by the code that finished it is moved, not obeyed.
    h.deploy([kept(3 * DAY).actor]);
    await h.runAll({ until: ended + 2 * DAY, expire: true });
    expect(await h.client.workflowStatus(ref)).toMatchObject({ status: 'completed' });
    expect(await expiry()).toMatchObject([{ at: ended + 3 * DAY }]);

    // Raised to Infinity: kept for good, and starting its id again runs nothing.
    const Forever = kept(Number.POSITIVE_INFINITY);
    h.deploy([Forever.actor]);
    await h.runAll({ expire: true });
    expect(await expiry()).toEqual([]);
    await h.client.start(Forever, 'k', {});
    await h.runAll({ expire: true });
    expect(await h.client.workflowStatus(ref)).toMatchObject({ status: 'completed' });
    expect(await h.client.result(ref)).toBe(1);
    expect(runs).toBe(1);
  });
});
