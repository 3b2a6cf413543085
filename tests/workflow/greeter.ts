/**
 * A public workflow for the door tests: each user runs their own instances (id `<user>-…`),
 * which wait for the event `go` and greet their starter.
 */
import { type Caller, workflow } from '@baton/core';
import * as z from 'zod';

/** The signed-in user's id, for a user caller. */
export const userOf = (caller: Caller) =>
  caller.kind === 'user' ? (caller.identity as { userId: string }).userId : undefined;

export const Greeter = workflow({
  name: 'greeter',
  input: z.object({ greeting: z.string() }),
  public: true,
  authorize: (caller, request) => {
    const user = userOf(caller);
    return user !== undefined && request.id.startsWith(`${user}-`);
  },
  run: async (ctx, { greeting }) => {
    await ctx.waitForEvent('go');
    return `${greeting}, ${userOf(ctx.caller)}`;
  },
});
