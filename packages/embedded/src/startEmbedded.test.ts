import { actor, defineApp, query, silentLogger, workflow } from '@baton/core';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { type EmbeddedRuntime, startEmbedded } from './startEmbedded.ts';

const Counter = actor({
  name: 'counter',
  state: z.object({ n: z.number() }),
  initial: () => ({ n: 0 }),
  handlers: { add: { payload: z.object({}), handle: (ctx) => ++ctx.state.n } },
});

const Twice = workflow({
  name: 'twice',
  input: z.object({}),
  run: async (ctx) => {
    await ctx.call(Counter.ref('c'), 'add', {});
    return ctx.call(Counter.ref('c'), 'add', {});
  },
});

let runtime: EmbeddedRuntime | undefined;
afterEach(() => runtime?.stop());

describe('startEmbedded', () => {
  it('takes workflows as defineApp does', async () => {
    runtime = startEmbedded({ actors: [Counter], workflows: [Twice], logger: silentLogger });
    const system = runtime.client.asSystem();
    const ref = await system.start(Twice, 't', {});
    expect(await system.result(ref)).toBe(2);
  });

  it('runs a defineApp app as it is, whose actors list its workflows already', async () => {
    const count = query({
      name: 'count',
      args: z.object({}),
      handler: async (ctx) => (await ctx.get(Counter.ref('c'))).n,
    });
    const app = defineApp({
      actors: [Counter],
      workflows: [Twice],
      queries: [count],
      auth: () => ({}),
    });
    runtime = startEmbedded({ ...app, logger: silentLogger });
    const system = runtime.client.asSystem();
    expect(await system.result(await system.start(Twice, 't', {}))).toBe(2);
  });
});
