/**
 * A dead letter outlives its actor's life: kept in a life that then ended (the actor halted, or
 * its record expired), a plain redrive refuses it, since applied it would change the actor's new
 * life by a message sent to the one that ended. Forced, it is applied to the new life, once.
 */
import { actor, ErrorCode, isBatonError, RetryableError } from '@baton/core';
import { ofEndedLife, redriveDeadLetter, redriveNeedsForce } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { setup } from './helpers.ts';

const bank = { down: false };
const Account = actor({
  name: 'acct',
  state: z.object({ balance: z.number(), log: z.array(z.string()) }),
  initial: () => ({ balance: 0, log: [] as string[] }),
  handlers: {
    deposit: {
      payload: z.object({ amount: z.number() }),
      handle: (ctx, { amount }) => {
        if (bank.down) throw new RetryableError('bank down');
        ctx.state.balance += amount;
        ctx.state.log.push(`+${amount}`);
      },
    },
    close: { payload: z.object({}), handle: (ctx) => ctx.halt() },
  },
});

/** A harness where `key`'s account took a deposit of 10, and keeps one of 100 as a dead letter. */
async function keptDeposit(key: string) {
  const h = setup({ actors: [Account] });
  const ref = Account.ref(key);
  await h.client.send(ref, 'deposit', { amount: 10 });
  await h.run();
  bank.down = true;
  await h.client.send(ref, 'deposit', { amount: 100 });
  await h.run();
  bank.down = false;
  const [letter] = await h.backend.store.listDeadLetters(ref.id);
  return { h, ref, letter: letter!, ...h.backend };
}

describe('a dead letter of a life that has ended', () => {
  it('is refused a plain redrive into the new life, and applied to it once when forced', async () => {
    const { h, ref, letter, store, queue } = await keptDeposit('alice');
    const first = await h.record(ref.id);
    expect(letter?.life).toBe(first?.life);
    expect(ofEndedLife(letter, first)).toBe(false);

    // The account is closed, its record expires, and a new account opens under the same id.
    await h.client.send(ref, 'close', {});
    await h.run();
    h.clock.set((await h.record(ref.id))!.expiresAt!);
    store.purgeExpired();
    expect(ofEndedLife(letter, await h.record(ref.id))).toBe(true);
    await h.client.send(ref, 'deposit', { amount: 5 });
    await h.run();
    const second = await h.record(ref.id);
    expect(second?.life).not.toBe(first?.life);
    expect(ofEndedLife(letter, second)).toBe(true);
    expect(redriveNeedsForce(letter)).toBe(false);
    // A letter an earlier Baton kept names no life: it is taken, as it was then.
    expect(ofEndedLife({ ...letter, life: undefined }, second)).toBe(false);

    const refused = await redriveDeadLetter(store, queue, ref.id, letter.messageId).catch(
      (error: unknown) => error,
    );
    expect(isBatonError(refused) && refused.code).toBe(ErrorCode.INVALID_STATE);
    expect((refused as Error).message).toContain(
      `it was kept in a life of ${ref.id} that has ended since (the actor halted, or it never applied a message and its record expired), so applied now it would change a new life of ${ref.id}`,
    );
    await h.run();
    expect(await h.state(ref.id)).toEqual({ balance: 5, log: ['+5'] });

    await redriveDeadLetter(store, queue, ref.id, letter.messageId, { force: true });
    await redriveDeadLetter(store, queue, ref.id, letter.messageId, { force: true });
    await h.run();
    expect(await h.state(ref.id)).toEqual({ balance: 105, log: ['+5', '+100'] });
    expect(await store.listDeadLetters(ref.id)).toEqual([]);
  });

  it('is refused a plain redrive once its actor halted, though opened again before its record expired', async () => {
    const { h, ref, letter: before, store, queue } = await keptDeposit('carol');

    // Closed, then opened again a day later: the record never expired, so the life is the same.
    await h.client.send(ref, 'close', {});
    await h.run();
    const closed = await h.record(ref.id);
    expect(ofEndedLife(before, closed)).toBe(true);
    h.clock.advance(86_400_000);
    await h.client.send(ref, 'deposit', { amount: 5 });
    await h.run();
    const reopened = await h.record(ref.id);
    expect(reopened?.life).toBe(closed?.life);
    expect(ofEndedLife(before, reopened)).toBe(true);
    await expect(redriveDeadLetter(store, queue, ref.id, before.messageId)).rejects.toThrow(
      `it was kept in a life of ${ref.id} that has ended since`,
    );
    await h.run();
    expect(await h.state(ref.id)).toEqual({ balance: 5, log: ['+5'] });

    // A letter kept after the halt is of the life that goes on: a plain redrive applies it once.
    bank.down = true;
    await h.client.send(ref, 'deposit', { amount: 7 });
    await h.run();
    bank.down = false;
    const after = (await store.listDeadLetters(ref.id)).find(
      (l) => l.messageId !== before.messageId,
    );
    expect(after?.epoch).toBe(1);
    expect(ofEndedLife(after!, await h.record(ref.id))).toBe(false);
    await redriveDeadLetter(store, queue, ref.id, after!.messageId);
    await h.run();
    expect(await h.state(ref.id)).toEqual({ balance: 12, log: ['+5', '+7'] });
  });

  it('is left kept when its actor halted between a plain redrive and its turn, and applied once when forced', async () => {
    const { h, ref, letter, store, queue } = await keptDeposit('dave');
    expect(letter.epoch).toBe(0);
    // The close waits in the actor's group already: the redrive, checked when sent, is taken.
    await h.client.send(ref, 'close', {});
    await redriveDeadLetter(store, queue, ref.id, letter.messageId);
    await h.run();
    expect(await h.state(ref.id)).toEqual({ balance: 0, log: [] });
    expect(await store.listDeadLetters(ref.id)).toEqual([letter]);
    // The account opened again; forced, the deposit is applied to it, once.
    await h.client.send(ref, 'deposit', { amount: 5 });
    await h.run();
    await redriveDeadLetter(store, queue, ref.id, letter.messageId, { force: true });
    await redriveDeadLetter(store, queue, ref.id, letter.messageId, { force: true });
    await h.run();
    expect(await h.state(ref.id)).toEqual({ balance: 105, log: ['+5', '+100'] });
  });

  it('names the life it was kept in when a forced redrive into a new life fails again', async () => {
    const { h, ref, letter, store, queue } = await keptDeposit('erin');
    await h.client.send(ref, 'close', {});
    await h.run();
    await redriveDeadLetter(store, queue, ref.id, letter.messageId, { force: true });
    bank.down = true;
    await h.run();
    bank.down = false;
    const [again] = await store.listDeadLetters(ref.id);
    expect(again).toMatchObject({ messageId: letter.messageId, life: letter.life, epoch: 0 });
    await h.client.send(ref, 'deposit', { amount: 5 });
    await h.run();
    expect(ofEndedLife(again!, await h.record(ref.id))).toBe(true);
    await expect(redriveDeadLetter(store, queue, ref.id, letter.messageId)).rejects.toThrow(
      'that has ended since',
    );
  });

  it('tells a letter kept by a Baton before epochs by its life alone', async () => {
    const { h, ref, letter } = await keptDeposit('frank');
    await h.client.send(ref, 'close', {});
    await h.run();
    await h.client.send(ref, 'deposit', { amount: 5 });
    await h.run();
    const record = await h.record(ref.id);
    expect(record?.timerEpoch).toBe(1);
    // Kept after the halt by that Baton: its life is the record's, which names no halt.
    const { epoch: _, ...before } = letter;
    expect(ofEndedLife(before, record)).toBe(false);
    expect(ofEndedLife({ ...before, life: 'another' }, record)).toBe(true);
  });

  it('is refused a plain redrive when its actor never applied a message, its record having expired as a halted one does', async () => {
    const h = setup({ actors: [Account] });
    const { store, queue } = h.backend;
    const ref = Account.ref('bob');
    bank.down = true;
    await h.client.send(ref, 'deposit', { amount: 100 });
    await h.run();
    bank.down = false;
    const [letter] = await store.listDeadLetters(ref.id);
    h.clock.set((await h.record(ref.id))!.expiresAt!);
    store.purgeExpired();
    await expect(redriveDeadLetter(store, queue, ref.id, letter!.messageId)).rejects.toThrow(
      'the actor halted, or it never applied a message and its record expired',
    );
    await redriveDeadLetter(store, queue, ref.id, letter!.messageId, { force: true });
    await h.run();
    expect(await h.state(ref.id)).toEqual({ balance: 100, log: ['+100'] });
  });
});
