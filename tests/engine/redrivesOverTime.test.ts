/**
 * Dead letters handled as the docs say, across time: a redrive loop that meets a letter kept as
 * too old to tell, letters redriven twice, copies that come meanwhile. Every count is of what
 * committed state shows: a deposit applied twice shows twice.
 */
import { actor, RetryableError } from '@baton/core';
import type { QueueMessage } from '@baton/core/adapter';
import { redriveDeadLetter, redriveNeedsForce } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { divertingApp as app, DAY, envelopeOf, nameOf } from './divertingInbox.ts';
import type { setup } from './helpers.ts';

const bankFaults = { depositFails: false };

/** An account that takes deposits from a payer actor, and a payer that forwards them. */
const Account = actor({
  name: 'account',
  state: z.object({ balance: z.number() }),
  initial: () => ({ balance: 0 }),
  handlers: {
    deposit: {
      payload: z.object({ amount: z.number() }),
      handle: (ctx, { amount }) => {
        if (bankFaults.depositFails && amount === 7) throw new RetryableError('deploy pending');
        ctx.state.balance += amount;
      },
    },
  },
});
const Payer = actor({
  name: 'payer',
  state: z.object({}),
  initial: () => ({}),
  handlers: {
    pay: {
      payload: z.object({ amount: z.number() }),
      handle: (ctx, { amount }) => ctx.send(Account.ref('alice'), 'deposit', { amount }),
    },
  },
});
const alice = 'account/alice';
const balance = async (h: ReturnType<typeof setup>) =>
  ((await h.state(alice)) as { balance: number } | undefined)?.balance ?? 0;
const isDeposit = (amount: number) => (m: QueueMessage) =>
  nameOf(m) === 'deposit' && (envelopeOf(m).payload as { amount: number }).amount === amount;

describe("an operator's dead letters, handled as the docs say", () => {
  it('applies a deposit exactly once when the deploys.md redrive loop meets a letter kept as too old to tell beside a deploy’s letter', async () => {
    bankFaults.depositFails = false;
    // 100 is applied, and a copy of it (committed, never acked) waits in the DLQ.
    const divert = { fn: isDeposit(100) as (m: QueueMessage) => boolean };
    const t = app(
      [Account, Payer],
      { fn: (m) => (divert.fn(m) ? 'copy' : undefined) },
      { maxAttempts: 1 },
    );
    await t.h.client.send(Payer.ref('p'), 'pay', { amount: 100 });
    await t.run();
    expect(await balance(t.h)).toBe(100);
    // 29 days on, the operator redrives the queue's dead-letter queue (DeadLettersAlarm): the
    // copy is too old to tell, kept as an engine dead letter.
    t.h.clock.advance(29 * DAY);
    await t.redrive(t.dlq);
    await t.run();
    expect(await balance(t.h)).toBe(100);
    // A deploy: a deposit of 7 reaches code that does not know it yet, and is kept.
    bankFaults.depositFails = true;
    await t.h.client.send(Payer.ref('p'), 'pay', { amount: 7 });
    await t.run();
    bankFaults.depositFails = false;
    expect(await balance(t.h)).toBe(100);
    const kept = await t.letters(alice);
    expect(
      kept.map((l) => [(l.envelope.payload as { amount: number }).amount, l.unmarked]),
    ).toEqual([
      [100, true],
      [7, undefined],
    ]);
    expect(kept[0]!.error.message).toMatch(/redrive it only if you know it was never applied/);
    // A plain redrive of the letter too old to tell is refused, saying what to do.
    const { store, queue } = t.h.backend;
    await expect(redriveDeadLetter(store, queue, alice, kept[0]!.messageId)).rejects.toMatchObject({
      code: 'INVALID_STATE',
      message: expect.stringMatching(/too old to tell .* never applied, redrive it with force/),
      details: { tooOldToTell: true },
    });
    // deploys.md: "Once the new code runs everywhere, redrive the dead letters the deploy left"
    // — its loop, word for word.
    for (const letter of await store.listDeadLetters('account/alice')) {
      if (redriveNeedsForce(letter)) continue;
      await redriveDeadLetter(store, queue, letter.actorId, letter.messageId);
    }
    await t.run();
    // 100 was applied once and 7 once: balance === 107; the letter too old to tell is left.
    expect(await balance(t.h)).toBe(107);
    expect((await t.letters(alice)).map((l) => l.messageId)).toEqual([kept[0]!.messageId]);
  });

  it('applies a deposit once when its letter is redriven twice, minutes apart, and a copy of it comes from the queue meanwhile', async () => {
    bankFaults.depositFails = true;
    const t = app(
      [Account, Payer],
      { fn: (m) => (isDeposit(7)(m) ? 'copy' : undefined) },
      { maxAttempts: 1 },
    );
    await t.h.client.send(Payer.ref('p'), 'pay', { amount: 7 });
    await t.run();
    bankFaults.depositFails = false;
    const [letter] = await t.letters(alice);
    const { store, queue } = t.h.backend;
    await redriveDeadLetter(store, queue, alice, letter!.messageId);
    t.h.clock.advance(6 * 60_000); // past the inbox's dedupe window: a second redrive is sent
    await redriveDeadLetter(store, queue, alice, letter!.messageId);
    await t.redrive(t.dlq);
    await t.run();
    await expect(redriveDeadLetter(store, queue, alice, letter!.messageId)).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    t.h.clock.advance(29 * DAY);
    await t.redrive(t.dlq);
    await t.run();
    // Applied exactly once: balance === 7; the 29-day-old copy is kept apart, not applied.
    expect(await balance(t.h)).toBe(7);
  });

  it('applies once a letter too old to tell that the operator redrives, and another copy of it later', async () => {
    bankFaults.depositFails = false;
    // 100 never reaches alice: two copies wait in the DLQ.
    const t = app([Account, Payer], { fn: (m) => (isDeposit(100)(m) ? 'only' : undefined) });
    await t.h.client.send(Payer.ref('p'), 'pay', { amount: 100 });
    await t.run();
    t.dlq.push(t.dlq[0]!);
    t.h.clock.advance(29 * DAY);
    await t.redrive(t.dlq.slice(0, 1));
    await t.run();
    const [letter] = await t.letters(alice);
    expect(letter?.unmarked).toBe(true);
    // The operator knows it never applied: redrives it with force, twice over.
    const { store, queue } = t.h.backend;
    const force = { force: true };
    await redriveDeadLetter(store, queue, alice, letter!.messageId, force);
    await t.run();
    await expect(
      redriveDeadLetter(store, queue, alice, letter!.messageId, force),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    t.h.clock.advance(10 * 60_000);
    await t.redrive(t.dlq.slice(1));
    await t.run();
    expect(await balance(t.h)).toBe(100);
    expect(await t.letters(alice)).toEqual([]);
  });
});
