/** The actor the conformance suite drives: a ledger of entries that can fan out to another. */
import { type AskReply, actor, effect, RetryableError, TerminalError } from '@baton/core';
import * as z from 'zod';

/** Handler runs, to tell a retried run from an applied one: `close`'s by message id. */
export const ledgerRuns = { flaky: 0, close: new Map<string, number>() };
const flakyAttempts = new Map<string, number>();

/** The runs of the `noted` effect: entry and idempotency key, in order. */
export const notes: Array<{ entry: string; key: string }> = [];

/** An effect outside Baton: fails its first run of an entry starting with `flaky`. */
export const Noted = effect({
  name: 'noted',
  payload: z.object({ entry: z.string() }),
  run: async ({ entry }, { idempotencyKey, attempt }) => {
    notes.push({ entry, key: idempotencyKey });
    if (entry.startsWith('flaky') && attempt === 1) throw new Error('first run fails');
  },
});

export const Ledger = actor({
  name: 'ledger',
  state: z.object({ entries: z.array(z.string()), total: z.number() }),
  initial: () => ({ entries: [] as string[], total: 0 }),
  handlers: {
    add: {
      public: true,
      payload: z.object({ entry: z.string(), amount: z.number(), blob: z.string().optional() }),
      handle: (ctx, { entry, amount }) => {
        ctx.state.entries.push(entry);
        ctx.state.total += amount;
      },
    },
    fanOut: {
      public: true,
      payload: z.object({ to: z.string(), count: z.number().int() }),
      handle: (ctx, { to, count }) => {
        for (let i = 0; i < count; i++)
          ctx.send(Ledger.ref(to), 'add', { entry: `n${i}`, amount: 1 });
        ctx.state.total += 0;
      },
    },
    bulk: {
      public: true,
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
      public: true,
      payload: z.object({ entry: z.string() }),
      handle: (ctx, { entry }) => {
        ctx.state.entries.push(entry); // discarded with the rejection
        throw new TerminalError(`refused ${entry}`);
      },
    },
    flaky: {
      public: true,
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
    /**
     * Schedules an `add` of `entry` to itself after `delay` ms (a `flaky` one that fails its
     * first `failures` runs, if given), or a `close` (`closes`), and may cancel another timer.
     */
    remind: {
      public: true,
      payload: z.object({
        entry: z.string().optional(),
        delay: z.number(),
        id: z.string().optional(),
        cancel: z.string().optional(),
        failures: z.number().int().optional(),
        closes: z.boolean().optional(),
      }),
      handle: (ctx, { entry, delay, id, cancel, failures, closes }) => {
        if (cancel) ctx.cancel(cancel);
        const options = id ? { id } : {};
        if (closes) ctx.schedule(delay, 'close', {}, options);
        if (!entry) return;
        if (failures) ctx.schedule(delay, 'flaky', { entry, failures }, options);
        else ctx.schedule(delay, 'add', { entry, amount: 1 }, options);
      },
    },
    /** Asks another ledger for its total; the reply lands in `replied`. */
    askTotal: {
      public: true,
      payload: z.object({ of: z.string(), timeoutMs: z.number().optional() }),
      handle: (ctx, { of, timeoutMs }) => {
        const options = {
          onReply: 'replied' as const,
          context: { of },
          ...(timeoutMs ? { timeoutMs } : {}),
        };
        ctx.ask(Ledger.ref(of), 'total', {}, options);
      },
    },
    total: {
      public: true,
      payload: z.object({}),
      handle: (ctx) => ctx.state.total,
    },
    replied: {
      public: true,
      payload: z.custom<AskReply<number, { of: string }>>(),
      handle: (ctx, reply) => {
        ctx.state.entries.push(
          reply.ok
            ? `${reply.context.of}=${reply.value}`
            : `${reply.context.of}:${reply.error.code}`,
        );
      },
    },
    /** Adds `entry` and asks for a `noted` effect of it. */
    note: {
      public: true,
      payload: z.object({ entry: z.string() }),
      handle: (ctx, { entry }) => {
        ctx.state.entries.push(entry);
        ctx.effect(Noted, { entry });
      },
    },
    /** Ends the ledger: its timers cancelled, its record set to expire. */
    close: {
      public: true,
      payload: z.object({}),
      handle: (ctx) => {
        const { close } = ledgerRuns;
        close.set(ctx.message.id, (close.get(ctx.message.id) ?? 0) + 1);
        ctx.halt();
      },
    },
    pad: {
      public: true,
      payload: z.object({ bytes: z.number().int() }),
      handle: (ctx, { bytes }) => {
        ctx.state.entries.push('p'.repeat(bytes));
      },
    },
  },
});
