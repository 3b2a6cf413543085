/**
 * A command a workflow's ctx refuses (an actor the app does not register, a payload its target
 * refuses) is the code's fault, as it is in an actor's handler: a run that fails with it leaves
 * the instance as its last committed turn left it, and its message kept as a dead letter, to
 * redrive once the fix is deployed; a run that catches it decides, with the refusal as the
 * command's result.
 */
import { actor, ErrorCode, TerminalError, workflow } from '@baton/core';
import { redriveDeadLetter } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { workflowHarness } from './harness.ts';

const Ghost = actor({
  name: 'ghost',
  state: z.object({ boos: z.number() }),
  initial: () => ({ boos: 0 }),
  handlers: {
    boo: {
      payload: z.object({ loud: z.boolean() }),
      handle: (ctx) => {
        ctx.state.boos++;
        return ctx.state.boos;
      },
    },
  },
});

/** The keys the greeting step ran with. */
const greeted: string[] = [];
const Haunt = workflow({
  name: 'haunt',
  input: z.object({ loud: z.boolean() }),
  run: async (ctx, { loud }) => {
    await ctx.step('greet', ({ key }) => void greeted.push(key));
    return ctx.call(Ghost.ref('g'), 'boo', { loud });
  },
});

/** Catches the refusal and fails in its own words. */
const Careful = workflow({
  name: 'careful',
  input: z.object({}),
  run: async (ctx) => {
    try {
      return await ctx.call(Ghost.ref('g'), 'boo', { loud: 'yes' } as never);
    } catch (error) {
      throw new TerminalError(`no ghost: ${(error as { code: string }).code}`);
    }
  },
});

describe("a command a workflow's ctx refuses", () => {
  it('keeps the message as a dead letter, the instance as it was; redriven after the fix, the run goes on once', async () => {
    greeted.length = 0;
    const h = workflowHarness([Haunt.actor]);
    const ref = await h.client.start(Haunt, 'w1', { loud: true });
    await h.runAll();
    const letters = await h.backend.store.listDeadLetters();
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({
      actorId: ref.id,
      error: {
        code: ErrorCode.DEAD_LETTERED,
        message: expect.stringMatching(
          /unknown actor type "ghost": register it with the app.*kept as a dead letter: fix the handler, deploy, then redrive it/,
        ),
        details: { cause: { code: ErrorCode.UNKNOWN_ACTOR } },
      },
    });
    // Not failed: the run is where its last committed turn left it.
    expect((await h.client.workflowStatus(ref)).status).not.toBe('failed');
    h.deploy([Haunt.actor, Ghost]);
    await redriveDeadLetter(h.backend.store, h.backend.queue, ref.id, letters[0]!.messageId);
    await h.runAll();
    expect(await h.client.workflowStatus(ref)).toMatchObject({ status: 'completed', output: 1 });
    expect(await h.state(Ghost.ref('g').id)).toEqual({ boos: 1 });
    // The refused turn was not committed, as after a crash: the step it ran runs again, with the
    // same idempotency key.
    expect(greeted).toHaveLength(2);
    expect(greeted[1]).toBe(greeted[0]);
    expect(await h.backend.store.listDeadLetters()).toEqual([]);
  });

  it('is the result of the command when the run catches it', async () => {
    const h = workflowHarness([Careful.actor, Ghost]);
    const ref = await h.client.start(Careful, 'c1', {});
    await h.runAll();
    expect(await h.client.workflowStatus(ref)).toMatchObject({
      status: 'failed',
      error: { code: ErrorCode.REJECTED, message: 'no ghost: INVALID_PAYLOAD' },
    });
    expect(await h.backend.store.listDeadLetters()).toEqual([]);
  });
});
