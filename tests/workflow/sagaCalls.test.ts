/**
 * Sagas whose compensations call actors: a call's or a send's `compensate` runs in the saga
 * runner's context, and its `saga.call` / `saga.send` are journaled and applied exactly once —
 * so a cancelled or failed order gives back the stock it held, counted on the actor itself.
 */
import {
  actor,
  ErrorCode,
  silentLogger,
  TerminalError,
  type WorkflowState,
  workflow,
} from '@baton/core';
import { createEngine, WORKFLOW_COMPENSATIONS_FAILED_LOG, Worker } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { recordingLogger } from '../engine/helpers.ts';
import { workflowHarness } from './harness.ts';

/** Stock of one product; counts every reserve and release it applied. */
const Shelf = actor({
  name: 'shelf',
  state: z.object({
    stock: z.number(),
    held: z.record(z.string(), z.number()),
    reserves: z.number(),
    releases: z.number(),
    notes: z.array(z.string()),
  }),
  initial: () => ({
    stock: 10,
    held: {} as Record<string, number>,
    reserves: 0,
    releases: 0,
    notes: [] as string[],
  }),
  handlers: {
    reserve: {
      payload: z.object({ orderId: z.string(), qty: z.number() }),
      handle: (ctx, { orderId, qty }) => {
        ctx.state.reserves += 1;
        ctx.state.stock -= qty;
        ctx.state.held[orderId] = qty;
        return { left: ctx.state.stock };
      },
    },
    release: {
      payload: z.object({ orderId: z.string(), refuse: z.boolean().optional() }),
      handle: (ctx, { orderId, refuse }) => {
        if (refuse) throw new TerminalError(`release of ${orderId} refused`);
        ctx.state.releases += 1;
        ctx.state.stock += ctx.state.held[orderId] ?? 0;
        delete ctx.state.held[orderId];
        return { left: ctx.state.stock };
      },
    },
    note: {
      payload: z.object({ text: z.string() }),
      handle: (ctx, { text }) => void ctx.state.notes.push(text),
    },
  },
});

const DAY = 24 * 60 * 60 * 1000;

/** Reserves 3, notes it, charges once paid, and waits a day for `ship`; each undone in reverse. */
function order(log: string[]) {
  return workflow({
    name: 'order',
    input: z.object({ refuseRelease: z.boolean() }),
    run: async (ctx, { refuseRelease }) => {
      const shelf = Shelf.ref('kettle');
      await ctx.call(
        shelf,
        'reserve',
        { orderId: ctx.id, qty: 3 },
        {
          compensate: async (reply, saga) => {
            // Workflow code, replayed with the run: only its commands act, once each.
            saga.send(shelf, 'note', { text: `releasing (${reply?.left} were left)` });
            await saga.call(shelf, 'release', { orderId: ctx.id, refuse: refuseRelease });
          },
        },
      );
      ctx.send(
        shelf,
        'note',
        { text: `held for ${ctx.id}` },
        { compensate: (_, saga) => saga.send(shelf, 'note', { text: `freed for ${ctx.id}` }) },
      );
      await ctx.waitForEvent('pay');
      await ctx.step('charge', () => void log.push('charge'), {
        compensate: () => void log.push('refund'),
      });
      await ctx.waitForEvent('ship', { timeoutMs: DAY });
      return 'shipped';
    },
  });
}

const shelfOf = async (h: ReturnType<typeof workflowHarness>) =>
  (await h.state(Shelf.ref('kettle').id)) as {
    stock: number;
    held: Record<string, number>;
    reserves: number;
    releases: number;
    notes: string[];
  };

describe('compensations that call actors', () => {
  it('gives the reserved stock back exactly once when a waiting instance is cancelled', async () => {
    const log: string[] = [];
    const Order = order(log);
    const h = workflowHarness([Order.actor, Shelf]);
    const ref = await h.client.start(Order, 'o1', { refuseRelease: false });
    await h.runAll();
    expect(await shelfOf(h)).toMatchObject({ stock: 7, held: { o1: 3 }, reserves: 1 });

    await h.client.cancel(ref, { reason: 'customer changed their mind' });
    await h.client.cancel(ref);
    await h.client.signal(ref, 'pay');
    await h.runAll();

    await expect(h.client.result(ref)).rejects.toMatchObject({ code: ErrorCode.CANCELLED });
    expect(await shelfOf(h)).toEqual({
      stock: 10,
      held: {},
      reserves: 1,
      releases: 1,
      notes: ['held for o1', 'freed for o1', 'releasing (7 were left)'],
    });
    // Not charged, so nothing refunded; the release was applied once though its reply came in
    // a later turn that replayed the run and the compensations.
    expect(log).toEqual([]);
    const state = (await h.state(ref.id)) as WorkflowState;
    expect(state.journal.map((e) => [e.kind, e.name, e.state])).toEqual([
      ['call', 'shelf.reserve', 'done'],
      ['send', 'shelf.note', 'done'],
      ['event', 'pay', 'cancelled'],
      // The saga runner's commands, from the patch saying how it undoes.
      ['patch', 'baton:saga-by-command', 'done'],
      ['send', 'shelf.note', 'done'],
      ['send', 'shelf.note', 'done'],
      ['call', 'shelf.release', 'done'],
    ]);
  });

  it.each([
    ['the worker that sent it', false],
    ['a worker that replays the run', true],
  ])(
    'gives the stock back once when cancelled before the reserve replies, the reply on %s',
    async (_, cold) => {
      const Order = order([]);
      const h = workflowHarness([Order.actor, Shelf]);
      const ref = await h.client.start(Order, 'o4', { refuseRelease: false });
      await h.client.cancel(ref, { reason: 'too slow' });
      // One poll: the start (which asks the shelf to reserve) and the cancel, in one turn.
      await h.worker.poll();
      expect(await h.state(Shelf.ref('kettle').id)).toBeUndefined(); // not reserved yet
      if (cold) {
        // Each turn on a worker of its own: every turn of the instance replays its run.
        for (let i = 0; i < 20; i++) {
          const worker = new Worker(
            createEngine({
              actors: [Order.actor, Shelf],
              store: h.backend.store,
              queue: h.backend.queue,
              clock: h.clock,
              logger: silentLogger,
            }),
          );
          if ((await worker.poll()) === 0) break;
        }
      }
      await h.runAll();

      await expect(h.client.result(ref)).rejects.toMatchObject({ code: ErrorCode.CANCELLED });
      // The reserve was applied after the cancel: its reply still keeps its compensation, which
      // runs once; the run itself went no further.
      expect(await shelfOf(h)).toEqual({
        stock: 10,
        held: {},
        reserves: 1,
        releases: 1,
        notes: ['releasing (7 were left)'],
      });
      const state = (await h.state(ref.id)) as WorkflowState;
      expect(state.journal.map((e) => [e.kind, e.name, e.state])).toEqual([
        ['call', 'shelf.reserve', 'done'],
        ['patch', 'baton:saga-by-command', 'done'],
        ['send', 'shelf.note', 'done'],
        ['call', 'shelf.release', 'done'],
      ]);
    },
  );

  it('waits for a call under way when the run fails beside it, and undoes it once', async () => {
    const Hasty = workflow({
      name: 'hasty',
      input: z.object({}),
      run: async (ctx) => {
        const shelf = Shelf.ref('kettle');
        await Promise.all([
          ctx.call(
            shelf,
            'reserve',
            { orderId: ctx.id, qty: 2 },
            { compensate: (_, saga) => saga.call(shelf, 'release', { orderId: ctx.id }) },
          ),
          // Runs in the start's turn, before the reserve even leaves: the run fails first.
          ctx.step(
            'check',
            () => {
              throw new Error('card declined');
            },
            { retry: { maxAttempts: 1 } },
          ),
        ]);
      },
    });
    const h = workflowHarness([Hasty.actor, Shelf]);
    const ref = await h.client.start(Hasty, 'h1', {});
    await h.runAll();

    await expect(h.client.result(ref)).rejects.toMatchObject({ code: ErrorCode.STEP_FAILED });
    expect(await shelfOf(h)).toMatchObject({ stock: 10, held: {}, reserves: 1, releases: 1 });
  });

  it('runs step, send and call compensations in reverse when the run fails', async () => {
    const log: string[] = [];
    const Order = order(log);
    const h = workflowHarness([Order.actor, Shelf]);
    const ref = await h.client.start(Order, 'o2', { refuseRelease: false });
    await h.client.signal(ref, 'pay');
    await h.runAll();

    await expect(h.client.result(ref)).rejects.toMatchObject({ code: ErrorCode.TIMED_OUT });
    expect(await shelfOf(h)).toEqual({
      stock: 10,
      held: {},
      reserves: 1,
      releases: 1,
      notes: ['held for o2', 'freed for o2', 'releasing (7 were left)'],
    });
    expect(log).toEqual(['charge', 'refund']);
    const state = (await h.state(ref.id)) as WorkflowState;
    expect(state.journal.slice(5).map((e) => [e.kind, e.name, e.state])).toEqual([
      ['patch', 'baton:saga-by-command', 'done'],
      ['compensate', 'charge', 'done'],
      ['send', 'shelf.note', 'done'],
      ['send', 'shelf.note', 'done'],
      ['call', 'shelf.release', 'done'],
    ]);
  });

  it('ends the instance with compensationErrors naming a release the actor refused, and logs the line the alarm counts', async () => {
    const Order = order([]);
    const { logger, lines } = recordingLogger();
    const h = workflowHarness([Order.actor, Shelf], { logger });
    const ref = await h.client.start(Order, 'o3', { refuseRelease: true });
    await h.runAll();
    await h.client.cancel(ref);
    await h.runAll();

    const status = await h.client.workflowStatus(ref);
    expect(status.status).toBe('cancelled');
    expect(status.error?.details?.compensationErrors).toEqual([
      expect.objectContaining({ message: 'release of o3 refused' }),
    ]);
    expect(await shelfOf(h)).toMatchObject({ stock: 7, held: { o3: 3 }, releases: 0 });
    // Once: what CompensationFailuresAlarm counts, naming the instance and each failure.
    const failed = lines.filter((line) => line.message === WORKFLOW_COMPENSATIONS_FAILED_LOG);
    expect(failed).toEqual([
      {
        level: 'error',
        message: 'workflow ended with failed compensations: what they undo stays done',
        fields: expect.objectContaining({
          actor: ref.id,
          workflow: 'order',
          status: 'cancelled',
          failed: 1,
          errors: [expect.stringMatching(/^REJECTED: release of o3 refused/)],
        }),
      },
    ]);
  });

  it("fails a compensation that calls on the run's ctx, saying to undo with the saga's, rather than waiting for ever", async () => {
    const Careless = workflow({
      name: 'careless',
      input: z.object({}),
      run: async (ctx) => {
        const shelf = Shelf.ref('kettle');
        await ctx.call(
          shelf,
          'reserve',
          { orderId: 'c1', qty: 3 },
          // The run's ctx, not the saga's: it issues nothing once the run has ended.
          { compensate: async () => void (await ctx.call(shelf, 'release', { orderId: 'c1' })) },
        );
        throw new TerminalError('out of paper');
      },
    });
    const h = workflowHarness([Careless.actor, Shelf]);
    const ref = await h.client.start(Careless, 'c1', {});
    await h.runAll();
    const status = await h.client.workflowStatus(ref);
    expect(status.status).toBe('failed');
    expect(status.error?.details?.compensationErrors).toEqual([
      expect.objectContaining({
        code: ErrorCode.INVALID_ARGUMENT,
        message:
          'workflow "careless": a compensation issued call "shelf.release" on the run\'s ctx, which issues nothing once its run has ended: undo with the context a compensation is given — compensate: (result, saga) => saga.call(…)',
        details: { workflow: 'careless', kind: 'call', name: 'shelf.release' },
      }),
    ]);
    expect(await shelfOf(h)).toMatchObject({ stock: 7, releases: 0 });
  });

  /** Notes the undo with the saga, then releases on `release`'s context: version 1 the run's. */
  function lateCareless(version: string, releaseOnSaga: boolean) {
    return workflow({
      name: 'late-careless',
      version,
      input: z.object({}),
      run: async (ctx) => {
        const shelf = Shelf.ref('kettle');
        await ctx.call(
          shelf,
          'reserve',
          { orderId: 'l1', qty: 3 },
          {
            compensate: async (_, saga) => {
              await saga.call(shelf, 'note', { text: 'undoing l1' });
              await (releaseOnSaga ? saga : ctx).call(shelf, 'release', { orderId: 'l1' });
            },
          },
        );
        throw new TerminalError('out of paper');
      },
    });
  }

  it("pauses an instance whose compensation awaits the run's ctx after an await, naming the command; fixed and resumed, it undoes once", async () => {
    const h = workflowHarness([lateCareless('1', false).actor, Shelf]);
    const ref = await h.client.start(lateCareless('1', false), 'l1', {});
    await h.runAll();
    const paused = await h.client.workflowStatus(ref);
    expect(paused.status).toBe('paused');
    expect(paused.paused?.error).toMatchObject({
      code: ErrorCode.NON_DETERMINISTIC,
      message:
        'workflow "late-careless": the compensation of "shelf.reserve" awaits something that is not a command of its saga (the run\'s ctx was asked for call "shelf.release" since the run ended, and issues nothing then): nothing can resume it. Undo with the context a compensation is given — compensate: (result, saga) => saga.call(…), saga.step for work outside — deploy, and resume the instance',
      details: { reason: 'AWAITS_OUTSIDE', compensation: 'shelf.reserve' },
    });
    expect(await shelfOf(h)).toMatchObject({ stock: 7, releases: 0, notes: ['undoing l1'] });

    const fixed = lateCareless('2', true);
    h.deploy([fixed.actor, Shelf]);
    await h.client.asSystem().send(ref as never, 'resume' as never, {} as never);
    await h.runAll();
    expect((await h.client.workflowStatus(ref)).status).toBe('failed');
    // The note the history holds is not sent again; the release runs once.
    expect(await shelfOf(h)).toMatchObject({ stock: 10, releases: 1, notes: ['undoing l1'] });
  });

  it('pauses an instance whose compensation awaits a promise of its own, saying what to await', async () => {
    const Stuck = workflow({
      name: 'stuck',
      input: z.object({}),
      run: async (ctx) => {
        await ctx.call(
          Shelf.ref('kettle'),
          'reserve',
          { orderId: 's1', qty: 3 },
          // The run's clock, which waits on nothing, then as a fetch that never answers would:
          // nothing in the saga can settle it.
          { compensate: () => new Promise(() => void ctx.now()) },
        );
        throw new TerminalError('out of paper');
      },
    });
    const h = workflowHarness([Stuck.actor, Shelf]);
    const ref = await h.client.start(Stuck, 's1', {});
    await h.runAll();
    const { status, paused } = await h.client.workflowStatus(ref);
    expect(status).toBe('paused');
    expect(paused?.error).toMatchObject({
      message: expect.stringContaining(
        'the compensation of "shelf.reserve" awaits something that is not a command of its saga (a command of the run\'s ctx, which issues nothing once its run has ended, a fetch, or a promise of its own)',
      ),
      details: { compensation: 'shelf.reserve' },
    });
    expect(paused?.error.details).not.toHaveProperty('dropped');
  });

  it("lets a compensation read the run's ctx for what waits on nothing: its time", async () => {
    const Timed = workflow({
      name: 'timed',
      input: z.object({}),
      run: async (ctx) => {
        const shelf = Shelf.ref('kettle');
        await ctx.call(
          shelf,
          'reserve',
          { orderId: 't1', qty: 3 },
          {
            compensate: (_, saga) =>
              saga.call(shelf, 'release', { orderId: `t1@${ctx.now() > 0 ? 'now' : 'never'}` }),
          },
        );
        throw new TerminalError('out of paper');
      },
    });
    const h = workflowHarness([Timed.actor, Shelf]);
    const ref = await h.client.start(Timed, 't1', {});
    await h.runAll();
    const status = await h.client.workflowStatus(ref);
    expect(status.status).toBe('failed');
    expect(status.error?.details).not.toHaveProperty('compensationErrors');
    expect(await shelfOf(h)).toMatchObject({ releases: 1 });
  });

  it('logs no failed compensations for a saga whose compensations all ran', async () => {
    const Order = order([]);
    const { logger, lines } = recordingLogger();
    const h = workflowHarness([Order.actor, Shelf], { logger });
    const ref = await h.client.start(Order, 'o4', { refuseRelease: false });
    await h.runAll();
    await h.client.cancel(ref);
    await h.runAll();

    expect((await h.client.workflowStatus(ref)).status).toBe('cancelled');
    expect(lines.filter((line) => line.level === 'error')).toEqual([]);
  });
});
