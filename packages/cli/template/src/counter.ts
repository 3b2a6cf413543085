import { actor } from '@baton/core';
import * as z from 'zod';

/** A counter per key: `add` counts up now, `addLater` after a while through a durable timer. */
export const Counter = actor({
  name: 'counter',
  state: z.object({ count: z.number() }),
  initial: () => ({ count: 0 }),
  handlers: {
    add: {
      public: true, // clients may send it
      payload: z.object({ by: z.number().int().positive() }),
      handle: (ctx, { by }) => {
        ctx.state.count += by;
        ctx.log.info('added', { by, count: ctx.state.count });
        return ctx.state.count; // what an asker receives
      },
    },
    addLater: {
      public: true,
      payload: z.object({ by: z.number().int().positive(), inMs: z.number().int().min(0) }),
      handle: (ctx, { by, inMs }) => {
        // Kept with the actor from this turn's commit, and delivered once, even after a crash.
        ctx.schedule(inMs, 'add', { by });
      },
    },
  },
});
