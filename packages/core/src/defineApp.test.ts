import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { actor } from './actor.ts';
import { defineApp } from './defineApp.ts';
import { query } from './query.ts';
import { workflow } from './workflow/workflow.ts';

const Counter = actor({
  name: 'counter',
  state: z.object({ n: z.number() }),
  initial: () => ({ n: 0 }),
  handlers: { add: { payload: z.object({}), handle: (ctx) => ++ctx.state.n } },
});
const count = query({
  name: 'count',
  args: z.object({ key: z.string() }),
  handler: async (ctx, { key }) => (await ctx.get(Counter.ref(key))).n,
});

describe('defineApp', () => {
  it('returns the app with its queries defaulted to none', () => {
    const app = defineApp({ actors: [Counter] });
    expect(app.actors).toEqual([Counter]);
    expect(app.queries).toEqual([]);
    expect(app.auth).toBeUndefined();
    const auth = () => ({ user: 'alice' });
    expect(defineApp({ actors: [Counter], queries: [count], auth })).toMatchObject({
      queries: [count],
      auth,
    });
  });

  it('collects every problem into one INVALID_ARGUMENT error', () => {
    expect(() =>
      defineApp({ actors: [Counter, Counter], queries: [count, count], auth: 'yes' as never }),
    ).toThrow(
      expect.objectContaining({
        code: 'INVALID_ARGUMENT',
        message:
          'invalid app: auth must be a function ({ token, headers }) => identity; two actor types ' +
          'are named "counter"; two queries are named "count"',
      }),
    );
    expect(() => defineApp({ actors: [] })).toThrow(/actors must be a non-empty array/);
  });

  it('registers each workflow as an actor type of its own, with the workflow queries', () => {
    const Flow = workflow({
      name: 'flow',
      input: { safeParse: (data: unknown) => ({ success: true, data }) } as never,
      run: async () => 1,
    });
    const app = defineApp({ actors: [Counter], workflows: [Flow] });
    expect(app.actors.map((a) => a.name)).toEqual(['counter', 'wf-flow']);
    expect(app.workflows).toEqual([Flow]);
    expect(app.queries.map((q) => q.name)).toEqual(['workflowStatus', 'workflowHistory']);
    expect(defineApp({ workflows: [Flow] }).actors).toEqual([Flow.actor]);
  });
});
