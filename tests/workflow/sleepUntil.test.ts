/**
 * `ctx.sleep(date)`: a durable timer until a wall-clock time, months ahead, which fires there
 * once on virtual time; a date already past wakes the run at once; a date that is not one pauses
 * the run (a bug) with a message that says what `sleep` takes.
 */
import { ErrorCode, workflow } from '@baton/core';
import { cancelTimer } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { workflowHarness } from './harness.ts';

const DAY = 24 * 60 * 60 * 1000;

const Renewal = workflow({
  name: 'renewal',
  input: z.object({ at: z.number() }),
  run: async (ctx, { at }) => {
    await ctx.sleep(new Date(at));
    await ctx.step('renew', () => null);
    return ctx.now();
  },
});

describe('sleeping until a date', () => {
  it('waits until that time, months ahead, and wakes there once', async () => {
    const h = workflowHarness([Renewal.actor]);
    const at = h.clock.now() + 90 * DAY;
    const ref = await h.client.start(Renewal, 'r', { at });
    await h.runAll({ until: at - 1 });
    expect(await h.client.workflowStatus(ref)).toMatchObject({ status: 'waiting' });

    await h.runAll();
    expect(await h.client.result(ref)).toBe(at);
    const journal = ((await h.state(ref.id)) as { journal: { name: string; state: string }[] })
      .journal;
    expect(journal.filter((e) => e.name === 'sleep')).toMatchObject([{ state: 'done' }]);
  });

  it('is not cut short by an operator: the sleep’s timer is the run’s own, and cancelling it is refused', async () => {
    const h = workflowHarness([Renewal.actor]);
    const at = h.clock.now() + 90 * DAY;
    const ref = await h.client.start(Renewal, 'r', { at });
    await h.runAll({ until: at - 1 });
    const timers = await h.backend.store.listTimers(ref.id);
    const sleep = timers.find((timer) => timer.at === at);
    await expect(
      cancelTimer(h.backend.store, ref.id, sleep!.id, { by: 'ops' }),
    ).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      message: expect.stringMatching(
        /is workflow renewal's own .* It was not cancelled\. .*baton workflows cancel renewal r\b/,
      ),
    });
    await h.runAll();
    expect(await h.client.result(ref)).toBe(at);
  });

  it('wakes at once for a date already past', async () => {
    const h = workflowHarness([Renewal.actor]);
    const now = h.clock.now();
    const ref = await h.client.start(Renewal, 'late', { at: now - DAY });
    await h.runAll({ until: now });
    expect(await h.client.result(ref)).toBe(now);
  });

  it('pauses the run on a date that is not one, saying what sleep takes', async () => {
    const Typo = workflow({
      name: 'typo',
      input: z.object({}),
      run: async (ctx) => ctx.sleep(new Date('the first of May')),
    });
    const h = workflowHarness([Typo.actor]);
    const ref = await h.client.start(Typo, 't', {});
    await h.runAll({ until: h.clock.now() });
    // A misuse of ctx is a bug: the instance waits for fixed code rather than failing.
    expect(await h.client.workflowStatus(ref)).toMatchObject({
      status: 'paused',
      paused: {
        error: {
          code: ErrorCode.RETRYABLE,
          message: expect.stringMatching(
            /threw INVALID_ARGUMENT: ctx\.sleep\(duration\) takes ms ≥ 0 or a valid Date/,
          ),
        },
      },
    });
  });

  it('pauses the run on a sleep past the latest time a Date holds, saying to wait for an event instead', async () => {
    const Forever = workflow({
      name: 'forever',
      input: z.object({}),
      run: async (ctx) => ctx.sleep(Number.MAX_SAFE_INTEGER),
    });
    const h = workflowHarness([Forever.actor]);
    const ref = await h.client.start(Forever, 'f', {});
    await h.runAll({ until: h.clock.now() });
    const { paused } = await h.client.workflowStatus(ref);
    expect(paused?.error.message).toContain(
      `threw INVALID_ARGUMENT: ctx.sleep(duration) takes ms ≥ 0 or a valid Date, due by +275760-09-13T00:00:00.000Z at the latest, got ${Number.MAX_SAFE_INTEGER}: to wait for good, wait for an event instead`,
    );
  });
});
