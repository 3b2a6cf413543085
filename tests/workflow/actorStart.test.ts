/**
 * `ctx.start` from an actor's handler: the workflow's start leaves with the actor's turn,
 * exactly once — a handler that throws after it starts nothing, and a second start of the
 * same id leaves the running instance as it is.
 */
import { actor, BatonError, ErrorCode, workflow } from '@baton/core';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { answered } from '../engine/helpers.ts';
import { workflowHarness } from './harness.ts';

const Greet = workflow({
  name: 'greet',
  input: z.object({ name: z.string() }),
  run: async (ctx, { name }) => {
    const n = await ctx.step('count', () => 1);
    return `hello ${name} (${n})`;
  },
});

const Shop = actor({
  name: 'shop',
  state: z.object({ started: z.array(z.string()) }),
  initial: () => ({ started: [] as string[] }),
  handlers: {
    open: {
      payload: z.object({ id: z.string(), name: z.string(), fail: z.boolean().optional() }),
      handle: (ctx, { id, name, fail }) => {
        const ref = ctx.start(Greet, id, { name });
        ctx.state.started.push(ref.id);
        if (fail) throw new BatonError(ErrorCode.REJECTED, 'the turn fails after ctx.start');
      },
    },
  },
});

describe('ctx.start', () => {
  it('starts a workflow with the actor turn, once, and not when the turn fails', async () => {
    const h = workflowHarness([Shop, Greet.actor]);
    await h.client.send(Shop.ref('s'), 'open', { id: 'g1', name: 'ada' });
    await h.client.send(Shop.ref('s'), 'open', { id: 'g1', name: 'bob' });
    await h.runAll();
    expect(await h.client.result(Greet.ref('g1'))).toBe('hello ada (1)');
    expect(await h.client.workflowStatus(Greet.ref('g1'))).toMatchObject({ status: 'completed' });
    expect(await h.state(Shop.ref('s').id)).toEqual({
      started: [Greet.ref('g1').id, Greet.ref('g1').id],
    });

    await expect(
      answered(h, h.client.ask(Shop.ref('s'), 'open', { id: 'g2', name: 'cy', fail: true })),
    ).rejects.toThrow('the turn fails after ctx.start');
    await h.runAll();
    expect(await h.client.workflowStatus(Greet.ref('g2'))).toMatchObject({ status: 'new' });
  });

  it('refuses what is not a workflow', async () => {
    const Bad = actor({
      name: 'bad',
      state: z.object({}),
      initial: () => ({}),
      handlers: {
        go: {
          payload: z.object({}),
          handle: (ctx) => {
            ctx.start(Shop as never, 'x', {} as never);
          },
        },
      },
    });
    const h = workflowHarness([Bad]);
    await expect(answered(h, h.client.ask(Bad.ref('b'), 'go', {}))).rejects.toMatchObject({
      code: ErrorCode.DEAD_LETTERED,
      message: expect.stringContaining('ctx.start(workflow, id, input) takes a workflow()'),
      details: { cause: { code: ErrorCode.INVALID_ARGUMENT } },
    });
  });
});
