/**
 * A run that throws an unexpected error — a bug such as a TypeError, or a RetryableError — pauses
 * its instance (RETRYABLE, reason RUN_THREW) instead of failing it: nothing is undone, no step
 * runs again, and once fixed code runs, the next recheck carries it on. Only a TerminalError (or
 * another final Baton error) fails a run and runs its compensations.
 */
import {
  ANONYMOUS,
  actor,
  BatonError,
  ErrorCode,
  RetryableError,
  replayWorkflow,
  SYSTEM,
  TerminalError,
  toBatonError,
  type WorkflowState,
  workflow,
} from '@baton/core';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { recordingLogger } from '../engine/helpers.ts';
import { workflowHarness } from './harness.ts';

/** Every run of each step and compensation, across every version of the code. */
const ran = { charge: 0, refund: 0, ship: 0 };

/** The order workflow; `fault` is what the run does once charged (`none`: the fixed code). */
function order(fault: 'type-error' | 'retryable' | 'misuse' | 'terminal' | 'none') {
  return workflow({
    name: 'order',
    input: z.object({ note: z.string().optional() }),
    run: async (ctx, { note }) => {
      await ctx.step('charge', () => ++ran.charge, { compensate: () => ++ran.refund });
      if (fault === 'retryable') throw new RetryableError('the label service is down');
      if (fault === 'terminal') throw new TerminalError('the order was withdrawn');
      // A misuse of ctx, which Baton refuses with INVALID_ARGUMENT: a bug as a TypeError is.
      if (fault === 'misuse') await ctx.sleep(Number.NaN);
      // The bug: an order without a note.
      const label = fault === 'type-error' ? note!.toUpperCase() : (note ?? '').toUpperCase();
      return ctx.step('ship', () => ++ran.ship && label);
    },
  });
}

function reset() {
  Object.assign(ran, { charge: 0, refund: 0, ship: 0 });
}

describe('a run that throws an unexpected error', () => {
  it('pauses, undoes nothing, and goes on at the recheck after a fix deploys', async () => {
    reset();
    const { logger, lines } = recordingLogger();
    const Buggy = order('type-error');
    const h = workflowHarness([Buggy.actor], { logger });
    const ref = await h.client.start(Buggy, 'o-1', {});
    await h.runAll({ until: h.clock.now() });

    const paused = await h.client.workflowStatus(ref);
    expect(paused.status).toBe('paused');
    expect(paused.paused?.error).toMatchObject({
      code: ErrorCode.RETRYABLE,
      details: { workflow: 'order', reason: 'RUN_THREW' },
    });
    expect(paused.paused?.error.message).toMatch(/threw TypeError: .*not a TerminalError/);
    expect(ran).toEqual({ charge: 1, refund: 0, ship: 0 });
    const logged = lines.filter((l) => l.message === 'workflow paused: its run threw');
    expect(logged).toHaveLength(1);
    expect(String(logged[0]!.fields.stack)).toMatch(/^TypeError/);
    const [recheck] = await h.backend.store.listTimers(ref.id);
    expect(recheck?.id).toBe('wf:recheck');

    // The recheck replays the same code: still paused, nothing run again, not logged again.
    await h.runAll({ until: recheck!.at });
    expect((await h.client.workflowStatus(ref)).status).toBe('paused');
    expect(ran).toEqual({ charge: 1, refund: 0, ship: 0 });
    expect(lines.filter((l) => l.message === 'workflow paused: its run threw')).toHaveLength(1);

    h.deploy([order('none').actor]);
    await h.runAll();
    expect(await h.client.result(ref)).toBe('');
    expect(ran).toEqual({ charge: 1, refund: 0, ship: 1 });
    const done = (await h.state(ref.id)) as WorkflowState;
    expect(done.paused).toBeUndefined();
    expect(await h.backend.store.listTimers(ref.id)).not.toContainEqual(
      expect.objectContaining({ id: 'wf:recheck' }),
    );
  });

  it('pauses on a RetryableError too, and a cancel then runs its compensations', async () => {
    reset();
    const Flaky = order('retryable');
    const h = workflowHarness([Flaky.actor]);
    const ref = await h.client.start(Flaky, 'o-2', {});
    await h.runAll({ until: h.clock.now() });
    expect((await h.client.workflowStatus(ref)).paused?.error).toMatchObject({
      code: ErrorCode.RETRYABLE,
      message: expect.stringContaining('threw RETRYABLE: the label service is down'),
    });

    await h.client.cancel(ref, { reason: 'gave up' });
    await h.runAll();
    expect((await h.client.workflowStatus(ref)).status).toBe('cancelled');
    expect(ran).toEqual({ charge: 1, refund: 1, ship: 0 });
  });

  it('pauses on a misuse of ctx that Baton refuses, as on any other bug', async () => {
    reset();
    const Misused = order('misuse');
    const h = workflowHarness([Misused.actor]);
    const ref = await h.client.start(Misused, 'o-6', {});
    await h.runAll({ until: h.clock.now() });
    expect((await h.client.workflowStatus(ref)).paused?.error).toMatchObject({
      code: ErrorCode.RETRYABLE,
      message: expect.stringMatching(/threw INVALID_ARGUMENT: ctx\.sleep/),
      details: { reason: 'RUN_THREW' },
    });
    expect(ran).toEqual({ charge: 1, refund: 0, ship: 0 });

    // The misused sleep was never journaled: the fixed code issues its own, and goes on.
    h.deploy([order('none').actor]);
    await h.client.resumeWorkflow(ref);
    await h.runAll();
    expect(await h.client.result(ref)).toBe('');
    expect(ran).toEqual({ charge: 1, refund: 0, ship: 1 });
  });

  it("fails when it lets a command's own outcome through, whatever its code", async () => {
    reset();
    const Desk = actor({
      name: 'desk',
      state: z.object({}),
      initial: () => ({}),
      handlers: {
        // A code that would pause the run were the run to throw it: here it is the call's outcome.
        book: {
          payload: z.object({}),
          handle: () => {
            throw new BatonError(ErrorCode.INVALID_ARGUMENT, 'no desk for that date');
          },
        },
      },
    });
    const Booking = workflow({
      name: 'booking',
      input: z.object({}),
      run: async (ctx) => {
        await ctx.step('charge', () => ++ran.charge, { compensate: () => ++ran.refund });
        return ctx.call(Desk.ref('d'), 'book', {});
      },
    });
    const h = workflowHarness([Desk, Booking.actor]);
    const ref = await h.client.start(Booking, 'b-1', {});
    await h.runAll();
    await expect(h.client.result(ref)).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      message: 'no desk for that date',
    });
    expect(ran).toEqual({ charge: 1, refund: 1, ship: 0 });
  });

  it('fails, as it did, the run of an instance an earlier Baton started', async () => {
    reset();
    /** Throws a plain Error once told to go: what failed a run on purpose before the change. */
    const Legacy = workflow({
      name: 'legacy',
      input: z.object({}),
      events: { go: z.object({}) },
      run: async (ctx) => {
        await ctx.step('charge', () => ++ran.charge, { compensate: () => ++ran.refund });
        await ctx.waitForEvent('go');
        throw new Error('out of stock');
      },
    });
    const h = workflowHarness([Legacy.actor]);
    const ref = await h.client.start(Legacy, 'l-1', {});
    await h.runAll();
    // The record as an earlier Baton left it: no `thrown`.
    await h.rewriteState(ref.id, ({ thrown: _, ...state }) => state);
    await h.client.signal(ref, 'go', {});
    await h.runAll();
    await expect(h.client.result(ref)).rejects.toMatchObject({
      code: ErrorCode.REJECTED,
      message: 'out of stock',
    });
    expect(ran).toEqual({ charge: 1, refund: 1, ship: 0 });
  });

  it.each([
    [
      'a plain Error',
      (text: string) => new Error(text),
      "its run threw an error, Error, whose text is withheld from the readers of this public workflow (the worker's log has it)",
    ],
    [
      'a surprise Baton wrapped',
      (text: string) => toBatonError(new Error(text)),
      "an unexpected error; its text is in the server's log",
    ],
  ])(
    "withholds what such a run threw (%s) from a public workflow's readers too, and logs it",
    async (_, thrown, shown) => {
      const secret = 'connect ECONNREFUSED 10.0.0.7:5432 (password hunter2)';
      const Legacy = workflow({
        name: 'legacy',
        public: true,
        input: z.object({}),
        events: { go: z.object({}) },
        run: async (ctx) => {
          await ctx.waitForEvent('go');
          throw thrown(secret);
        },
      });
      const { logger, lines } = recordingLogger();
      const h = workflowHarness([Legacy.actor], { logger });
      const ref = await h.client.start(Legacy, 'l-2', {});
      await h.runAll();
      await h.rewriteState(ref.id, ({ thrown: _, ...state }) => state);
      await h.client.signal(ref, 'go', {});
      await h.runAll();
      const { status, error } = await h.client.workflowStatus(ref, { caller: ANONYMOUS });
      expect(status).toBe('failed');
      expect(error?.message).toBe(shown);
      expect(JSON.stringify(error)).not.toContain('hunter2');
      const logged = lines.find((l) => l.message === 'workflow run failed');
      expect(String(logged?.fields.error)).toContain(secret);
    },
  );

  it("shows a public workflow's readers the text of a Baton error its run threw, as any door does", async () => {
    const Labels = workflow({
      name: 'labels',
      public: true,
      input: z.object({}),
      run: async () => {
        throw new RetryableError('the label service is down');
      },
    });
    const h = workflowHarness([Labels.actor]);
    const ref = await h.client.start(Labels, 'l-3', {});
    await h.runAll({ until: h.clock.now() });
    const { paused } = await h.client.workflowStatus(ref, { caller: ANONYMOUS });
    expect(paused?.error.message).toContain('threw RETRYABLE: the label service is down.');
  });

  it("withholds what an unexpected error says from a public workflow's readers, and logs it", async () => {
    const secret = "ENOENT: no such file or directory, open '/srv/app/config/db.json'";
    const Report = workflow({
      name: 'report',
      public: true,
      input: z.object({}),
      run: async () => {
        throw new Error(secret);
      },
    });
    const { logger, lines } = recordingLogger();
    const h = workflowHarness([Report.actor], { logger });
    const ref = await h.client.start(Report, 'r-1', {});
    await h.runAll({ until: h.clock.now() });

    for (const caller of [ANONYMOUS, SYSTEM]) {
      const { status, paused } = await h.client.workflowStatus(ref, { caller });
      expect(status).toBe('paused');
      expect(paused?.error.message).toContain('threw an error, Error, whose text is withheld');
      expect(JSON.stringify(paused)).not.toContain('/srv/app');
    }
    const [line] = lines.filter((l) => l.message === 'workflow paused: its run threw');
    expect(line?.fields.threw).toBe(`Error: ${secret}`);
    expect(String(line?.fields.stack)).toContain(secret);
  });

  it('fails with a TerminalError, whose compensations run at once', async () => {
    reset();
    const Withdrawn = order('terminal');
    const h = workflowHarness([Withdrawn.actor]);
    const ref = await h.client.start(Withdrawn, 'o-3', {});
    await h.runAll();
    await expect(h.client.result(ref)).rejects.toMatchObject({
      code: ErrorCode.REJECTED,
      message: 'the order was withdrawn',
    });
    expect(ran).toEqual({ charge: 1, refund: 1, ship: 0 });
  });
});

describe('a run that throws after journaling more than its record holds', () => {
  it('moves its history out into pages as it pauses, rather than failing the turn', async () => {
    const Sink = actor({
      name: 'sink',
      state: z.object({ told: z.number() }),
      initial: () => ({ told: 0 }),
      handlers: { tell: { payload: z.object({}), handle: (ctx) => void ctx.state.told++ } },
    });
    const FanOut = workflow({
      name: 'fanout',
      input: z.object({}),
      run: async (ctx) => {
        for (let i = 0; i < 400; i++) ctx.send(Sink.ref('s'), 'tell', {});
        throw new TypeError('a bug after the sends');
      },
    });
    // About 90 bytes of journal a send: 36 KB, past the record's 20 KB here.
    const h = workflowHarness([Sink, FanOut.actor], { limits: { maxItemBytes: 20_000 } });
    const ref = await h.client.start(FanOut, 'f', {});
    await h.runAll({ until: h.clock.now() });

    expect(await h.backend.store.listDeadLetters(ref.id)).toEqual([]);
    const state = (await h.state(ref.id)) as WorkflowState;
    expect(state.status).toBe('paused');
    expect(state.sealed?.pages).toBeGreaterThan(0);
    expect(await h.state(Sink.ref('s').id)).toEqual({ told: 400 });
  });
});

describe('replayWorkflow over code that throws', () => {
  it('rejects with the RETRYABLE that would pause a running instance', async () => {
    reset();
    const h = workflowHarness([order('type-error').actor]);
    const ref = await h.client.start(order('type-error'), 'o-4', {});
    await h.runAll({ until: h.clock.now() });
    const history = (await h.state(ref.id)) as WorkflowState;
    await expect(replayWorkflow(order('type-error'), history)).rejects.toMatchObject({
      code: ErrorCode.RETRYABLE,
      details: { reason: 'RUN_THREW' },
    });
    // The fix replays it up to its next step, which a check does not run.
    await expect(replayWorkflow(order('none'), history)).resolves.toMatchObject({
      outcome: 'suspended',
    });
  });

  it('takes the history of a run an earlier Baton started as it ran: any error fails it', async () => {
    reset();
    const h = workflowHarness([order('type-error').actor]);
    const ref = await h.client.start(order('type-error'), 'o-5', {});
    await h.runAll({ until: h.clock.now() });
    const { thrown: _, ...history } = (await h.state(ref.id)) as WorkflowState;
    await expect(replayWorkflow(order('type-error'), history)).resolves.toEqual({
      outcome: 'failed',
      commands: 1,
    });
  });
});
