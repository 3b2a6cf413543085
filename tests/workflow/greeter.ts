/**
 * A public workflow for the door tests: each user runs their own instances (id `<user>:<rest>`;
 * no user id holds a `:`), which wait for the event `go` and greet their starter.
 */
import { type Caller, workflow } from '@baton/core';
import * as z from 'zod';

/** The signed-in user's id, for a user caller. */
export const userOf = (caller: Caller) =>
  caller.kind === 'user' ? (caller.identity as { userId: string }).userId : undefined;

/**
 * The user an instance id `<user>:<rest>` belongs to: what comes before its first `:`, read
 * exactly. With `id.startsWith(\`${user}-\`)`, user `alice` would reach the instances of user
 * `alice-x`.
 */
export const ownerOf = (id: string) => id.split(':')[0];

export const Greeter = workflow({
  name: 'greeter',
  input: z.object({ greeting: z.string() }),
  public: true,
  authorize: (caller, request) => {
    const user = userOf(caller);
    return user !== undefined && ownerOf(request.id) === user;
  },
  run: async (ctx, { greeting }) => {
    await ctx.waitForEvent('go');
    return `${greeting}, ${userOf(ctx.caller)}`;
  },
});
