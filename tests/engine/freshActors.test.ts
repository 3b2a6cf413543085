/**
 * A message to an actor nobody used before that leaves it as new — rejected, dead-lettered,
 * failing, or applied without changing its state or setting a timer — commits a record that
 * expires as a halted actor's does, rather than one kept for good. Its outcome is kept until
 * then; a later message that changes the state makes the record an ordinary one again.
 */
import { actor, ErrorCode, TerminalError } from '@baton/core';
import { pauseActor, purgeDeadLetter, resumeActor } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { answered, type Harness, settled, setup } from './helpers.ts';

let failures = 0;

const Locker = actor({
  name: 'locker',
  state: z.object({ items: z.array(z.string()) }),
  initial: () => ({ items: [] as string[] }),
  handlers: {
    put: {
      payload: z.object({ item: z.string() }),
      handle: (ctx, { item }) => {
        ctx.state.items.push(item);
      },
    },
    /** Refuses every caller: a forged token, a wrong code. */
    open: {
      payload: z.object({ code: z.string() }),
      handle: () => {
        throw new TerminalError('wrong code');
      },
    },
    /** Applied, changes nothing. */
    knock: { payload: z.object({}), handle: () => 'nobody home' },
    /** Applied, changes nothing but a timer. */
    remind: {
      payload: z.object({}),
      handle: (ctx) => {
        ctx.schedule(60_000, 'knock', {});
      },
    },
    /** Fails, to be retried, `failures` times; then puts the item. */
    flaky: {
      payload: z.object({ item: z.string() }),
      handle: (ctx, { item }) => {
        if (failures-- > 0) throw new Error('downstream unavailable');
        ctx.state.items.push(item);
      },
    },
  },
});

const locker = Locker.ref('l1');

async function expiry(h: Harness): Promise<number | undefined> {
  return (await h.record(locker.id))?.expiresAt;
}

/** When the record of an actor halted at `at` may go: twice the mark retention later. */
function halted(h: Harness, at: number): number {
  return at + 2 * h.engine.markRetentionMs;
}

describe("an actor's first record", () => {
  it('expires as a halted one when its message is rejected, keeping the outcome until then', async () => {
    const h = setup({ actors: [Locker] });
    const sentAt = h.clock.now();
    const first = settled(
      h.client.ask(locker, 'open', { code: 'guess' }, { idempotencyKey: 'try-1' }),
    );
    await h.run();
    expect(await first).toMatchObject({ ok: false, error: { code: ErrorCode.REJECTED } });
    expect(await expiry(h)).toBe(halted(h, sentAt));

    // Until then the key is bound to its outcome: asked again, the handler does not run.
    const again = await settled(
      h.client.ask(locker, 'open', { code: 'guess' }, { idempotencyKey: 'try-1' }),
    );
    expect(again).toMatchObject({ ok: false, error: { message: 'wrong code' } });

    // Another rejection keeps it expiring, a retention after the latest.
    h.clock.advance(86_400_000);
    await h.client.send(locker, 'open', { code: 'guess' });
    await h.run();
    expect(await expiry(h)).toBe(halted(h, h.clock.now()));

    h.clock.set((await expiry(h))!);
    h.backend.store.purgeExpired();
    expect(await h.record(locker.id)).toBeUndefined();
  });

  it('expires when its message is applied but leaves the state as it was', async () => {
    const h = setup({ actors: [Locker] });
    expect(await answered(h, h.client.ask(locker, 'knock', {}))).toBe('nobody home');
    expect(await expiry(h)).toBe(halted(h, h.clock.now()));
  });

  it('is an ordinary record when its first message changes the state or sets a timer', async () => {
    const h = setup({ actors: [Locker] });
    await h.client.send(locker, 'put', { item: 'coat' });
    await h.client.send(Locker.ref('l2'), 'remind', {});
    await h.run();
    expect(await h.state(locker.id)).toEqual({ items: ['coat'] });
    expect(await expiry(h)).toBeUndefined();
    expect(await h.backend.store.listTimers(Locker.ref('l2').id)).toHaveLength(1);
    expect((await h.record(Locker.ref('l2').id))?.expiresAt).toBeUndefined();
  });

  it('is revived, in the same life, by a later message that changes the state', async () => {
    const h = setup({ actors: [Locker] });
    await h.client.send(locker, 'open', { code: 'guess' });
    await h.run();
    const life = (await h.record(locker.id))?.life;
    expect(await expiry(h)).toBeDefined();

    await h.client.send(locker, 'put', { item: 'coat' });
    await h.run();
    const record = await h.record(locker.id);
    expect(record).toMatchObject({ life, state: { items: ['coat'] } });
    expect(record?.expiresAt).toBeUndefined();
  });

  it('does not expire when a message of the same batch changed the state before a rejection', async () => {
    const h = setup({ actors: [Locker], batchSize: 10 });
    await h.client.send(locker, 'put', { item: 'coat' });
    await h.client.send(locker, 'open', { code: 'guess' });
    expect(await h.run()).toBe(1);
    expect(await h.state(locker.id)).toEqual({ items: ['coat'] });
    expect(await expiry(h)).toBeUndefined();
  });

  it('expires while its first message fails, and is an ordinary record once it is applied', async () => {
    const h = setup({ actors: [Locker], maxAttempts: 3 });
    failures = 1;
    await h.client.send(locker, 'flaky', { item: 'coat' });
    // The failed attempt's count is the record's only content: it expires.
    await h.worker.poll();
    expect((await h.record(locker.id))?.failing?.attempts).toBe(1);
    expect(await expiry(h)).toBe(halted(h, h.clock.now()));

    await h.run();
    expect(await h.state(locker.id)).toEqual({ items: ['coat'] });
    expect(await expiry(h)).toBeUndefined();
  });
});

describe('a paused actor whose record was to expire', () => {
  it('keeps its pause and its parked messages however long the pause lasts', async () => {
    const h = setup({ actors: [Locker] });
    await h.client.send(locker, 'open', { code: 'guess' });
    await h.run();
    expect(await expiry(h)).toBeDefined();

    await pauseActor(h.backend.store, h.backend.queue, locker.id, {
      by: 'ops',
      now: h.clock.now(),
    });
    await h.client.send(locker, 'put', { item: 'coat' });
    await h.run();
    expect(await h.record(locker.id)).toMatchObject({ parked: 1, paused: { by: 'ops' } });

    // Two months on, past its expiry, the paused record is still there to resume.
    h.clock.advance(60 * 86_400_000);
    expect(await expiry(h)).toBeLessThan(h.clock.now());
    h.backend.store.purgeExpired();
    await resumeActor(h.backend.store, h.backend.queue, locker.id, {
      by: 'ops',
      now: h.clock.now(),
    });
    // Resumed, it still holds its parked message: not deleted until that is applied.
    h.backend.store.purgeExpired();
    await h.client.send(locker, 'put', { item: 'hat' });
    await h.run();
    expect(await h.state(locker.id)).toEqual({ items: ['coat', 'hat'] });
    expect(await h.backend.store.listDeadLetters(locker.id)).toEqual([]);
    // Its state changed: an ordinary record now.
    expect(await expiry(h)).toBeUndefined();
  });

  it('is halted still once resumed, and expires after what it does not apply', async () => {
    const h = setup({ actors: [Locker] });
    await h.client.send(locker, 'open', { code: 'guess' });
    await h.run();
    const ops = { by: 'ops', now: h.clock.now() };
    await pauseActor(h.backend.store, h.backend.queue, locker.id, ops);
    await resumeActor(h.backend.store, h.backend.queue, locker.id, ops);
    await h.run();
    h.clock.advance(86_400_000);
    await h.client.send(locker, 'open', { code: 'again' });
    await h.run();
    expect(await expiry(h)).toBe(halted(h, h.clock.now()));
    h.clock.set((await expiry(h))!);
    h.backend.store.purgeExpired();
    expect(await h.record(locker.id)).toBeUndefined();
  });
});

describe("an operator's change to an actor with no record", () => {
  it('leaves a record that expires once it holds nothing: a pause and resume', async () => {
    const h = setup({ actors: [Locker] });
    const ops = { by: 'ops', now: h.clock.now() };
    await pauseActor(h.backend.store, h.backend.queue, locker.id, ops);
    h.clock.advance(86_400_000);
    h.backend.store.purgeExpired();
    expect(await h.record(locker.id)).toMatchObject({ paused: { by: 'ops' } });
    await resumeActor(h.backend.store, h.backend.queue, locker.id, ops);
    await h.run();
    h.backend.store.purgeExpired();
    expect(await h.record(locker.id)).toBeUndefined();
  });

  it('leaves a record that expires: the purge of a dead letter kept past its record', async () => {
    const h = setup({ actors: [Locker], maxAttempts: 1 });
    failures = 5;
    await h.client.send(locker, 'flaky', { item: 'coat' });
    await h.run();
    const [letter] = await h.backend.store.listDeadLetters(locker.id);
    expect(letter).toBeDefined();
    h.clock.set((await expiry(h))!);
    h.backend.store.purgeExpired();
    expect(await h.record(locker.id)).toBeUndefined();

    await purgeDeadLetter(h.backend.store, locker.id, letter!.messageId, {
      by: 'ops',
      now: h.clock.now(),
    });
    expect(await h.backend.store.listDeadLetters(locker.id)).toEqual([]);
    h.backend.store.purgeExpired();
    expect(await h.record(locker.id)).toBeUndefined();
  });
});
