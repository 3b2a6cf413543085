/**
 * A workflow's input across a deploy that widens its schema with a defaulted field (deploys.md,
 * rule 3): a run started before gets the default, as a new one does and as its type says, and a
 * start of the same input is still the same start. A transform the start applied is not applied
 * again when the run replays.
 */
import { ErrorCode, isBatonError, type WorkflowState, workflow } from '@baton/core';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { workflowHarness } from './harness.ts';

const DAY = 24 * 60 * 60 * 1000;

function payment(release: 1 | 2) {
  const amount = { amount: z.number() };
  return workflow({
    name: 'payment',
    version: String(release),
    input:
      release === 1
        ? z.object(amount)
        : z.object({ ...amount, currency: z.string().default('usd') }),
    run: async (ctx, input) => {
      await ctx.sleep(DAY);
      return { ...input };
    },
  });
}
const V1 = payment(1);
const V2 = payment(2);

describe("a workflow's input across a deploy", () => {
  it('gives a run started before a field its schema gained, with its default, and takes a start of the same input as the same start', async () => {
    const h = workflowHarness([V1.actor]);
    const ref = await h.client.start(V1, 'p', { amount: 5 });
    await h.runAll({ until: h.clock.now() });

    h.deploy([V2.actor]);
    // The same start, at the door and in the instance's turn: nothing changes.
    const asked = h.client.ask(ref as never, 'start' as never, { input: { amount: 5 } } as never);
    await h.runAll({ until: h.clock.now() });
    expect(await asked).toMatchObject({ status: 'waiting' });
    const other = await h.client.start(V2, 'p', { amount: 6 }).catch((error: unknown) => error);
    expect(isBatonError(other) && other.code).toBe(ErrorCode.REJECTED);

    await h.runAll({ until: h.clock.now() + 2 * DAY });
    expect(await h.client.result(ref)).toEqual({ amount: 5, currency: 'usd' });
    // Kept as read: a replay reads the same input, a default drawn at random included.
    expect(((await h.state(ref.id)) as WorkflowState).input).toEqual({
      amount: 5,
      currency: 'usd',
    });

    // Rolled back: the code before reads the input kept without the field it does not know, so
    // the same start is still the same start there.
    h.deploy([V1.actor]);
    await h.client.start(V1, 'p', { amount: 5 });
    const refused = await h.client.start(V1, 'p', { amount: 6 }).catch((error: unknown) => error);
    expect(isBatonError(refused) && refused.code).toBe(ErrorCode.REJECTED);
  });

  it('does not apply again a transform the start applied, when the run replays cold', async () => {
    const tens = workflow({
      name: 'tens',
      input: z.object({ n: z.number().transform((n) => n * 10) }),
      run: async (ctx, input) => {
        await ctx.sleep(DAY);
        return input.n;
      },
    });
    const h = workflowHarness([tens.actor]);
    const ref = await h.client.start(tens, 't', { n: 1 });
    await h.runAll({ until: h.clock.now() });
    // New code of the same workflow: the run replays from its record.
    h.deploy([tens.actor]);
    await h.client.start(tens, 't', { n: 1 });
    await h.runAll({ until: h.clock.now() + 2 * DAY });
    expect(await h.client.result(ref)).toBe(10);
  });
});
