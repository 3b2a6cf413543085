import { query } from '@baton/core';
import * as z from 'zod';
import { Counter } from './counter.ts';

/** A counter's value, live: a page subscribed to it gets each new count as it commits. */
export const count = query({
  name: 'count',
  public: true, // clients may subscribe
  args: z.object({ key: z.string() }),
  handler: async (ctx, { key }) => (await ctx.get(Counter.ref(key))).count,
});
