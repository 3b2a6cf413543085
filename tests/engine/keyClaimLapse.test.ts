/**
 * A client's keyed message kept as a dead letter outlives the claim of its key (twice the
 * outcomes' retention from its send): a message sent under the key after that is taken as a new
 * one, under the same id — the same deposit sent again, maybe, and applied. A plain redrive of
 * the letter then refuses it as too old to tell whether it was applied, so the deposit is not
 * applied twice unless an operator who checked forces it. An unkeyed message's letter has no
 * claim to lapse.
 */
import { actor, ErrorCode, RetryableError } from '@baton/core';
import { keyClaimLapsed, redriveDeadLetter, redriveNeedsForce } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { setup } from './helpers.ts';

const DAY = 86_400_000;
const bank = { down: false };
const Account = actor({
  name: 'acct',
  state: z.object({ log: z.array(z.number()) }),
  initial: () => ({ log: [] as number[] }),
  handlers: {
    deposit: {
      payload: z.object({ amount: z.number() }),
      handle: (ctx, { amount }) => {
        if (bank.down) throw new RetryableError('bank down');
        ctx.state.log.push(amount);
      },
    },
  },
});

/** A harness whose account keeps, as a dead letter, one deposit of 100 under `key` (if any). */
async function keptDeposit(key?: string) {
  const h = setup({ actors: [Account] });
  const ref = Account.ref('alice');
  bank.down = true;
  await h.client.send(ref, 'deposit', { amount: 100 }, key ? { idempotencyKey: key } : {});
  await h.run();
  bank.down = false;
  const [letter] = await h.backend.store.listDeadLetters(ref.id);
  return { h, ref, letter: letter! };
}

describe("a client's dead letter whose key's claim lapsed", () => {
  it('is refused a plain redrive after a deposit under its key was taken as new, and applied once', async () => {
    const { h, ref, letter } = await keptDeposit('K');
    const { store, queue } = h.backend;
    const sentAt = letter.envelope.sentAt;
    // The claim holds the key twice the retention (14 days by default) from the send.
    expect(letter.envelope.keyHeldUntil).toBe(sentAt + 28 * DAY);
    h.clock.advance(20 * DAY);
    expect(keyClaimLapsed(letter, h.clock.now())).toBe(false);

    // Day 29: the claim lapsed; the same deposit, sent again under K, is a new message.
    h.clock.advance(9 * DAY);
    const again = await h.client.send(ref, 'deposit', { amount: 100 }, { idempotencyKey: 'K' });
    expect(again.messageId).toBe(letter.messageId);
    await h.run();
    expect(await h.state(ref.id)).toEqual({ log: [100] });

    // Not as the engine kept it: as old since.
    expect(redriveNeedsForce(letter)).toBe(false);
    expect(keyClaimLapsed(letter, h.clock.now())).toBe(true);
    // The store tells it by its own clock: no claim holds the key now but the new send's.
    const refused = await redriveDeadLetter(store, queue, ref.id, letter.messageId).catch(
      (error: unknown) => error,
    );
    expect(refused).toMatchObject({
      code: ErrorCode.INVALID_STATE,
      message: expect.stringContaining(
        "or the claim of its client's key has lapsed since, so a message sent under that key again was taken as new",
      ),
    });
    await h.run();
    expect(await h.state(ref.id)).toEqual({ log: [100] });
    expect(await store.listDeadLetters(ref.id)).toHaveLength(1);
  });

  it('is refused a plain redrive once its claim lapsed, though no message was sent under its key since', async () => {
    const { h, ref, letter } = await keptDeposit('K');
    const until = letter.envelope.keyHeldUntil!;
    // As the store tells a claim past: at its end.
    expect(keyClaimLapsed(letter, until - 1)).toBe(false);
    expect(keyClaimLapsed(letter, until)).toBe(true);
    h.clock.set(until);
    await expect(
      redriveDeadLetter(h.backend.store, h.backend.queue, ref.id, letter.messageId),
    ).rejects.toMatchObject({ code: ErrorCode.INVALID_STATE, details: { tooOldToTell: true } });
    await redriveDeadLetter(h.backend.store, h.backend.queue, ref.id, letter.messageId, {
      force: true,
    });
    await h.run();
    expect(await h.state(ref.id)).toEqual({ log: [100] });
  });

  it("is an unkeyed message's letter: no claim lapses, and a plain redrive applies it once", async () => {
    const { h, ref, letter } = await keptDeposit();
    expect(letter.envelope.keyHeldUntil).toBeUndefined();
    h.clock.advance(60 * DAY);
    expect(keyClaimLapsed(letter, h.clock.now())).toBe(false);
    await redriveDeadLetter(h.backend.store, h.backend.queue, ref.id, letter.messageId);
    await h.run();
    expect(await h.state(ref.id)).toEqual({ log: [100] });
  });
});
