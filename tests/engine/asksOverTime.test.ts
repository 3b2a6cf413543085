/**
 * An ask across time: its timeout and its reply when copies come days late, its letters purged,
 * a copy of its request too old to tell. The ask's continuation runs exactly once, and a copy
 * too old for the receiver's mark to tell never moves that mark. Every count is of what
 * committed state shows.
 */
import { type AskReply, actor, RetryableError } from '@baton/core';
import type { QueueMessage } from '@baton/core/adapter';
import { answeredSender, purgeDeadLetter, redriveDeadLetter } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { divertingApp as app, DAY, type Divert, envelopeOf, nameOf } from './divertingInbox.ts';
import type { setup } from './helpers.ts';

const shopFaults = { flooded: false };

type Reserved = AskReply<number, { order: string }>;

const Stock = actor({
  name: 'stock',
  state: z.object({ left: z.number(), reserved: z.number() }),
  initial: () => ({ left: 10, reserved: 0 }),
  handlers: {
    reserve: {
      payload: z.object({ qty: z.number() }),
      handle: (ctx, { qty }) => {
        ctx.state.left -= qty;
        ctx.state.reserved++;
        return ctx.state.left;
      },
    },
    /** Tells the shop something: keeps the stock's channel to the shop (and its mark) alive. */
    notify: {
      payload: z.object({}),
      handle: (ctx) => {
        ctx.send(
          { id: 'shop/main', type: 'shop', key: 'main' } as never,
          'notice' as never,
          {} as never,
        );
      },
    },
  },
});

const Shop = actor({
  name: 'shop',
  state: z.object({ log: z.array(z.string()), notices: z.number() }),
  initial: () => ({ log: [] as string[], notices: 0 }),
  handlers: {
    order: {
      payload: z.object({ order: z.string(), timeoutMs: z.number().optional() }),
      handle: (ctx, { order, timeoutMs }) => {
        ctx.ask(
          Stock.ref('w'),
          'reserve',
          { qty: 1 },
          { onReply: 'reserved', context: { order }, ...(timeoutMs ? { timeoutMs } : {}) },
        );
      },
    },
    reserved: {
      payload: z.custom<Reserved>(),
      handle: (ctx, reply) => {
        if (shopFaults.flooded) throw new RetryableError('the shop floor is flooded');
        ctx.state.log.push(
          reply.ok ? `${reply.context.order}: ok` : `${reply.context.order}: ${reply.error.code}`,
        );
      },
    },
    notice: {
      payload: z.object({}),
      handle: (ctx) => {
        ctx.state.notices++;
      },
    },
  },
});
const shop = Shop.ref('main');
const shopLog = async (h: ReturnType<typeof setup>) =>
  ((await h.state(shop.id)) as { log: string[] } | undefined)?.log ?? [];
const stockState = async (h: ReturnType<typeof setup>) =>
  (await h.state('stock/w')) as { left: number; reserved: number } | undefined;

const isReply = (m: QueueMessage) => envelopeOf(m).replyTo !== undefined;
const isRequest = (m: QueueMessage) => nameOf(m) === 'reserve';

describe("an ask's timeout and its reply, across time", () => {
  it("runs the asker's continuation exactly once when its reply was dead-lettered and the operator purges that letter", async () => {
    shopFaults.flooded = false;
    const t = app([Shop, Stock], { fn: () => undefined }, { maxAttempts: 1 });
    shopFaults.flooded = true;
    await t.h.client.send(shop, 'order', { order: 'o1', timeoutMs: 60_000 });
    await t.run();
    shopFaults.flooded = false;
    // The stock reserved; the reply's continuation failed and the reply is a dead letter.
    expect((await stockState(t.h))?.reserved).toBe(1);
    const [letter] = await t.letters(shop.id);
    expect(letter?.envelope.replyTo).toBeDefined();
    // The reply must not run (say the continuation would do harm): purge it, a documented
    // step for "a message that must never run".
    expect(answeredSender(letter!)).toBeUndefined();
    await purgeDeadLetter(t.h.backend.store, shop.id, letter!.messageId, { by: 'ops' });
    // The ask's timeout stays, no longer marked with the letter: it is to fire.
    const [timer] = await t.h.backend.store.listTimers(shop.id);
    expect(timer?.id).toBe(letter!.timer?.id);
    expect(timer?.deadLettered).toBeUndefined();
    // Past the ask's timeout.
    t.h.clock.advance(2 * DAY);
    await t.fire();
    await t.run();
    // The ask ends exactly once for its asker: the reply purged, by its timeout.
    expect(await shopLog(t.h)).toEqual(['o1: ASK_TIMEOUT']);
    expect(await t.h.backend.store.listTimers(shop.id)).toEqual([]);
  });

  it("runs the asker's continuation exactly once when its timeout's fire was dead-lettered and the operator purges that letter", async () => {
    shopFaults.flooded = false;
    const divert = { fn: ((m) => (isRequest(m) ? 'only' : undefined)) as Divert };
    const t = app([Shop, Stock], divert, { maxAttempts: 1 });
    await t.h.client.send(shop, 'order', { order: 'o1', timeoutMs: 60_000 });
    await t.run();
    // The request is stuck in the queue's dead-letter queue; the timeout fires and its
    // continuation fails: a dead letter.
    t.h.clock.advance(60_000);
    shopFaults.flooded = true;
    await t.fire();
    await t.run();
    shopFaults.flooded = false;
    const [letter] = await t.letters(shop.id);
    expect(letter?.timer).toBeDefined();
    // Purged, the ask would end never: refused, saying what to do instead.
    const { store, queue } = t.h.backend;
    await expect(
      purgeDeadLetter(store, shop.id, letter!.messageId, { by: 'ops' }),
    ).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringMatching(/timeout of an ask .* would wait for good .* redrive it/),
      details: { actorId: shop.id, messageId: letter!.messageId },
    });
    expect(await t.letters(shop.id)).toHaveLength(1);
    // The request is redriven: the stock reserves and replies, too late for the ask.
    divert.fn = () => undefined;
    await t.redrive(t.dlq);
    await t.run();
    expect((await stockState(t.h))?.reserved).toBe(1);
    expect(await shopLog(t.h)).toEqual([]);
    // The timeout's letter, redriven once the continuation is fixed, ends the ask.
    await redriveDeadLetter(store, queue, shop.id, letter!.messageId);
    await t.run();
    expect(await shopLog(t.h)).toEqual(['o1: ASK_TIMEOUT']);
  });

  it('applies a reply once, or times the ask out once, when the reply comes 29 days late while its ask still waits', async () => {
    shopFaults.flooded = false;
    const divert = { fn: ((m) => (isReply(m) ? 'only' : undefined)) as Divert };
    const t = app([Shop, Stock], divert);
    // A long ask (40 days): the reply is stranded in the queue's dead-letter queue.
    await t.h.client.send(shop, 'order', { order: 'o1', timeoutMs: 40 * DAY });
    await t.run();
    expect((await stockState(t.h))?.reserved).toBe(1);
    divert.fn = () => undefined;
    t.h.clock.advance(29 * DAY);
    await t.redrive(t.dlq);
    await t.run();
    // The ask's timer was still stored: its continuation never ran, so the reply is applied,
    // however old, and no letter is kept.
    expect(await shopLog(t.h)).toEqual(['o1: ok']);
    expect(await t.letters(shop.id)).toEqual([]);
    expect(await t.h.backend.store.listTimers(shop.id)).toEqual([]);
    // Past the ask's timeout too: nothing more.
    t.h.clock.advance(12 * DAY);
    await t.fire();
    await t.run();
    expect(await shopLog(t.h)).toEqual(['o1: ok']);
  });

  it('tells the asker the outcome of its request exactly once when a copy of the request, too old to tell, comes before the real reply', async () => {
    shopFaults.flooded = false;
    // The request goes through, and a copy of it waits in the queue's dead-letter queue; the
    // reply is stranded there too (a worker crashing on the shop's batches).
    const divert = {
      fn: ((m) => (isRequest(m) ? 'copy' : isReply(m) ? 'only' : undefined)) as Divert,
    };
    const t = app([Shop, Stock], divert);
    // The stock told the shop something before: the shop holds a mark for the stock.
    await t.h.client.send(Stock.ref('w'), 'notify', {});
    await t.run();
    await t.h.client.send(shop, 'order', { order: 'o1', timeoutMs: 90 * DAY });
    await t.run();
    expect(await stockState(t.h)).toEqual({ left: 9, reserved: 1 });
    const [request, reply] = [t.dlq.find(isRequest)!, t.dlq.find(isReply)!];
    divert.fn = () => undefined;
    // The stock keeps telling the shop (every 10 days): the shop's mark for the stock stays,
    // and the stranded reply lies in a gap it remembers. The shop sends the stock nothing more.
    for (let i = 0; i < 3; i++) {
      t.h.clock.advance(10 * DAY);
      await t.h.client.send(Stock.ref('w'), 'notify', {});
      await t.run();
    }
    // Day 30: the stock's mark for the shop (day 0) is gone. The copy of the request is
    // redriven first: too old to tell, kept as a dead letter.
    await t.redrive([request]);
    await t.run();
    const kept = await t.letters('stock/w');
    expect(kept.map((l) => l.envelope.name)).toEqual(['reserve']);
    expect(kept[0]!.error.message).toMatch(/may have been applied already/);
    // Its asker was not told it failed: the letter needs force, for knowing it never applied.
    expect(kept[0]!.unmarked).toBe(true);
    expect(answeredSender(kept[0]!)).toBeUndefined();
    // Then the real reply (its request was applied once: left 9).
    t.h.clock.advance(10 * 60_000);
    await t.redrive([reply]);
    await t.run();
    expect(await stockState(t.h)).toEqual({ left: 9, reserved: 1 });
    // The request was applied exactly once, so its asker's continuation hears exactly that.
    expect(await shopLog(t.h)).toEqual(['o1: ok']);
  });

  it("applies a stranded reply once to its ask after the callee's channel to the asker was reopened by a later reply", async () => {
    shopFaults.flooded = false;
    const replies: QueueMessage[] = [];
    const divert = {
      fn: ((m) => {
        if (isReply(m)) replies.push(m);
        return isReply(m) ? 'only' : undefined;
      }) as Divert,
    };
    const t = app([Shop, Stock], divert);
    await t.h.client.send(shop, 'order', { order: 'o1', timeoutMs: 40 * DAY });
    await t.run();
    divert.fn = (m) => {
      if (isReply(m)) replies.push(m);
      return undefined;
    };
    // 15 days on, both sides have forgotten their idle channels: o2's request and reply open
    // them anew (prev 0), and o2's reply reaches the shop first.
    t.h.clock.advance(15 * DAY);
    await t.h.client.send(shop, 'order', { order: 'o2', timeoutMs: 40 * DAY });
    await t.run();
    expect(replies.map((m) => [envelopeOf(m).seq, envelopeOf(m).prev])).toEqual([
      [1, 0],
      [2, 0],
    ]);
    await t.redrive(t.dlq);
    await t.run();
    t.h.clock.advance(10 * 60_000);
    await t.redrive(t.dlq);
    await t.run();
    t.h.clock.advance(30 * DAY);
    await t.fire();
    await t.run();
    // Each ask answered exactly once, by its own reply.
    expect((await stockState(t.h))?.reserved).toBe(2);
    expect(await shopLog(t.h)).toEqual(['o2: ok', 'o1: ok']);
  });

  it('drops a reply that comes after the timeout, however late, and a redrive of its letter applies nothing more', async () => {
    shopFaults.flooded = false;
    const divert = { fn: ((m) => (isReply(m) ? 'copy' : undefined)) as Divert };
    const t = app([Shop, Stock], divert);
    await t.h.client.send(shop, 'order', { order: 'o1', timeoutMs: 60_000 });
    await t.run();
    expect(await shopLog(t.h)).toEqual(['o1: ok']);
    // A copy of the reply, 29 days on and again 60 days on (past twice the retention).
    for (const days of [29, 31]) {
      t.h.clock.advance(days * DAY);
      await t.redrive(t.dlq);
      await t.run();
    }
    await t.fire();
    await t.run();
    expect(await shopLog(t.h)).toEqual(['o1: ok']);
    expect(await t.letters(shop.id)).toEqual([]);
  });
  it("drops a reply too old for the mark to tell, its ask over, and still keeps apart a copy of the callee's earlier message as old", async () => {
    shopFaults.flooded = false;
    // The stock's notice (seq 1) and its reply (seq 2, prev 1) are applied, and a copy of each
    // (committed, never acked) waits in the queue's dead-letter queue.
    const divert = {
      fn: ((m) => (nameOf(m) === 'notice' || isReply(m) ? 'copy' : undefined)) as Divert,
    };
    const t = app([Shop, Stock], divert);
    await t.h.client.send(Stock.ref('w'), 'notify', {});
    await t.run();
    await t.h.client.send(shop, 'order', { order: 'o1', timeoutMs: 60_000 });
    await t.run();
    expect(await t.h.state(shop.id)).toEqual({ log: ['o1: ok'], notices: 1 });
    const [notice, reply] = [t.dlq.find((m) => nameOf(m) === 'notice')!, t.dlq.find(isReply)!];
    expect([envelopeOf(reply).seq, envelopeOf(reply).prev]).toEqual([2, 1]);
    divert.fn = () => undefined;
    // 29 days on the shop's mark for the stock is gone. The reply's copy comes first: its ask
    // is over, so it is dropped. The mark it opens proves nothing below it (seq 1 may be a
    // message applied before the mark was pruned).
    t.h.clock.advance(29 * DAY);
    await t.redrive([reply]);
    await t.run();
    expect((await t.h.record(shop.id))?.marks['stock/w']).toMatchObject({
      seq: 2,
      unprovenUpTo: 1,
    });
    // Then the notice's copy: too old to tell, kept apart, not applied a second time.
    await t.redrive([notice]);
    await t.run();
    expect(await t.h.state(shop.id)).toEqual({ log: ['o1: ok'], notices: 1 });
    expect((await t.letters(shop.id)).map((l) => [l.envelope.name, l.unmarked])).toEqual([
      ['notice', true],
    ]);
  });
});
