/**
 * How long undo work retries by default: a step's compensation, and a `saga.step` in a call's,
 * try 20 times (about 8 hours with the backoff's defaults) before they give up for good, where a
 * step of the run tries 3 times. `compensationRetry` and a `saga.step`'s own `retry` override
 * the defaults field by field.
 */
import { actor, ErrorCode, TerminalError, type WorkflowState, workflow } from '@baton/core';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { workflowHarness } from './harness.ts';

/** 1 s doubling to at most an hour, 19 waits: 4,095 s, then seven hours. */
const EIGHT_HOURS_MS = (4_095 + 7 * 3_600) * 1_000;

/** Counts the attempts of an outside service that is down for its first `downFor` calls. */
function flaky(downFor: number) {
  const attempts: number[] = [];
  const call = (attempt: number) => {
    attempts.push(attempt);
    if (attempts.length <= downFor) throw new Error('payment service unavailable');
  };
  return { attempts, call };
}

/** A run that charges, then fails: its compensation refunds through `refund`. */
function refunding(name: string, refund: ReturnType<typeof flaky>, options = {}) {
  return workflow({
    name,
    input: z.object({}),
    ...options,
    run: async (ctx) => {
      await ctx.step('charge', () => 'charged', {
        compensate: (_, { attempt }) => refund.call(attempt),
      });
      throw new TerminalError('out of stock');
    },
  });
}

/** The compensation errors the failed run ended with. */
async function compensationErrors(h: ReturnType<typeof workflowHarness>, id: string) {
  const state = (await h.state(id)) as WorkflowState;
  return (state.error?.details as { compensationErrors?: unknown[] } | undefined)
    ?.compensationErrors;
}

describe('a compensation with no retry policy', () => {
  it('retries 20 times over about 8 hours, and refunds on the last', async () => {
    const refund = flaky(19);
    const W = refunding('refund-late', refund);
    const h = workflowHarness([W.actor]);
    const started = h.clock.now();
    const ref = await h.client.start(W, 'r', {});
    await h.runAll();

    expect(refund.attempts).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(h.clock.now() - started).toBe(EIGHT_HOURS_MS);
    expect(await h.client.workflowStatus(ref)).toMatchObject({ status: 'failed' });
    expect(await compensationErrors(h, ref.id)).toBeUndefined();
  });

  it('gives up for good after its 20th attempt, named as the compensation', async () => {
    const refund = flaky(Number.POSITIVE_INFINITY);
    const W = refunding('refund-never', refund);
    const h = workflowHarness([W.actor]);
    const ref = await h.client.start(W, 'r', {});
    await h.runAll();

    expect(refund.attempts).toHaveLength(20);
    expect(await compensationErrors(h, ref.id)).toEqual([
      expect.objectContaining({
        code: ErrorCode.STEP_FAILED,
        message:
          'the compensation of step "charge" failed after 20 attempts: unexpected error: payment service unavailable',
      }),
    ]);
  });
});

describe('compensationRetry', () => {
  it('overrides the defaults field by field: a shorter wait keeps the 20 attempts', async () => {
    const refund = flaky(Number.POSITIVE_INFINITY);
    const W = refunding('refund-quick', refund, { compensationRetry: { initialDelayMs: 10 } });
    const h = workflowHarness([W.actor]);
    const started = h.clock.now();
    await h.client.start(W, 'r', {});
    await h.runAll();

    expect(refund.attempts).toHaveLength(20);
    // 10 ms doubling: 10 × (2^19 - 1) ms, under the hour's cap all the way.
    expect(h.clock.now() - started).toBe(10 * (2 ** 19 - 1));
  });

  it('leaves a default a field set to undefined names', async () => {
    const refund = flaky(Number.POSITIVE_INFINITY);
    const W = refunding('refund-unset', refund, {
      compensationRetry: { maxAttempts: undefined, initialDelayMs: 10 },
    });
    const h = workflowHarness([W.actor]);
    await h.client.start(W, 'r', {});
    await h.runAll();
    expect(refund.attempts).toHaveLength(20);
  });

  it('keeps a maxAttempts it names', async () => {
    const refund = flaky(Number.POSITIVE_INFINITY);
    const W = refunding('refund-twice', refund, { compensationRetry: { maxAttempts: 2 } });
    const h = workflowHarness([W.actor]);
    await h.client.start(W, 'r', {});
    await h.runAll();
    expect(refund.attempts).toEqual([1, 2]);
  });
});

describe('a saga.step in a call’s compensation', () => {
  const Rooms = actor({
    name: 'rooms',
    state: z.object({ held: z.number() }),
    initial: () => ({ held: 0 }),
    handlers: {
      hold: {
        payload: z.object({}),
        handle: (ctx) => {
          ctx.state.held += 1;
        },
      },
    },
  });
  /** Holds a room, then fails; the hold's undo tells an outside service by `saga.step`. */
  const holding = (name: string, notify: ReturnType<typeof flaky>, retry?: object) =>
    workflow({
      name,
      input: z.object({}),
      run: async (ctx) => {
        await ctx.call(
          Rooms.ref('ritz'),
          'hold',
          {},
          {
            compensate: async (_, saga) =>
              void (await saga.step('notify', ({ attempt }) => notify.call(attempt), {
                ...(retry && { retry }),
              })),
          },
        );
        throw new TerminalError('no flight');
      },
    });

  it('retries as a compensation does, 20 times, and by its own retry over that', async () => {
    const notify = flaky(Number.POSITIVE_INFINITY);
    const quick = flaky(Number.POSITIVE_INFINITY);
    const W = holding('hold-undo', notify);
    const Q = holding('hold-undo-quick', quick, { maxAttempts: 4 });
    const h = workflowHarness([W.actor, Q.actor, Rooms]);
    await h.client.start(W, 'w', {});
    await h.client.start(Q, 'q', {});
    await h.runAll();

    expect(notify.attempts).toHaveLength(20);
    expect(quick.attempts).toHaveLength(4);
  });

  it('leaves a step of the run at its own default, 3 attempts', async () => {
    const charge = flaky(Number.POSITIVE_INFINITY);
    const W = workflow({
      name: 'charge-only',
      input: z.object({}),
      run: (ctx) => ctx.step('charge', ({ attempt }) => charge.call(attempt)),
    });
    const h = workflowHarness([W.actor]);
    const ref = await h.client.start(W, 'c', {});
    await h.runAll();

    expect(charge.attempts).toEqual([1, 2, 3]);
    expect(await h.client.workflowStatus(ref)).toMatchObject({ status: 'failed' });
  });
});
