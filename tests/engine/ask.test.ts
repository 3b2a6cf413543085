/**
 * Asks between actors: `ctx.ask` sends a request with the turn; the reply — the asked handler's
 * return value, its rejection, or ASK_TIMEOUT — reaches the asker's continuation exactly once,
 * with the context the asker kept. Nothing blocks, so a reply that comes after the timeout is
 * dropped, and a request delivered twice is answered once.
 */
import { type AskReply, actor, ErrorCode, RetryableError, TerminalError } from '@baton/core';
import { fireDueTimers, redriveDeadLetter } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { answered, setup } from './helpers.ts';

const Stock = actor({
  name: 'stock',
  state: z.object({ left: z.number(), asked: z.number() }),
  initial: () => ({ left: 3, asked: 0 }),
  handlers: {
    reserve: {
      payload: z.object({ qty: z.number().int().positive() }),
      handle: (ctx, { qty }) => {
        ctx.state.asked++;
        if (qty > ctx.state.left) throw new TerminalError(`only ${ctx.state.left} left`);
        ctx.state.left -= qty;
        return ctx.state.left;
      },
    },
  },
});

type Reserved = AskReply<number, { order: string }>;

/** While set, the shop's continuation fails (and, out of attempts, is dead-lettered). */
const shopFloor = { flooded: false };

const Shop = actor({
  name: 'shop',
  state: z.object({ log: z.array(z.string()) }),
  initial: () => ({ log: [] as string[] }),
  handlers: {
    order: {
      payload: z.object({ order: z.string(), qty: z.number(), timeoutMs: z.number().optional() }),
      handle: (ctx, { order, qty, timeoutMs }) =>
        ctx.ask(
          Stock.ref('widgets'),
          'reserve',
          { qty },
          { onReply: 'reserved', context: { order }, ...(timeoutMs ? { timeoutMs } : {}) },
        ).id,
    },
    badThen: {
      payload: z.object({}),
      handle: (ctx) => {
        const ask = ctx.ask as (...args: unknown[]) => unknown;
        ask(Stock.ref('widgets'), 'reserve', { qty: 1 }, { onReply: 'nope' });
      },
    },
    badTimeout: {
      payload: z.object({}),
      handle: (ctx) => {
        ctx.ask(
          Stock.ref('widgets'),
          'reserve',
          { qty: 1 },
          { onReply: 'reserved', timeoutMs: -5 },
        );
      },
    },
    reserved: {
      payload: z.custom<Reserved>(),
      handle: (ctx, reply) => {
        if (shopFloor.flooded) throw new RetryableError('the shop floor is flooded');
        const from = ctx.message.from;
        ctx.state.log.push(
          reply.ok
            ? `${reply.context.order}: ${reply.value} left (${from})`
            : `${reply.context.order}: ${reply.error.code}`,
        );
      },
    },
  },
});

const shop = Shop.ref('main');

const log = async (h: ReturnType<typeof setup>) =>
  ((await h.state(shop.id)) as { log: string[] } | undefined)?.log ?? [];

describe('ctx.ask between actors', () => {
  it('keeps the continuation as a timer named after the ask, due a day later by default', async () => {
    const h = setup({ actors: [Shop, Stock] });
    await h.client.send(shop, 'order', { order: 'o1', qty: 2 });
    await h.client.send(shop, 'order', { order: 'o2', qty: 1 });
    await h.worker.poll(); // the shop's turn only: the requests wait unanswered
    const timers = await h.backend.store.listTimers(shop.id);
    expect(timers.map((t) => t.id)).toEqual([
      expect.stringMatching(/^ask:[0-9a-f]{16}$/),
      expect.stringMatching(/^ask:[0-9a-f]{16}$/),
    ]);
    for (const timer of timers) {
      expect(timer.at).toBe(h.clock.now() + 24 * 3_600_000);
      expect(timer.id).toBe(`ask:${timer.gen}`);
    }
  });

  it("delivers the reply to the continuation with the asker's context, once", async () => {
    const h = setup({ actors: [Shop, Stock] });
    await answered(h, h.client.ask(shop, 'order', { order: 'o1', qty: 2 }));
    expect(await log(h)).toEqual(['o1: 1 left (stock/widgets)']);
    // The timeout timer that held the continuation is gone with the reply.
    expect(await h.backend.store.listTimers(shop.id)).toEqual([]);
    h.clock.advance(2 * 24 * 3_600_000);
    expect(await fireDueTimers(h.engine, h.clock.now())).toBe(0);
  });

  it('delivers a rejection as a failed reply', async () => {
    const h = setup({ actors: [Shop, Stock] });
    await answered(h, h.client.ask(shop, 'order', { order: 'o1', qty: 9 }));
    expect(await log(h)).toEqual([`o1: ${ErrorCode.REJECTED}`]);
    expect((await h.state('stock/widgets')) as object).toEqual({ left: 3, asked: 0 });
  });

  it('delivers ASK_TIMEOUT when the reply is late, and drops the late reply', async () => {
    const h = setup({ actors: [Shop, Stock] });
    await h.client.send(shop, 'order', { order: 'o1', qty: 1, timeoutMs: 1_000 });
    // Run the shop's turn alone: the request waits in the inbox, unanswered.
    await h.worker.poll();
    h.clock.advance(1_000);
    expect(await fireDueTimers(h.engine, h.clock.now())).toBe(1);
    await h.run();
    // The stock did reserve (its reply came after the timeout): the shop heard of the timeout only.
    expect(await h.state('stock/widgets')).toEqual({ left: 2, asked: 1 });
    expect(await log(h)).toEqual([`o1: ${ErrorCode.ASK_TIMEOUT}`]);
  });

  it('keeps an ask whose timeout was dead-lettered: the late reply is dropped, the redrive times it out once', async () => {
    const h = setup({ actors: [Shop, Stock], maxAttempts: 1 });
    await h.client.send(shop, 'order', { order: 'o1', qty: 1, timeoutMs: 1_000 });
    await h.worker.poll(); // the shop's turn alone: the request waits in the inbox
    h.clock.advance(1_000);
    expect(await fireDueTimers(h.engine, h.clock.now())).toBe(1);
    shopFloor.flooded = true;
    await h.run();
    shopFloor.flooded = false;
    // The stock reserved and replied; the timeout's continuation failed and is kept, and the
    // reply, after the timeout, is dropped as late: one dead letter, nothing in the log.
    expect(await h.state('stock/widgets')).toEqual({ left: 2, asked: 1 });
    const letters = await h.backend.store.listDeadLetters(shop.id);
    expect(letters).toHaveLength(1);
    expect(await log(h)).toEqual([]);
    expect(await fireDueTimers(h.engine, h.clock.now() + 2 * 24 * 3_600_000)).toBe(0);

    await redriveDeadLetter(h.backend.store, h.backend.queue, shop.id, letters[0]!.messageId);
    await h.run();
    expect(await log(h)).toEqual([`o1: ${ErrorCode.ASK_TIMEOUT}`]);
    expect(await h.backend.store.listTimers(shop.id)).toEqual([]);
    expect(await h.backend.store.listDeadLetters(shop.id)).toEqual([]);
  });

  it('answers a request delivered twice once', async () => {
    const h = setup({ actors: [Shop, Stock], batchSize: 1 });
    await h.client.send(shop, 'order', { order: 'o1', qty: 1 });
    await h.worker.poll(); // the shop's turn: the request is drained into the inbox
    const [request] = h.backend.queue.messages();
    await h.backend.queue.send([{ ...request!, dedupeId: 'resent' }]);
    await h.run();
    expect(await h.state('stock/widgets')).toEqual({ left: 2, asked: 1 });
    expect(await log(h)).toEqual(['o1: 2 left (stock/widgets)']);
  });

  it('refuses an ask whose continuation is not a handler of the asker, keeping the message for a fix', async () => {
    const h = setup({ actors: [Shop, Stock] });
    const error = await answered(h, h.client.ask(shop, 'badThen', {})).catch((e) => e);
    expect(error).toMatchObject({
      code: ErrorCode.DEAD_LETTERED,
      details: { cause: { code: ErrorCode.INVALID_ARGUMENT } },
    });
    expect(error.message).toMatch(
      /^in handler "badThen" of shop\/main: .*onReply.*must name a handler of shop.*"nope"/,
    );
    const late = await answered(h, h.client.ask(shop, 'badTimeout', {})).catch((e) => e);
    expect(late).toMatchObject({
      code: ErrorCode.DEAD_LETTERED,
      details: { cause: { code: ErrorCode.INVALID_ARGUMENT } },
    });
    expect(late.message).toMatch(/timeoutMs.*> 0, got -5.*kept as a dead letter/);
    expect(await h.state('stock/widgets')).toBeUndefined();
    expect(await h.backend.store.listDeadLetters(shop.id)).toHaveLength(2);
  });
});
