/**
 * What `ctx.race` does to a loser that may act in the world after losing: a call with a
 * `compensate` is undone once its reply comes (the actor may still apply it), a child is
 * cancelled (its own compensations run), each exactly once, counted on the actors themselves.
 */
import {
  actor,
  ErrorCode,
  TerminalError,
  type WorkflowContext,
  type WorkflowState,
  workflow,
} from '@baton/core';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { bookingChild } from './bookingFamily.ts';
import { workflowHarness } from './harness.ts';

/** Rooms of one hotel; counts every hold and release it applied. */
const Hotel = actor({
  name: 'hotel',
  state: z.object({ free: z.number(), holds: z.number(), releases: z.number() }),
  initial: () => ({ free: 5, holds: 0, releases: 0 }),
  handlers: {
    hold: {
      payload: z.object({}),
      handle: (ctx) => {
        ctx.state.holds += 1;
        ctx.state.free -= 1;
        return { free: ctx.state.free };
      },
    },
    release: {
      payload: z.object({}),
      handle: (ctx) => {
        ctx.state.releases += 1;
        ctx.state.free += 1;
      },
    },
  },
});

const hotel = Hotel.ref('ritz');

/** Races a hold of a room, released if it is undone, against a `stop` event. */
const holdOrStop = (ctx: WorkflowContext) =>
  ctx.race([
    ctx.call(
      hotel,
      'hold',
      {},
      { compensate: async (_, saga) => void (await saga.call(hotel, 'release', {})) },
    ),
    ctx.waitForEvent<string>('stop'),
  ]);

/** Races, then waits for `end`: `fail` makes the run throw there, so the saga unwinds. */
const Booking = workflow({
  name: 'booking',
  input: z.object({}),
  run: async (ctx) => {
    const raced = await holdOrStop(ctx);
    const end = await ctx.waitForEvent<string>('end');
    if (end === 'fail') throw new TerminalError('the booking failed');
    return raced.index;
  },
});

const hotelOf = async (h: ReturnType<typeof workflowHarness>) =>
  (await h.state(hotel.id)) as { free: number; holds: number; releases: number };

/** A trip that races the booking child `c` against a `stop` event. */
function racingFamily(log: string[]) {
  const Child = bookingChild(log, 'stay');
  const Parent = workflow({
    name: 'trip',
    input: z.object({}),
    run: async (ctx) => {
      const raced = await ctx.race([ctx.child(Child, 'c', {}), ctx.waitForEvent('stop')]);
      return raced.index;
    },
  });
  return { Child, Parent };
}

describe('a race loser', () => {
  it('is undone when it is a call with a compensation: its reply comes, and the compensation runs once', async () => {
    const h = workflowHarness([Booking.actor, Hotel]);
    const ref = await h.client.start(Booking, 'b1', {});
    // The event is there before the hold's reply can be: it wins.
    await h.client.signal(ref, 'stop', 'now');
    await h.runAll();
    expect(await hotelOf(h)).toEqual({ free: 5, holds: 1, releases: 1 });

    await h.client.signal(ref, 'end', 'ok');
    await h.runAll();
    expect(await h.client.result(ref)).toBe(1);
    // The saga has nothing left to undo: the loser was undone already, and only once.
    expect(await hotelOf(h)).toEqual({ free: 5, holds: 1, releases: 1 });
  });

  it('is undone once, not again, when the run fails later', async () => {
    const h = workflowHarness([Booking.actor, Hotel]);
    const ref = await h.client.start(Booking, 'b2', {});
    await h.client.signal(ref, 'stop', 'now');
    await h.client.signal(ref, 'end', 'fail');
    await h.runAll();
    await expect(h.client.result(ref)).rejects.toMatchObject({
      code: ErrorCode.REJECTED,
      message: 'the booking failed',
    });
    expect(await hotelOf(h)).toEqual({ free: 5, holds: 1, releases: 1 });
  });

  it('keeps the run from completing until its compensation has run', async () => {
    const Quick = workflow({
      name: 'quick',
      input: z.object({}),
      run: async (ctx) => (await holdOrStop(ctx)).index,
    });
    const h = workflowHarness([Quick.actor, Hotel]);
    const ref = await h.client.start(Quick, 'q', {});
    await h.client.signal(ref, 'stop', 'now');
    await h.runAll();
    expect(await h.client.result(ref)).toBe(1);
    expect(await hotelOf(h)).toEqual({ free: 5, holds: 1, releases: 1 });
    const state = (await h.state(ref.id)) as WorkflowState;
    expect(state.journal.map((e) => [e.kind, e.name, e.state])).toEqual([
      ['call', 'hotel.hold', 'done'],
      ['event', 'stop', 'done'],
      ['call', 'hotel.release', 'done'],
    ]);
  });

  it('is cancelled when it is a child: its compensations run once', async () => {
    const log: string[] = [];
    const { Child, Parent } = racingFamily(log);
    const h = workflowHarness([Parent.actor, Child.actor]);
    const parent = await h.client.start(Parent, 'p', {});
    await h.runAll();
    expect(log).toEqual(['book']);
    await h.client.signal(parent, 'stop');
    await h.runAll();
    expect(await h.client.result(parent)).toBe(1);
    await expect(h.client.result(Child.ref('c'))).rejects.toMatchObject({
      code: ErrorCode.CANCELLED,
      message: 'workflow instance c was cancelled: it lost a race in its parent p',
    });
    // A late signal finds it ended: refused, and nothing runs again.
    await expect(h.client.signal(Child.ref('c'), 'go')).rejects.toMatchObject({
      code: ErrorCode.REJECTED,
    });
    await h.runAll();
    expect(log).toEqual(['book', 'unbook']);
  });

  it('is left as it is when it is a child that completed as the race settled: a completed child is never undone', async () => {
    const log: string[] = [];
    const { Child, Parent } = racingFamily(log);
    const h = workflowHarness([Parent.actor, Child.actor]);
    const parent = await h.client.start(Parent, 'p', {});
    await h.runAll();
    // The parent's event wins the race while the child completes: the cancel finds it ended.
    await h.client.signal(parent, 'stop');
    await h.client.signal(Child.ref('c'), 'go');
    await h.runAll();
    expect(await h.client.result(parent)).toBe(1);
    expect(await h.client.result(Child.ref('c'))).toBe('done');
    expect(log).toEqual(['book']);
  });

  it('finishes its undo, and the instance ends, when the run fails or is cancelled meanwhile', async () => {
    /** Releases by the outside API, which is down for the first try of each instance. */
    const releases = new Map<string, number>();
    const Slow = workflow({
      name: 'slow-undo',
      input: z.object({ fail: z.boolean() }),
      run: async (ctx, { fail }) => {
        await ctx.race([
          ctx.call(
            hotel,
            'hold',
            {},
            {
              // The undo waits a minute to retry: the run fails, or is cancelled, meanwhile.
              compensate: async (_, saga) =>
                void (await saga.step(
                  'release',
                  ({ attempt }) => {
                    if (attempt === 1) throw new Error('hotel API down');
                    releases.set(ctx.id, (releases.get(ctx.id) ?? 0) + 1);
                  },
                  { retry: { maxAttempts: 3, initialDelayMs: 60_000 } },
                )),
            },
          ),
          ctx.waitForEvent('stop'),
        ]);
        if (fail) throw new TerminalError('the booking failed');
        return ctx.waitForEvent('end');
      },
    });
    const h = workflowHarness([Slow.actor, Hotel]);
    const [failed, cancelled] = [Slow.ref('f'), Slow.ref('c')];
    for (const ref of [failed, cancelled]) await h.client.signal(ref, 'stop', 'now');
    await h.client.start(Slow, 'f', { fail: true });
    await h.client.start(Slow, 'c', { fail: false });
    await h.runAll({ until: h.clock.now() + 1_000 });
    await h.client.cancel(cancelled, { reason: 'not needed' });
    await h.runAll();

    expect(await h.client.workflowStatus(failed)).toMatchObject({ status: 'failed' });
    expect(await h.client.workflowStatus(cancelled)).toMatchObject({ status: 'cancelled' });
    expect(Object.fromEntries(releases)).toEqual({ f: 1, c: 1 });
  });
  it('pauses the instance, once its run returned, when its undo awaits what no command settles', async () => {
    const Hanging = workflow({
      name: 'hanging-undo',
      input: z.object({}),
      run: async (ctx) => {
        const raced = await ctx.race([
          // As a fetch that never answers would: nothing in the saga can settle it.
          ctx.call(hotel, 'hold', {}, { compensate: () => new Promise(() => {}) }),
          ctx.waitForEvent<string>('stop'),
        ]);
        return raced.index;
      },
    });
    const h = workflowHarness([Hanging.actor, Hotel]);
    const ref = await h.client.start(Hanging, 'h1', {});
    await h.client.signal(ref, 'stop', 'now');
    await h.runAll();
    const { status, paused } = await h.client.workflowStatus(ref);
    expect(status).toBe('paused');
    expect(paused?.error).toMatchObject({
      code: ErrorCode.NON_DETERMINISTIC,
      message: expect.stringContaining(
        'workflow "hanging-undo": a race loser\'s compensation awaits something that is not a command of its saga',
      ),
    });
  });
});
