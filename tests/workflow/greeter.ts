/**
 * A public workflow for the door tests: each user runs their own instances (id `<user>:<rest>`;
 * no user id holds a `:`), which wait for the event `go` and greet their starter.
 */
import { type Caller, callerOf, defineApp, workflow } from '@baton/core';
import { httpIngress } from '@baton/server/http';
import * as z from 'zod';
import { workflowHarness } from './harness.ts';

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

/**
 * Greeter's app behind the HTTP ingress, which signs the caller in from an `x-user` header, as
 * an app's auth hook would from its token.
 */
export function greeterIngress() {
  const { actors } = defineApp({ workflows: [Greeter] });
  const h = workflowHarness(actors);
  const ingress = httpIngress({
    actors,
    store: h.backend.store,
    queue: h.backend.queue,
    clock: h.clock,
    caller: ({ headers }) =>
      callerOf(headers?.['x-user'] ? { userId: headers['x-user'] } : undefined),
  });
  return { h, ingress };
}
