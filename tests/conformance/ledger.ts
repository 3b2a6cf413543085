/** The actor the conformance suite drives: a ledger of entries that can fan out to another. */
import { actor, RetryableError, TerminalError } from '@baton/core';
import { z } from 'zod';

/** Handler runs, to tell a retried run from an applied one. */
export const ledgerRuns = { flaky: 0 };
const flakyAttempts = new Map<string, number>();

export const Ledger = actor({
  name: 'ledger',
  state: z.object({ entries: z.array(z.string()), total: z.number() }),
  initial: () => ({ entries: [] as string[], total: 0 }),
  handlers: {
    add: {
      payload: z.object({ entry: z.string(), amount: z.number(), blob: z.string().optional() }),
      handle: (ctx, { entry, amount }) => {
        ctx.state.entries.push(entry);
        ctx.state.total += amount;
      },
    },
    fanOut: {
      payload: z.object({ to: z.string(), count: z.number().int() }),
      handle: (ctx, { to, count }) => {
        for (let i = 0; i < count; i++)
          ctx.send(Ledger.ref(to), 'add', { entry: `n${i}`, amount: 1 });
        ctx.state.total += 0;
      },
    },
    bulk: {
      payload: z.object({
        to: z.string(),
        count: z.number().int(),
        bytes: z.number().int(),
        tag: z.string(),
      }),
      handle: (ctx, { to, count, bytes, tag }) => {
        for (let i = 0; i < count; i++) {
          ctx.send(Ledger.ref(to), 'add', {
            entry: `${tag}.${i}`,
            amount: 0,
            blob: 'b'.repeat(bytes),
          });
        }
      },
    },
    refuse: {
      payload: z.object({ entry: z.string() }),
      handle: (ctx, { entry }) => {
        ctx.state.entries.push(entry); // discarded with the rejection
        throw new TerminalError(`refused ${entry}`);
      },
    },
    flaky: {
      payload: z.object({ entry: z.string(), failures: z.number().int() }),
      handle: (ctx, { entry, failures }) => {
        ledgerRuns.flaky++;
        const attempt = (flakyAttempts.get(ctx.message.id) ?? 0) + 1;
        flakyAttempts.set(ctx.message.id, attempt);
        if (attempt <= failures)
          throw new RetryableError(`attempt ${attempt} fails`, { retryAfterMs: 0 });
        ctx.state.entries.push(entry);
      },
    },
    /** Schedules an `add` of `entry` to itself after `delay` ms, and may cancel another timer. */
    remind: {
      payload: z.object({
        entry: z.string().optional(),
        delay: z.number(),
        id: z.string().optional(),
        cancel: z.string().optional(),
      }),
      handle: (ctx, { entry, delay, id, cancel }) => {
        if (cancel) ctx.cancel(cancel);
        if (entry) ctx.schedule(delay, 'add', { entry, amount: 1 }, id ? { id } : {});
      },
    },
    /** Ends the ledger: its timers cancelled, its record set to expire. */
    close: {
      payload: z.object({}),
      handle: (ctx) => {
        ctx.halt();
      },
    },
    pad: {
      payload: z.object({ bytes: z.number().int() }),
      handle: (ctx, { bytes }) => {
        ctx.state.entries.push('p'.repeat(bytes));
      },
    },
  },
});
