/**
 * A child that books (its compensation unbooks), then waits for `go`, and parents that start
 * it: the shape the tests of a parent's end reaching its children share. Each run of `book`
 * and `unbook` is pushed to `log`.
 */
import { workflow } from '@baton/core';
import * as z from 'zod';

/** The booking child, named `name`. */
export function bookingChild(log: string[], name = 'child') {
  return workflow({
    name,
    input: z.object({}),
    run: async (ctx) => {
      await ctx.step('book', () => void log.push('book'), {
        compensate: () => void log.push('unbook'),
      });
      await ctx.waitForEvent('go');
      return 'done';
    },
  });
}

/** A parent that runs the booking child `c` and ends with it. */
export function family(log: string[]) {
  const Child = bookingChild(log);
  const Parent = workflow({
    name: 'parent',
    input: z.object({}),
    run: async (ctx) => ctx.child(Child, 'c', {}),
  });
  return { Child, Parent };
}
