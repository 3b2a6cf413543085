/**
 * A workflow's declared events: the door refuses an event it does not take, or a payload its
 * schema refuses, before anything is enqueued; the wait resolves with the parsed payload.
 */
import { ErrorCode, type WorkflowState, workflow } from '@baton/core';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { workflowHarness } from './harness.ts';

const Approval = workflow({
  name: 'approval',
  input: z.object({}),
  events: { approved: z.object({ by: z.string(), amount: z.string().transform(Number) }) },
  run: async (ctx) => {
    const { by, amount } = await ctx.waitForEvent('approved');
    return { by, double: amount * 2 };
  },
});

describe("a workflow's declared events", () => {
  it('refuses an unknown event or a bad payload at the door, and the wait gets the parsed payload', async () => {
    const h = workflowHarness([Approval.actor]);
    const ref = await h.client.start(Approval, 'a', {});
    await h.runAll();

    const misspelt = h.client.signal(ref, 'aproved' as never, { by: 'ann', amount: '3' } as never);
    await expect(misspelt).rejects.toMatchObject({
      code: ErrorCode.INVALID_PAYLOAD,
      message:
        'workflow "approval" (instance "a") refused event "aproved": unknown event "aproved" (this workflow takes: approved). Nothing was sent: send one of the events the workflow\'s `events` declare',
    });
    const bad = h.client.signal(ref, 'approved', { by: 'ann', amount: 3 } as never);
    await expect(bad).rejects.toMatchObject({
      code: ErrorCode.INVALID_PAYLOAD,
      message: expect.stringMatching(
        /^workflow "approval" \(instance "a"\) refused event "approved": payload\.amount: .*string.*\. Nothing was sent/,
      ),
      details: {
        event: 'approved',
        issues: [expect.objectContaining({ path: 'payload.payload.amount' })],
      },
    });
    // A payload with many bad entries: the first are named, then how many more.
    const Tally = workflow({
      name: 'tally',
      input: z.object({}),
      events: { counts: z.object({ values: z.array(z.number()) }) },
      run: async (ctx) => ctx.waitForEvent('counts'),
    });
    const tally = workflowHarness([Tally.actor]);
    const many = tally.client.signal(Tally.ref('t'), 'counts', {
      values: new Array(25).fill('x'),
    } as never);
    await expect(many).rejects.toMatchObject({
      message: expect.stringMatching(/payload\.values\.19: [^;]+; and 5 more\. Nothing was sent/),
    });
    // Nothing was enqueued: the instance still waits, holding no event.
    expect(h.backend.queue.counts().total).toBe(0);
    await h.runAll();
    const state = (await h.state(ref.id)) as WorkflowState;
    expect(state.status).toBe('waiting');
    expect(state.signals).toEqual([]);

    await h.client.signal(ref, 'approved', { by: 'ann', amount: '3' });
    await h.runAll();
    expect(await h.client.result(ref)).toEqual({ by: 'ann', double: 6 });
  });

  it('refuses a definition whose events are not schemas, naming the event', () => {
    const define = () =>
      workflow({
        name: 'loose',
        input: z.object({}),
        events: { go: { tracking: 'string' } as never },
        run: async () => undefined,
      });
    expect(define).toThrow(
      expect.objectContaining({
        code: ErrorCode.INVALID_ARGUMENT,
        message: expect.stringContaining("events.go must be a zod schema (the payload's)"),
      }),
    );
  });
});
