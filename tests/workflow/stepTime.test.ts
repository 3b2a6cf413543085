/**
 * A step's time: an attempt past its `timeoutMs` fails with TIMED_OUT, its signal aborted, and is
 * retried; and a turn whose steps ran `STEP_TIME_PER_TURN_MS` starts no more, committing what
 * they did before the worker's timeout could lose it.
 */
import { ErrorCode, type WorkflowState, workflow } from '@baton/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import { workflowHarness } from './harness.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

describe("a workflow step's time", () => {
  it('fails an attempt past timeoutMs with TIMED_OUT, aborting its signal, and retries it with the same key', async () => {
    const seen: { attempt: number; key: string; aborted?: unknown }[] = [];
    const Charge = workflow({
      name: 'charge-timeout',
      input: z.object({}),
      run: (ctx) =>
        ctx.step(
          'charge',
          ({ attempt, key, signal }) => {
            const attemptSeen: (typeof seen)[number] = { attempt, key };
            seen.push(attemptSeen);
            if (attempt > 1) return 'charged';
            // The first attempt hangs until its signal is aborted, as a fetch given it would.
            return new Promise((_, reject) =>
              signal.addEventListener('abort', () => {
                attemptSeen.aborted = signal.reason;
                reject(signal.reason);
              }),
            );
          },
          { timeoutMs: 50, retry: { maxAttempts: 2, initialDelayMs: 1_000 } },
        ),
    });
    const h = workflowHarness([Charge.actor]);
    const ref = await h.client.start(Charge, 't', {});
    await h.runAll();

    expect(await h.client.result(ref)).toBe('charged');
    expect(seen.map((s) => s.attempt)).toEqual([1, 2]);
    expect(seen[1]?.key).toBe(seen[0]?.key);
    expect(seen[0]?.aborted).toMatchObject({
      code: ErrorCode.TIMED_OUT,
      message: expect.stringContaining('step "charge" ran longer than its timeoutMs of 50 ms'),
    });
    expect(seen[1]).not.toHaveProperty('aborted');
  });

  it('fails the step with STEP_FAILED naming the timeout once no attempt is left, and refuses a timeoutMs that is not one', async () => {
    const Hang = workflow({
      name: 'hang',
      input: z.object({ timeoutMs: z.number() }),
      run: (ctx, { timeoutMs }) =>
        ctx.step('hang', () => new Promise(() => {}), { timeoutMs, retry: { maxAttempts: 1 } }),
    });
    const h = workflowHarness([Hang.actor]);
    const hung = await h.client.start(Hang, 'h', { timeoutMs: 20 });
    const wrong = await h.client.start(Hang, 'w', { timeoutMs: -1 });
    await h.runAll();

    await expect(h.client.result(hung)).rejects.toMatchObject({
      code: ErrorCode.STEP_FAILED,
      details: { cause: { code: ErrorCode.TIMED_OUT } },
    });
    // A wrong option is the code's bug: the run throws, and the instance waits for fixed code.
    expect(await h.client.workflowStatus(wrong)).toMatchObject({
      status: 'paused',
      paused: {
        error: {
          message: expect.stringContaining(
            'ctx.step("hang"): timeoutMs must be a number of ms above 0, got -1',
          ),
        },
      },
    });
  });

  it('starts no more steps in a turn once its steps ran 10 s: the turn commits, the run goes on in the next', async () => {
    // Each step takes 6 s of the (mocked) wall clock: the turn's second step ends past 10 s.
    let now = 1_000;
    vi.spyOn(performance, 'now').mockImplementation(() => now);
    const Five = workflow({
      name: 'five',
      input: z.object({}),
      run: async (ctx) => {
        for (let i = 0; i < 5; i++) {
          await ctx.step(`s${i}`, () => {
            now += 6_000;
            return i;
          });
        }
        return 'done';
      },
    });
    const h = workflowHarness([Five.actor]);
    const done: number[] = [];
    h.backend.feed.subscribe((record) => {
      const state = record.state as Partial<WorkflowState> | null;
      const steps = state?.journal?.filter((e) => e.kind === 'step' && e.state === 'done');
      if (steps) done.push(steps.length);
    });
    const ref = await h.client.start(Five, 'f', {});
    await h.runAll();

    expect(await h.client.result(ref)).toBe('done');
    // Two steps a turn (the budget is checked before each step but the first), not all five.
    const grew = done.filter((n, i) => i === 0 || n !== done[i - 1]);
    expect(grew.filter((n) => n > 0)).toEqual([2, 4, 5]);
  });
});
