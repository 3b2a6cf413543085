/**
 * A run that awaits a promise no command of its history can settle (a `fetch`, a timer of its
 * own) would wait for ever without a word: it pauses instead, NON_DETERMINISTIC, saying what to
 * await; once the code awaits only ctx's promises, `resume` carries it on.
 */
import { ErrorCode, workflow } from '@baton/core';
import { WORKFLOW_LEFT_PAUSED_LOG } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { recordingLogger } from '../engine/helpers.ts';
import { workflowHarness } from './harness.ts';

/** Work outside Baton, awaited outside a step (as a `fetch` would be): counted. */
let outsideCalls = 0;
const outside = () => {
  outsideCalls++;
  return new Promise((resolve) => setTimeout(resolve, 20));
};

function waiter(version: string, awaitOutside: boolean) {
  return workflow({
    name: 'waiter',
    version,
    input: z.object({}),
    run: async (ctx) => {
      const first = await ctx.step('first', () => 1);
      if (awaitOutside) await outside();
      await ctx.sleep(1_000);
      return first + 1;
    },
  });
}

describe('a run awaiting something that is not a ctx command', () => {
  it('pauses, saying what to await, and resumes once the code awaits ctx alone', async () => {
    const wrong = waiter('1', true);
    const { logger, lines } = recordingLogger();
    const h = workflowHarness([wrong.actor], { logger });
    const ref = await h.client.start(wrong, 'w-1', {});
    await h.runAll();
    // Paused for good: no recheck runs it, and its work outside, again.
    expect(outsideCalls).toBe(1);
    const paused = await h.client.workflowStatus(ref);
    expect(paused).toMatchObject({
      status: 'paused',
      paused: {
        error: {
          code: ErrorCode.NON_DETERMINISTIC,
          message: expect.stringContaining('awaits something that is not a ctx command'),
        },
      },
    });
    // No replay is due: said at once, for PausedWorkflowsAlarm.
    expect(lines.filter((line) => line.message === WORKFLOW_LEFT_PAUSED_LOG)).toMatchObject([
      { level: 'error', fields: { workflow: 'waiter', version: '1' } },
    ]);

    const fixed = waiter('2', false);
    h.deploy([fixed.actor]);
    await h.client.asSystem().send(ref as never, 'resume' as never, {} as never);
    await h.runAll();
    expect(await h.client.result(ref)).toBe(2);
  });
});
