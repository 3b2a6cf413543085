/**
 * A cancel that meets the instance at its edges: while its failed run's saga runs, twice, after
 * it completed, and while its last call is under way as its parent waits for it. Each ends the
 * instance in one documented status, runs each compensation once, and tells the asker and the
 * parent one answer.
 */
import { actor, ErrorCode, TerminalError, type WorkflowState, workflow } from '@baton/core';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { answered } from '../engine/helpers.ts';
import { type WorkflowHarness, workflowHarness } from './harness.ts';

/** Polls one batch at a time until instance `id`'s call is under way (sent, no reply yet). */
async function untilCallUnderWay(h: WorkflowHarness, id: string): Promise<void> {
  for (let polls = 0; polls < 100; polls++) {
    const state = (await h.state(id)) as WorkflowState | undefined;
    if (state?.journal.some((e) => e.kind === 'call' && e.state === 'pending')) return;
    await h.worker.poll();
  }
  throw new Error(`${id} never had a call under way`);
}

const Stock = actor({
  name: 'stock',
  state: z.object({ held: z.number(), released: z.number() }),
  initial: () => ({ held: 0, released: 0 }),
  handlers: {
    reserve: { payload: z.object({}), handle: (ctx) => void ctx.state.held++ },
    release: { payload: z.object({}), handle: (ctx) => void ctx.state.released++ },
  },
});

function order(log: string[], fail: boolean) {
  return workflow({
    name: 'order',
    input: z.object({}),
    compensationRetry: { maxAttempts: 3, initialDelayMs: 60_000 },
    run: async (ctx) => {
      await ctx.step('charge', () => void log.push('charge'), {
        compensate: (_, { attempt }) => {
          log.push('refund');
          if (attempt === 1) throw new Error('gateway busy');
        },
      });
      await ctx.call(
        Stock.ref('s'),
        'reserve',
        {},
        { compensate: (_, saga) => saga.call(Stock.ref('s'), 'release', {}) },
      );
      if (fail) throw new TerminalError('out of stock');
      return 'done';
    },
  });
}

describe('a cancel', () => {
  it("while a failed run's saga runs changes nothing: it ends failed, each compensation run once", async () => {
    const log: string[] = [];
    const Order = order(log, true);
    const h = workflowHarness([Stock, Order.actor]);
    const ref = await h.client.start(Order, 'o', {});
    // The refund fails once and waits a minute to retry: the saga is under way.
    await h.runAll({ until: h.clock.now() });
    expect(log).toEqual(['charge', 'refund']);
    const told = await answered(h, h.client.ask(ref, 'cancel', { reason: 'too late' }));
    expect(told).toMatchObject({ status: 'running', ending: { status: 'failed' } });
    const again = await answered(h, h.client.ask(ref, 'cancel', { reason: 'really' }));
    expect(again).toMatchObject({ status: 'running', ending: { status: 'failed' } });
    await h.runAll();
    await expect(h.client.result(ref)).rejects.toMatchObject({ message: 'out of stock' });
    expect((await h.client.workflowStatus(ref)).status).toBe('failed');
    expect(log).toEqual(['charge', 'refund', 'refund']);
    expect(await h.state(Stock.ref('s').id)).toEqual({ held: 1, released: 1 });
  });

  it('twice ends it cancelled once, and one after it completed changes nothing', async () => {
    const log: string[] = [];
    const Order = order(log, false);
    const h = workflowHarness([Stock, Order.actor]);
    const ref = await h.client.start(Order, 'c', {});
    // The reserve is under way: two cancels come before its reply.
    await untilCallUnderWay(h, ref.id);
    const first = h.client.ask(ref, 'cancel', { reason: 'one' });
    const second = h.client.ask(ref, 'cancel', { reason: 'two' });
    expect(await answered(h, first)).toMatchObject({ ending: { status: 'cancelled' } });
    expect(await answered(h, second)).toMatchObject({ ending: { status: 'cancelled' } });
    await h.runAll();
    const state = (await h.state(ref.id)) as WorkflowState;
    expect(state.status).toBe('cancelled');
    expect(state.error).toMatchObject({ code: ErrorCode.CANCELLED, details: { reason: 'one' } });
    // The reserve was applied, then undone, once; the refund failed once and ran again.
    expect(await h.state(Stock.ref('s').id)).toEqual({ held: 1, released: 1 });
    expect(log).toEqual(['charge', 'refund', 'refund']);

    const done = await h.client.start(Order, 'd', {});
    await h.runAll();
    expect(await h.client.result(done)).toBe('done');
    expect(await answered(h, h.client.ask(done, 'cancel', {}))).toMatchObject({
      status: 'completed',
      output: 'done',
    });
    await h.runAll();
    expect((await h.client.workflowStatus(done)).status).toBe('completed');
    expect(await h.state(Stock.ref('s').id)).toEqual({ held: 2, released: 1 });
  });

  it("as its last call is under way tells its waiting parent 'cancelled' once", async () => {
    const log: string[] = [];
    const Order = order(log, false);
    const Parent = workflow({
      name: 'parent',
      input: z.object({}),
      run: async (ctx) => {
        try {
          return await ctx.child(Order, 'child', {});
        } catch (error) {
          await ctx.step('told', () => void log.push(`told ${(error as Error).message}`));
          return 'undone';
        }
      },
    });
    const h = workflowHarness([Stock, Order.actor, Parent.actor]);
    const parent = await h.client.start(Parent, 'p', {});
    // The parent's start, then the child's start and its charge: its reserve is under way.
    await untilCallUnderWay(h, Order.ref('child').id);
    expect(log).toEqual(['charge']);
    await h.client.cancel(Order.ref('child'), { reason: 'stop' });
    await h.client.cancel(Order.ref('child'), { reason: 'stop again' });
    await h.runAll();
    expect(await h.client.result(parent)).toBe('undone');
    expect(log).toEqual([
      'charge',
      'refund',
      'refund',
      'told workflow instance child was cancelled: stop',
    ]);
    expect(await h.state(Stock.ref('s').id)).toEqual({ held: 1, released: 1 });
  });
});
