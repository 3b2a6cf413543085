/**
 * An actor's messages to itself across time: copies redriven days later, and across its lives
 * (a halt, then a new life that counts its sends from 1 again). Every count is of what
 * committed state shows: a message applied twice shows twice.
 */
import { actor, RetryableError } from '@baton/core';
import { answeredSender, redriveDeadLetter } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { divertingApp as app, DAY, type Divert, nameOf } from './divertingInbox.ts';
import type { setup } from './helpers.ts';

const loopFaults = { bumpFails: false };

/** Counts the bumps it sends itself. */
const Looper = actor({
  name: 'looper',
  state: z.object({ bumps: z.number(), notes: z.array(z.string()) }),
  initial: () => ({ bumps: 0, notes: [] as string[] }),
  handlers: {
    kick: {
      payload: z.object({ note: z.string() }),
      handle: (ctx, { note }) => {
        ctx.send(ctx.self as never, 'bump' as never, { note } as never);
      },
    },
    bump: {
      payload: z.object({ note: z.string() }),
      handle: (ctx, { note }) => {
        if (loopFaults.bumpFails) throw new RetryableError('bump fails');
        ctx.state.bumps++;
        ctx.state.notes.push(note);
      },
    },
    /** Sends itself a bump and halts in the same turn. */
    kickAndEnd: {
      payload: z.object({ note: z.string() }),
      handle: (ctx, { note }) => {
        ctx.send(ctx.self as never, 'bump' as never, { note } as never);
        ctx.halt();
      },
    },
    end: { payload: z.object({}), handle: (ctx) => ctx.halt() },
  },
});
const looper = Looper.ref('l');
const loopState = async (h: ReturnType<typeof setup>) =>
  (await h.state(looper.id)) as { bumps: number; notes: string[] } | undefined;

/** Lets the halted record of `id` expire and the store delete it. */
async function expire(h: ReturnType<typeof setup>, id: string) {
  const expiresAt = (await h.record(id))?.expiresAt;
  expect(expiresAt).toBeDefined();
  h.clock.set(expiresAt! + 1);
  h.backend.store.purgeExpired();
  expect(await h.record(id)).toBeUndefined();
}

describe('an actor that sends to itself', () => {
  it('applies a bump to itself once when a copy of it is redriven 29 days later, after its mark for itself is gone', async () => {
    loopFaults.bumpFails = false;
    const divert = { fn: ((m) => (nameOf(m) === 'bump' ? 'copy' : undefined)) as Divert };
    const t = app([Looper], divert);
    await t.h.client.send(looper, 'kick', { note: 'a' });
    await t.run();
    expect(t.dlq.map(nameOf)).toEqual(['bump']);
    t.h.clock.advance(29 * DAY);
    await t.redrive(t.dlq);
    await t.run();
    // Exactly once: bumps === 1; the copy is kept as one too old to tell.
    expect((await loopState(t.h))?.bumps).toBe(1);
    expect((await t.letters(looper.id)).map((l) => l.envelope.payload)).toEqual([{ note: 'a' }]);
  });

  it("never applies an old life's bump to itself to its new life, which counts its sends from 1 again", async () => {
    loopFaults.bumpFails = false;
    const divert = { fn: ((m) => (nameOf(m) === 'bump' ? 'copy' : undefined)) as Divert };
    const t = app([Looper], divert);
    // Old life: bump 'old' applied (a copy waits in the DLQ), then the looper halts.
    await t.h.client.send(looper, 'kick', { note: 'old' });
    await t.run();
    await t.h.client.send(looper, 'end', {});
    await t.run();
    const oldLife = (await t.h.record(looper.id))!.life;
    await expire(t.h, looper.id);
    divert.fn = () => undefined;
    // New life: its first bump to itself is seq 1 again.
    await t.h.client.send(looper, 'kick', { note: 'new1' });
    await t.run();
    expect((await t.h.record(looper.id))!.life).not.toBe(oldLife);
    // The old life's copy comes now.
    await t.redrive(t.dlq);
    await t.run();
    await t.h.client.send(looper, 'kick', { note: 'new2' });
    await t.run();
    // The new life applied its own two bumps, exactly once each, and not the old life's.
    expect(await loopState(t.h)).toEqual({ bumps: 2, notes: ['new1', 'new2'] });
    expect((await t.letters(looper.id)).map((l) => l.envelope.payload)).toEqual([{ note: 'old' }]);
  });

  it("applies an old life's bump to itself, copied and redriven before the new life's first send, without skipping the new life's seq 1", async () => {
    loopFaults.bumpFails = false;
    const divert = { fn: ((m) => (nameOf(m) === 'bump' ? 'copy' : undefined)) as Divert };
    const t = app([Looper], divert);
    await t.h.client.send(looper, 'kickAndEnd', { note: 'old' }); // bump seq 1 of the old life
    await t.run();
    // The bump came after the halt: it revived the same life (bumps 1 of the reset state).
    expect(await loopState(t.h)).toEqual({ bumps: 1, notes: ['old'] });
    await t.h.client.send(looper, 'end', {});
    await t.run();
    await expire(t.h, looper.id);
    divert.fn = () => undefined;
    // The old copy reaches no record: a new life begins with it, and keeps it as too old.
    await t.redrive(t.dlq);
    await t.run();
    await t.h.client.send(looper, 'kick', { note: 'new1' }); // seq 1 of the new life
    await t.run();
    expect(await loopState(t.h)).toEqual({ bumps: 1, notes: ['new1'] });
    expect((await t.letters(looper.id)).map((l) => l.envelope.payload)).toEqual([{ note: 'old' }]);
  });

  it("applies once an old life's dead-lettered bump redriven into its new life, and keeps a later copy of it apart", async () => {
    loopFaults.bumpFails = true;
    const divert = { fn: ((m) => (nameOf(m) === 'bump' ? 'copy' : undefined)) as Divert };
    const t = app([Looper], divert, { maxAttempts: 1 });
    await t.h.client.send(looper, 'kick', { note: 'old' });
    await t.run();
    loopFaults.bumpFails = false;
    const [letter] = await t.letters(looper.id);
    expect(letter?.envelope.name).toBe('bump');
    await t.h.client.send(looper, 'end', {});
    await t.run();
    await expire(t.h, looper.id);
    divert.fn = () => undefined;
    await t.h.client.send(looper, 'kick', { note: 'new1' });
    await t.run();
    // The operator redrives the old life's letter into the new life: a plain send, but of a
    // life that has ended, so only with force.
    expect(answeredSender(letter!)).toBeUndefined();
    const { store, queue } = t.h.backend;
    await expect(redriveDeadLetter(store, queue, looper.id, letter!.messageId)).rejects.toThrow(
      /kept in a life of looper\/\S+ that has ended since/,
    );
    await redriveDeadLetter(store, queue, looper.id, letter!.messageId, { force: true });
    await t.run();
    expect(await loopState(t.h)).toEqual({ bumps: 2, notes: ['new1', 'old'] });
    // The copy of it from the queue's dead-letter queue, later: not applied a second time.
    t.h.clock.advance(10 * 60_000);
    await t.redrive(t.dlq);
    await t.run();
    await t.h.client.send(looper, 'kick', { note: 'new2' });
    await t.run();
    expect(await loopState(t.h)).toEqual({ bumps: 3, notes: ['new1', 'old', 'new2'] });
  });

  it('applies each bump to itself once when its channel to itself is reopened after 15 idle days and an older bump is redriven (twice)', async () => {
    loopFaults.bumpFails = false;
    const divert = { fn: ((m) => (nameOf(m) === 'bump' ? 'only' : undefined)) as Divert };
    const t = app([Looper], divert);
    await t.h.client.send(looper, 'kick', { note: 'b1' }); // to the DLQ, never delivered
    await t.run();
    divert.fn = () => undefined;
    t.h.clock.advance(15 * DAY); // the looper forgets its idle channel to itself
    await t.h.client.send(looper, 'kick', { note: 'b2' }); // prev 0 again
    await t.run();
    await t.redrive(t.dlq);
    await t.run();
    t.h.clock.advance(10 * 60_000);
    await t.redrive(t.dlq);
    await t.run();
    // Each applied once (order cannot hold across the dead-letter queue; none is lost).
    expect(await loopState(t.h)).toEqual({ bumps: 2, notes: ['b2', 'b1'] });
    expect(await t.letters(looper.id)).toEqual([]);
  });
});
