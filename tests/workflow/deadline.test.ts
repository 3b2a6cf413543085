/**
 * A workflow's turn starts no step that could end past its host's deadline (a Lambda
 * invocation's timeout, which `workerHandler` reads from the Lambda context), less the time its
 * commit takes: the steps done commit, and the run goes on in the next turn. Without it, a turn
 * whose steps outlast a short timeout would never commit, run again and again until the message
 * is dead-lettered.
 */
import { workflow } from '@baton/core';
import { PushWorker } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { workflowHarness } from './harness.ts';
import { pause, slowSteps } from './slowSteps.ts';

/** The steps the instance's first turn runs, its batch given `deadline` (ms from now). */
async function firstTurn(deadlineIn: number | undefined): Promise<string[]> {
  const ran: string[] = [];
  const Slow = slowSteps(ran);
  const h = workflowHarness([Slow.actor]);
  await h.client.start(Slow, 's-1', {});
  const received = await h.backend.queue.receive({ max: 10, visibilityTimeoutMs: 30_000 });
  const worker = new PushWorker(h.engine);
  const deadline = deadlineIn === undefined ? undefined : Date.now() + deadlineIn;
  const { done } = await worker.process(received, deadline);
  expect(done).toHaveLength(received.length);
  return ran;
}

describe("a workflow's steps and its host's deadline", () => {
  it('runs one step in a turn whose deadline leaves no room for another as long and the commit', async () => {
    // 1,010 ms: the first step (about 30 ms) runs, a second would end within the second kept for the commit.
    expect(await firstTurn(1_010)).toEqual(['one']);
  });

  it('runs the steps on when the deadline leaves room, and without one', async () => {
    expect(await firstTurn(60_000)).toEqual(['one', 'two', 'three']);
    expect(await firstTurn(undefined)).toEqual(['one', 'two', 'three']);
  });

  it("counts every message's steps against the turn's deadline: a signal in the batch runs none past it", async () => {
    const ran: string[] = [];
    const Signalled = workflow({
      name: 'signalled-steps',
      input: z.object({}),
      run: async (ctx) => {
        const go = ctx.waitForEvent('go');
        for (const name of ['one', 'two', 'three']) {
          await ctx.step(name, () => pause(30).then(() => void ran.push(name)));
        }
        await go;
      },
    });
    const h = workflowHarness([Signalled.actor]);
    const ref = await h.client.start(Signalled, 'g-1', {});
    await h.client.signal(ref, 'go');
    // The start and the signal: one batch, one turn of the instance.
    const received = await h.backend.queue.receive({ max: 10, visibilityTimeoutMs: 30_000 });
    expect(received).toHaveLength(2);
    await new PushWorker(h.engine).process(received, Date.now() + 1_010);
    expect(ran).toEqual(['one']);
  });

  it('runs the first step of a turn even past the deadline: a turn that ran none would never get on', async () => {
    expect(await firstTurn(0)).toEqual(['one']);
  });
});
