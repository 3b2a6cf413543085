/**
 * The hotel the workflow simulations book against: it counts every hold and release it applied,
 * by what was held, so that a run can check each call and each compensation applied once.
 */
import { actor, type WorkflowContext } from '@baton/core';
import * as z from 'zod';

/** Holds and releases, by what was held: each applied once, or the count shows it. */
export const Hotel = actor({
  name: 'hotel',
  state: z.object({
    held: z.record(z.string(), z.number()),
    released: z.record(z.string(), z.number()),
  }),
  initial: () => ({ held: {} as Record<string, number>, released: {} as Record<string, number> }),
  handlers: {
    hold: {
      payload: z.object({ what: z.string() }),
      handle: (ctx, { what }) => {
        ctx.state.held[what] = (ctx.state.held[what] ?? 0) + 1;
      },
    },
    release: {
      payload: z.object({ what: z.string() }),
      handle: (ctx, { what }) => {
        ctx.state.released[what] = (ctx.state.released[what] ?? 0) + 1;
      },
    },
  },
});

export const hotel = Hotel.ref('main');

/** A call holding `what`, released when the saga unwinds or the call loses a race. */
export const holding = (ctx: WorkflowContext, what: string) =>
  ctx.call(
    hotel,
    'hold',
    { what },
    { compensate: (_, saga) => saga.call(hotel, 'release', { what }) },
  );
