import { actor, silentLogger, workflow } from '@baton/core';
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
});
