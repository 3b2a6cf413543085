/**
 * Halting an actor costs one commit whatever the number of its pending timers and asks: the
 * halt removes the soonest few, and every timer scheduled before it is skipped when it fires
 * (and removed then) — in a later message of the same life as in a new life. The timer of the
 * message that halts (a timer's fire, an ask's reply) goes in the halting commit, always.
 */
import { type AskReply, actor } from '@baton/core';
import { fireDueTimers, HALT_TIMER_REMOVALS, type TurnStats } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { answered, setup } from './helpers.ts';

/** The ids of the pager's `stamped` runs: the continuation of its ask. */
const stampedRuns: string[] = [];

const Clerk = actor({
  name: 'clerk',
  state: z.object({}),
  initial: () => ({}),
  handlers: {
    stamp: { payload: z.object({}), handle: () => 'stamped' },
  },
});

const Pager = actor({
  name: 'pager',
  state: z.object({ rang: z.array(z.string()) }),
  initial: () => ({ rang: [] as string[] }),
  handlers: {
    /** Schedules `count` timers, the first due in `inMs`, one a millisecond after another. */
    plan: {
      payload: z.object({ from: z.number(), count: z.number(), inMs: z.number() }),
      handle: (ctx, { from, count, inMs }) => {
        for (let n = from; n < from + count; n++) ctx.schedule(inMs + n, 'ring', { n });
      },
    },
    ring: {
      payload: z.object({ n: z.number() }),
      handle: (ctx, { n }) => {
        ctx.state.rang.push(`ring ${n}`);
      },
    },
    /** Schedules an `end` in `inMs`: its fire halts the pager. */
    planEnd: {
      payload: z.object({ inMs: z.number() }),
      handle: (ctx, { inMs }) => {
        ctx.schedule(inMs, 'end', {});
      },
    },
    end: {
      payload: z.object({}),
      handle: (ctx) => {
        ctx.halt();
        return 'halted';
      },
    },
    /** Asks the clerk for a stamp, for an hour: the reply ends the pager. */
    askThenEnd: {
      payload: z.object({}),
      handle: (ctx) => {
        ctx.ask(Clerk.ref('c'), 'stamp', {}, { onReply: 'stamped', timeoutMs: 3_600_000 });
      },
    },
    stamped: {
      payload: z.custom<AskReply<string>>(),
      handle: (ctx) => {
        stampedRuns.push(ctx.message.id);
        ctx.halt();
      },
    },
  },
});

const pager = Pager.ref('p');
const rang = async (h: ReturnType<typeof setup>) =>
  ((await h.state(pager.id)) as { rang: string[] } | undefined)?.rang ?? [];

describe('halting with many pending timers', () => {
  it('halts in one commit, and none of the timers scheduled before the halt ever fires', async () => {
    const turns: TurnStats[] = [];
    const h = setup({ actors: [Pager], onTurn: (turn) => turns.push(turn) });
    for (let from = 0; from < 150; from += 50) {
      await answered(h, h.client.ask(pager, 'plan', { from, count: 50, inMs: 60_000 }));
    }
    expect(await h.backend.store.listTimers(pager.id)).toHaveLength(150);

    expect(await answered(h, h.client.ask(pager, 'end', {}))).toBe('halted');
    expect(await h.backend.store.listTimers(pager.id)).toHaveLength(150 - HALT_TIMER_REMOVALS);

    // The actor lives again (the same life) and schedules one timer of its own.
    await answered(h, h.client.ask(pager, 'plan', { from: 1000, count: 1, inMs: 60_000 }));
    // Its state is the initial one, but a timer set revives it: the record no longer expires.
    expect((await h.record(pager.id))?.expiresAt).toBeUndefined();
    h.clock.advance(120_000);
    turns.length = 0;
    while ((await fireDueTimers(h.engine, h.clock.now())) > 0) await h.run();

    expect(await rang(h)).toEqual(['ring 1000']);
    expect(await h.backend.store.listTimers(pager.id)).toEqual([]);
    // The turns' metrics count the skipped fires as skipped, not applied.
    const total = (key: 'applied' | 'skipped' | 'rejected') =>
      turns.reduce((n, turn) => n + turn[key], 0);
    expect(total('applied')).toBe(1);
    expect(total('skipped')).toBe(150 - HALT_TIMER_REMOVALS);
    expect(total('rejected')).toBe(0);
  });

  it('skips the fire of a timer of an earlier life once the halted record is gone', async () => {
    const h = setup({ actors: [Pager] });
    for (let from = 0; from < 150; from += 50) {
      await answered(h, h.client.ask(pager, 'plan', { from, count: 50, inMs: 30 * 86_400_000 }));
    }
    await answered(h, h.client.ask(pager, 'end', {}));
    const expiresAt = (await h.record(pager.id))?.expiresAt;
    h.clock.set(expiresAt!);
    h.backend.store.purgeExpired();
    expect(await h.record(pager.id)).toBeUndefined();

    // A new life, whose first message is the fire of the old life's timers.
    h.clock.advance(30 * 86_400_000);
    while ((await fireDueTimers(h.engine, h.clock.now())) > 0) await h.run();
    expect(await rang(h)).toEqual([]);
    expect(await h.backend.store.listTimers(pager.id)).toEqual([]);
    // The fires leave the new life as new: its record expires too, not kept for good.
    const left = await h.record(pager.id);
    expect(left?.expiresAt).toBe(h.clock.now() + 2 * h.engine.markRetentionMs);
  });

  it('halts after a message of its batch scheduled many timers, in a commit of its own if need be', async () => {
    const turns: TurnStats[] = [];
    const h = setup({ actors: [Pager], onTurn: (turn) => turns.push(turn) });
    const inMs = 60_000;
    await answered(h, h.client.ask(pager, 'plan', { from: 0, count: HALT_TIMER_REMOVALS, inMs }));
    // One batch: 74 timers put, then a halt removing them and the 25 stored, past one commit's
    // 100 items together; the halt then commits alone, removing what fits.
    const planned = h.client.ask(pager, 'plan', { from: 100, count: 74, inMs });
    const ended = h.client.ask(pager, 'end', {});
    turns.length = 0;
    await answered(h, planned);
    expect(await answered(h, ended)).toBe('halted');
    expect(turns.reduce((n, turn) => n + turn.applied, 0)).toBe(2);
    expect((await h.record(pager.id))?.timerEpoch).toBe(1);
    // The halt's own commit removed the 25 soonest and one more: no fewer, and no more.
    const stored = HALT_TIMER_REMOVALS + 74;
    expect(await h.backend.store.listTimers(pager.id)).toHaveLength(
      stored - (HALT_TIMER_REMOVALS + 1),
    );

    // Every timer of the ended life that is left is skipped when it fires.
    h.clock.advance(2 * inMs);
    while ((await fireDueTimers(h.engine, h.clock.now())) > 0) await h.run();
    expect(await rang(h)).toEqual([]);
    expect(await h.backend.store.listTimers(pager.id)).toEqual([]);
  });

  it('removes the fired timer in the commit of its own of a halt that follows many timers in its batch', async () => {
    const h = setup({ actors: [Pager] });
    const inMs = 60_000;
    await answered(h, h.client.ask(pager, 'plan', { from: 0, count: HALT_TIMER_REMOVALS, inMs }));
    await answered(h, h.client.ask(pager, 'planEnd', { inMs: 1_000 }));
    const [ending] = await h.backend.store.listTimers(pager.id);
    // One batch: 74 timers put, then the fire of the `end` timer.
    const planned = h.client.ask(pager, 'plan', { from: 100, count: 74, inMs });
    h.clock.advance(1_000);
    expect(await fireDueTimers(h.engine, h.clock.now())).toBe(1);
    await answered(h, planned);
    await h.run();
    expect((await h.record(pager.id))?.timerEpoch).toBe(1);
    const left = (await h.backend.store.listTimers(pager.id)).map((timer) => timer.id);
    expect(left).not.toContain(ending!.id);
    // Of the 100 stored (25 planned, the `end` and the batch's 74), the halt removed the fired
    // timer, the 24 others of the 25 soonest and one of the batch's.
    expect(left).toHaveLength(74);

    h.clock.advance(2 * inMs);
    while ((await fireDueTimers(h.engine, h.clock.now())) > 0) await h.run();
    expect(await rang(h)).toEqual([]);
    expect(await h.backend.store.listTimers(pager.id)).toEqual([]);
  });

  it("removes the ask's timer in the commit of the reply whose continuation halts, however many timers are due before it", async () => {
    const h = setup({ actors: [Pager, Clerk] });
    // As many timers as a halt removes, all due before the ask's timeout.
    await answered(
      h,
      h.client.ask(pager, 'plan', { from: 0, count: HALT_TIMER_REMOVALS, inMs: 60_000 }),
    );
    await answered(h, h.client.ask(pager, 'askThenEnd', {}));
    await h.run();
    expect(stampedRuns).toHaveLength(1);
    const halted = await h.record(pager.id);
    expect(halted?.state).toEqual({ rang: [] });
    expect(halted?.timerEpoch).toBe(1);
    expect(await h.backend.store.listTimers(pager.id)).toEqual([]);

    // Past the ask's timeout nothing is left to fire: the continuation ran once.
    h.clock.advance(7_200_000);
    expect(await fireDueTimers(h.engine, h.clock.now())).toBe(0);
    await h.run();
    expect(stampedRuns).toHaveLength(1);
    expect(await rang(h)).toEqual([]);
  });
});
