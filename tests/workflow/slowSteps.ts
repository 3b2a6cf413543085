/**
 * A workflow of three steps of about 30 ms each, each pushed to `ran` as it ends: the shape the
 * tests of a turn's deadline share (one on the embedded backend, one behind the worker Lambda).
 */
import { workflow } from '@baton/core';
import * as z from 'zod';

/** Runs steps `one`, `two`, `three`, then returns `done`. */
export function slowSteps(ran: string[]) {
  return workflow({
    name: 'slow-steps',
    input: z.object({}),
    run: async (ctx) => {
      for (const name of ['one', 'two', 'three']) {
        await ctx.step(name, () => pause(30).then(() => void ran.push(name)));
      }
      return 'done';
    },
  });
}

/** Resolves after `ms`. */
export const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
