/**
 * What a failed run leaves under way ends with it, as a cancel's does: a sibling step not yet
 * run never runs (nor one waiting to retry), a wait takes no event, and the saga runner undoes
 * exactly the steps that ran — counted across every replay of the run.
 */
import { replayWorkflow, TerminalError, type WorkflowState, workflow } from '@baton/core';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { workflowHarness } from './harness.ts';

/** What the outside world saw, in order, across every replay (a run's locals start again). */
const world: string[] = [];
const tries = new Map<string, number>();
const attempt = (name: string) => {
  const n = (tries.get(name) ?? 0) + 1;
  tries.set(name, n);
  return n;
};

/** A trip whose hotel has no room: a terminal failure beside a flight and a wait. */
function trip(name: string, { hotelFirst, flaky }: { hotelFirst: boolean; flaky: boolean }) {
  return workflow({
    name,
    input: z.object({}),
    compensationRetry: { maxAttempts: 3, initialDelayMs: 60_000 },
    run: async (ctx) => {
      await ctx.step('deposit', () => void world.push('deposit'), {
        compensate: () => {
          world.push('undo deposit');
          // The bank is down once: the saga waits a minute for its retry.
          if (attempt('undo deposit') === 1) throw new Error('bank down');
        },
      });
      const flight = () =>
        ctx.step(
          'flight',
          () => {
            if (flaky && attempt('flight') === 1) throw new Error('flaky');
            world.push('flight booked');
          },
          {
            retry: { maxAttempts: 3, initialDelayMs: 1_000 },
            compensate: () => void world.push('flight cancelled'),
          },
        );
      const hotel = () =>
        ctx.step('hotel', () => {
          world.push('no room');
          throw new TerminalError('no room');
        });
      const paid = () => ctx.waitForEvent('paid');
      await ctx.parallel(hotelFirst ? [hotel, flight, paid] : [flight, hotel, paid]);
      return 'booked';
    },
  });
}

describe('a run that fails with work under way', () => {
  it('runs none of it after the failure, and undoes exactly the steps that ran', async () => {
    for (const hotelFirst of [true, false]) {
      world.length = 0;
      tries.clear();
      const Trip = trip(`trip-${hotelFirst}`, { hotelFirst, flaky: false });
      const h = workflowHarness([Trip.actor]);
      const ref = await h.client.start(Trip, 't', {});
      await h.runAll();

      const state = (await h.state(ref.id)) as WorkflowState;
      expect(state.status).toBe('failed');
      const undo = ['undo deposit', 'undo deposit'];
      // Steps run one at a time, in issue order: a flight issued after the hotel never runs.
      expect(world).toEqual(
        hotelFirst
          ? ['deposit', 'no room', ...undo]
          : ['deposit', 'flight booked', 'no room', 'flight cancelled', ...undo],
      );
      expect(state.journal.find((e) => e.name === 'flight')?.state).toBe(
        hotelFirst ? 'cancelled' : 'done',
      );
    }
  });

  it('never runs a sibling step that waited to retry, undoes it, and is not paused by its own saga', async () => {
    world.length = 0;
    tries.clear();
    const Trip = trip('trip-retry', { hotelFirst: false, flaky: true });
    const h = workflowHarness([Trip.actor]);
    const ref = await h.client.start(Trip, 't', {});
    await h.runAll({ until: h.clock.now() });
    // An event for the failed run's wait comes while the saga waits for the bank.
    await h.client.signal(ref, 'paid', 'p-1');
    await h.runAll();

    const state = (await h.state(ref.id)) as WorkflowState;
    expect(state.status).toBe('failed');
    // The flight's failed attempt may have booked it all the same: its compensation runs.
    expect(world).toEqual([
      'deposit',
      'no room',
      'flight cancelled',
      'undo deposit',
      'undo deposit',
    ]);
    expect(state.journal.find((e) => e.name === 'flight')?.state).toBe('cancelled');
    // No retry of the flight was left to fire, and the event was taken by no one.
    expect((await h.backend.store.listTimers(ref.id)).map((t) => t.id)).toEqual(['wf:expire']);
    expect(state.journal.find((e) => e.name === 'paid')?.state).toBe('cancelled');
  });

  it('cancels a child it started, telling it why, once the saga has undone what ran', async () => {
    world.length = 0;
    const Nap = workflow({
      name: 'nap',
      input: z.object({}),
      run: async (ctx) => {
        await ctx.step('lie down', () => void world.push('lie down'), {
          compensate: () => void world.push('get up'),
        });
        return ctx.waitForEvent('wake');
      },
    });
    const Day = workflow({
      name: 'day',
      input: z.object({}),
      run: async (ctx) => {
        await ctx.step('coffee', () => void world.push('coffee'), {
          compensate: () => void world.push('wash cup'),
        });
        await ctx.parallel([
          () => ctx.child(Nap, 'n', {}),
          () =>
            ctx.step('work', () => {
              throw new TerminalError('no work today');
            }),
        ]);
      },
    });
    const h = workflowHarness([Day.actor, Nap.actor]);
    await h.client.start(Day, 'd', {});
    await h.runAll();

    expect(await h.client.workflowStatus(Day.ref('d'))).toMatchObject({ status: 'failed' });
    const nap = (await h.state(Nap.ref('n').id)) as WorkflowState;
    expect(nap.status).toBe('cancelled');
    expect(nap.error?.message).toBe('workflow instance n was cancelled: its parent d failed');
    // The nap's step was committed for its attempt when the cancel came, and not yet attempted:
    // as it might have been (in a turn that crashed), its compensation runs all the same.
    expect(world.sort()).toEqual(['coffee', 'get up', 'wash cup']);
  });
});

/** A checkout that charges (undone by a refund) and returns what `output` makes of the charge. */
function checkout(refunds: string[], output: (charge: { id: number; at: Date }) => unknown) {
  return workflow({
    name: 'checkout',
    input: z.object({ amount: z.number() }),
    output: z.object({ charge: z.string(), at: z.string() }),
    retentionMs: Number.POSITIVE_INFINITY,
    run: async (ctx, { amount }) => {
      const charge = await ctx.step('charge', () => ({ id: 17, amount }), {
        compensate: (_, { stepKey }) => void refunds.push(stepKey),
      });
      return output({ id: charge.id, at: new Date(Date.UTC(2026, 11, 1)) }) as never;
    },
  });
}

/** Runs a checkout to its end: its last state, and the refunds its saga made. */
async function runCheckout(id: string, output: Parameters<typeof checkout>[1]) {
  const refunds: string[] = [];
  const Checkout = checkout(refunds, output);
  const h = workflowHarness([Checkout.actor]);
  const ref = await h.client.start(Checkout, id, { amount: 30 });
  await h.runAll();
  return { state: (await h.state(ref.id)) as WorkflowState, refunds };
}

describe("a run's output", () => {
  it('that its schema takes is kept as JSON reads it back, and nothing is undone', async () => {
    const { state, refunds } = await runCheckout('c-0', ({ id, at }) => ({
      charge: `ch_${id}`,
      at,
    }));
    expect(state).toMatchObject({
      status: 'completed',
      output: { charge: 'ch_17', at: '2026-12-01T00:00:00.000Z' },
    });
    expect(refunds).toEqual([]);
  });

  it('that its schema refuses fails the run, naming the field, and the saga undoes the steps it kept, once', async () => {
    // A bug of the run: the id is a number, the schema wants a string.
    const { state, refunds } = await runCheckout('c-1', ({ id, at }) => ({ charge: id, at }));
    expect(state).toMatchObject({
      status: 'failed',
      error: {
        code: 'INVALID_STATE',
        message: expect.stringMatching(
          /^workflow "checkout" returned an output its output schema refuses: charge: .*string/,
        ),
      },
    });
    expect(state.output).toBeUndefined();
    expect(refunds).toHaveLength(1);
  });

  it('that is not JSON fails the run, saying so, and the saga undoes the steps it kept, once', async () => {
    const { state, refunds } = await runCheckout('c-2', ({ id }) => ({ charge: BigInt(id) }));
    expect(state).toMatchObject({
      status: 'failed',
      error: {
        code: 'INVALID_STATE',
        message: expect.stringMatching(
          /^workflow "checkout" returned an output that is not JSON: .*BigInt/,
        ),
      },
    });
    expect(refunds).toHaveLength(1);
  });

  it('over 64 KiB fails the run; a check replay reads it so, and reads one an earlier release let complete as completed', async () => {
    const Big = workflow({
      name: 'big',
      input: z.object({}),
      retentionMs: Number.POSITIVE_INFINITY,
      run: async () => 'x'.repeat(100 * 1024),
    });
    const h = workflowHarness([Big.actor]);
    const ref = await h.client.start(Big, 'b-1', {});
    await h.runAll();

    const state = (await h.state(ref.id)) as WorkflowState;
    expect(state).toMatchObject({
      status: 'failed',
      error: {
        code: 'MESSAGE_TOO_LARGE',
        message: expect.stringMatching(/^the output of workflow "big" b-1 is 102402 bytes/),
      },
    });
    await expect(replayWorkflow(Big, structuredClone(state))).resolves.toMatchObject({
      outcome: 'failed',
    });
    // As an earlier release, which took any output, left it.
    const { error: _, ...rest } = structuredClone(state);
    const earlier = {
      ...rest,
      status: 'completed',
      output: 'x'.repeat(100 * 1024),
    } as WorkflowState;
    await expect(replayWorkflow(Big, earlier)).resolves.toMatchObject({ outcome: 'completed' });
  });
});
