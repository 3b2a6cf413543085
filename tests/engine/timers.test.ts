/**
 * Durable timers on the embedded backend, with a virtual clock: each scheduling fires once when
 * due, a cancelled or replaced one never, whatever copies of its fire reach the inbox.
 */
import { actor, type BatonError, ErrorCode, RetryableError, TerminalError } from '@baton/core';
import type { Store, TimerQueue, TimerRef } from '@baton/core/adapter';
import {
  fireDueTimers,
  purgeDeadLetter,
  redriveDeadLetter,
  Sweeper,
  timerFire,
} from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { answered, racingReadTimer, setup } from './helpers.ts';

/** While set, a `flaky` reminder fails to ring (and, out of attempts, is dead-lettered). */
const bell = { down: false };

const Reminder = actor({
  name: 'reminder',
  state: z.object({ rang: z.array(z.string()) }),
  initial: () => ({ rang: [] as string[] }),
  handlers: {
    set: {
      payload: z.object({ note: z.string(), delay: z.number(), id: z.string().optional() }),
      handle: (ctx, { note, delay, id }) => ctx.schedule(delay, 'ring', { note }, id ? { id } : {}),
    },
    setAt: {
      payload: z.object({ note: z.string(), at: z.number() }),
      handle: (ctx, { note, at }) => ctx.schedule(new Date(at), 'ring', { note }),
    },
    cancel: {
      payload: z.object({ id: z.string() }),
      handle: (ctx, { id }) => ctx.cancel(id),
    },
    ring: {
      payload: z.object({ note: z.string() }),
      handle: (ctx, { note }) => {
        if (note === 'refuse') throw new TerminalError('this reminder refuses to ring');
        if (note === 'flaky' && bell.down) throw new RetryableError('the bell is down');
        ctx.state.rang.push(note);
      },
    },
    stop: {
      payload: z.object({}),
      handle: (ctx) => ctx.halt(),
    },
    /** Rings every second, `times` times: a timer that schedules its own id again. */
    repeat: {
      payload: z.object({ times: z.number() }),
      handle: (ctx, { times }) => {
        ctx.state.rang.push(`tick ${times}`);
        if (times > 1) ctx.schedule(1_000, 'repeat', { times: times - 1 }, { id: 'ticker' });
      },
    },
    misuse: {
      payload: z.object({
        how: z.enum(['negative', 'unknown', 'payload', 'id', 'long id', 'when', 'longest id']),
      }),
      handle: (ctx, { how }) => {
        const schedule = ctx.schedule as (...args: unknown[]) => unknown;
        if (how === 'negative') ctx.schedule(-1, 'ring', { note: 'x' });
        if (how === 'unknown') schedule(1, 'nope', {});
        if (how === 'payload') schedule(1, 'ring', { note: 5 });
        if (how === 'id') ctx.schedule(1, 'ring', { note: 'x' }, { id: '' });
        if (how === 'long id') ctx.schedule(1, 'ring', { note: 'x' }, { id: 'x'.repeat(257) });
        if (how === 'longest id')
          return ctx.schedule(1, 'ring', { note: 'x' }, { id: 'x'.repeat(256) }).id;
        if (how === 'when') schedule('soon', 'ring', { note: 'x' });
      },
    },
  },
});

const alice = Reminder.ref('alice');
const rang = async (h: ReturnType<typeof setup>) =>
  ((await h.state(alice.id)) as { rang: string[] } | undefined)?.rang ?? [];

/** Fires what is due now and runs the worker until the inbox is empty. */
async function fireAndRun(h: ReturnType<typeof setup>): Promise<number> {
  const fired = await fireDueTimers(h.engine, h.clock.now());
  await h.run();
  return fired;
}

/** A timer queue of reach `reachMs` that records the ids of the timers armed on it. */
function recordingTimers(reachMs: number, armed: string[]): TimerQueue {
  return {
    reachMs,
    arm: async (timers) => {
      for (const timer of timers) armed.push(timer.id);
    },
  };
}

describe('durable timers', () => {
  it('fire once when due, with the payload they were scheduled with, and are then gone', async () => {
    const h = setup({ actors: [Reminder] });
    const handle = await answered(h, h.client.ask(alice, 'set', { note: 'tea', delay: 60_000 }));
    expect(handle.at).toBe(h.clock.now() + 60_000);
    expect(await h.backend.store.listTimers(alice.id)).toMatchObject([
      { id: handle.id, at: handle.at, name: 'ring', payload: { note: 'tea' } },
    ]);

    h.clock.advance(59_999);
    expect(await fireAndRun(h)).toBe(0);
    expect(await rang(h)).toEqual([]);

    h.clock.advance(1);
    expect(await fireAndRun(h)).toBe(1);
    expect(await rang(h)).toEqual(['tea']);
    expect(await h.backend.store.listTimers(alice.id)).toEqual([]);
    // Fired again (the sweeper, a redelivery): nothing left to fire, nothing applied twice.
    expect(await fireAndRun(h)).toBe(0);
    expect(await rang(h)).toEqual(['tea']);
  });

  it('skip a copy of a fire that arrives after the timer was handled', async () => {
    const h = setup({ actors: [Reminder] });
    await answered(h, h.client.ask(alice, 'set', { note: 'tea', delay: 10 }));
    const [timer] = await h.backend.store.listTimers(alice.id);
    h.clock.advance(10);
    await fireAndRun(h);
    // The same fire under another dedupe id, as after the queue's dedupe window.
    const copy = timerFire(timer!);
    await h.backend.queue.send([{ ...copy, dedupeId: `${copy.dedupeId}-late` }]);
    await h.run();
    expect(await rang(h)).toEqual(['tea']);
  });

  it('apply two copies of one fire in one batch once', async () => {
    const h = setup({ actors: [Reminder] });
    await answered(h, h.client.ask(alice, 'set', { note: 'tea', delay: 10 }));
    const [timer] = await h.backend.store.listTimers(alice.id);
    const fire = timerFire(timer!);
    await h.backend.queue.send([fire, { ...fire, dedupeId: 'other' }]);
    await h.run();
    expect(await rang(h)).toEqual(['tea']);
  });

  it('take an absolute time as a Date', async () => {
    const h = setup({ actors: [Reminder] });
    const at = h.clock.now() + 3_600_000;
    expect((await answered(h, h.client.ask(alice, 'setAt', { note: 'lunch', at }))).at).toBe(at);
    h.clock.set(at);
    await fireAndRun(h);
    expect(await rang(h)).toEqual(['lunch']);
  });

  it('never fire once cancelled, even with the fire already in the inbox', async () => {
    const h = setup({ actors: [Reminder] });
    const early = await answered(h, h.client.ask(alice, 'set', { note: 'early', delay: 10 }));
    const late = await answered(h, h.client.ask(alice, 'set', { note: 'late', delay: 20 }));
    const [timer] = await h.backend.store.listTimers(alice.id);
    // The early fire is queued behind the cancel; the late timer is cancelled before it is due.
    await h.client.send(alice, 'cancel', { id: early.id });
    await h.backend.queue.send([timerFire(timer!)]);
    await h.client.send(alice, 'cancel', { id: late.id });
    await h.run();
    h.clock.advance(20);
    await fireAndRun(h);
    expect(await rang(h)).toEqual([]);
    expect(await h.backend.store.listTimers(alice.id)).toEqual([]);
    // Cancelling what is gone is a no-op.
    await expect(
      answered(h, h.client.ask(alice, 'cancel', { id: early.id })),
    ).resolves.toBeUndefined();
  });

  it('replace a timer scheduled again under the same id: only the last scheduling fires', async () => {
    const h = setup({ actors: [Reminder] });
    await answered(h, h.client.ask(alice, 'set', { note: 'first', delay: 10, id: 'nudge' }));
    const [first] = await h.backend.store.listTimers(alice.id);
    await answered(h, h.client.ask(alice, 'set', { note: 'second', delay: 50, id: 'nudge' }));
    const timers = await h.backend.store.listTimers(alice.id);
    expect(timers).toHaveLength(1);
    expect(timers[0]).toMatchObject({ id: 'nudge', payload: { note: 'second' } });
    expect(timers[0]!.gen).not.toBe(first!.gen);
    // The first scheduling's fire arrives anyway: skipped, and the second stays scheduled.
    await h.backend.queue.send([timerFire(first!)]);
    await h.run();
    expect(await rang(h)).toEqual([]);
    expect(await h.backend.store.listTimers(alice.id)).toEqual(timers);
    h.clock.advance(50);
    await fireAndRun(h);
    expect(await rang(h)).toEqual(['second']);
  });

  it('let a fired timer schedule its own id again (a repeating timer)', async () => {
    const h = setup({ actors: [Reminder] });
    await answered(h, h.client.ask(alice, 'repeat', { times: 3 }));
    for (let i = 0; i < 5; i++) {
      h.clock.advance(1_000);
      await fireAndRun(h);
    }
    expect(await rang(h)).toEqual(['tick 3', 'tick 2', 'tick 1']);
    expect(await h.backend.store.listTimers(alice.id)).toEqual([]);
  });

  it('keep many timers per actor, each firing once, soonest first', async () => {
    const h = setup({ actors: [Reminder] });
    for (let i = 30; i > 0; i--) await h.client.send(alice, 'set', { note: `n${i}`, delay: i });
    await h.run();
    expect(await h.backend.store.listTimers(alice.id)).toHaveLength(30);
    h.clock.advance(30);
    expect(await fireAndRun(h)).toBe(30);
    expect(await rang(h)).toEqual(Array.from({ length: 30 }, (_, i) => `n${i + 1}`));
  });

  it('remove a timer whose handler rejects the fire: it is not fired again', async () => {
    const h = setup({ actors: [Reminder] });
    await answered(h, h.client.ask(alice, 'set', { note: 'refuse', delay: 10 }));
    h.clock.advance(10);
    await fireAndRun(h);
    expect(await h.backend.store.listTimers(alice.id)).toEqual([]);
    expect(await fireAndRun(h)).toBe(0);
  });

  it('are armed after commit; one whose arming failed is fired by the sweeper', async () => {
    const armed: TimerRef[] = [];
    const failing: TimerQueue = {
      arm: async (timers) => {
        armed.push(...timers);
        throw new Error('arming is down');
      },
    };
    const h = setup({ actors: [Reminder] });
    const engine = { ...h.engine, timers: failing };
    const { Worker } = await import('@baton/core/engine');
    const worker = new Worker(engine);
    await h.client.send(alice, 'set', { note: 'tea', delay: 10 });
    await worker.poll();
    expect(armed).toMatchObject([{ actorId: alice.id, name: 'ring', at: h.clock.now() + 10 }]);
    // Committed all the same; the sweeper leaves it alone inside its grace, then fires it.
    const sweeper = new Sweeper(engine, { timerGraceMs: 60_000 });
    h.clock.advance(10);
    expect((await sweeper.sweep()).timersFired).toBe(0);
    h.clock.advance(60_000);
    expect((await sweeper.sweep()).timersFired).toBe(1);
    await h.run();
    expect(await rang(h)).toEqual(['tea']);
  });

  it('due past the timer queue’s reach are armed by the sweeper once within it, by one sweep or two', async () => {
    const REACH = 15 * 60_000;
    const armings: { at: number; now: number }[] = [];
    const h = setup({ actors: [Reminder] });
    const recording: TimerQueue = {
      reachMs: REACH,
      arm: async (timers) => {
        for (const timer of timers) armings.push({ at: timer.at, now: h.clock.now() });
      },
    };
    const engine = { ...h.engine, timers: recording };
    const { Worker } = await import('@baton/core/engine');
    const worker = new Worker(engine);
    const days = 3 * 24 * 3_600_000;
    await h.client.send(alice, 'set', { note: 'soon', delay: REACH, id: 'soon' });
    await h.client.send(alice, 'set', { note: 'later', delay: days, id: 'later' });
    while ((await worker.poll()) > 0);
    // The turn armed the timer within reach, and left the other in the table.
    const start = h.clock.now();
    expect(armings).toEqual([{ at: start + REACH, now: start }]);
    armings.length = 0;

    // A sweep a minute, one of them missed, until the later timer is due.
    const sweeper = new Sweeper(engine);
    let sweeps = 0;
    while (h.clock.now() < start + days) {
      h.clock.advance(60_000);
      if (h.clock.now() === start + days - REACH) continue; // missed
      sweeps++;
      await sweeper.sweep();
    }
    expect(sweeps).toBeGreaterThan(4_000);
    // Armed by the two sweeps around the moment it came within reach (one of them missed),
    // each arming within reach; the soon timer, armed by the turn, never again.
    expect(armings.length).toBeGreaterThanOrEqual(1);
    expect(armings.length).toBeLessThanOrEqual(2);
    for (const { at, now } of armings) {
      expect(at).toBe(start + days);
      expect(at - now).toBeLessThanOrEqual(REACH);
      expect(at - now).toBeGreaterThan(REACH - 2 * 60_000);
    }
  });

  it('coming within reach by the thousand, are armed once each, over pages whose bounds share a due time', async () => {
    const REACH = 15 * 60_000;
    const armed: string[] = [];
    const h = setup({ actors: [Reminder], batchSize: 10 });
    const recording = recordingTimers(REACH, armed);
    const engine = { ...h.engine, timers: recording };
    const { Worker } = await import('@baton/core/engine');
    const worker = new Worker(engine);
    const days = 3 * 24 * 3_600_000;
    const count = 1_200;
    // Seven at each due time: a page of 500 ends inside a run of equal ones.
    for (let i = 0; i < count; i++) {
      const delay = days + Math.floor(i / 7);
      await h.client.send(alice, 'set', { note: `n${i}`, delay, id: `t${i}` });
    }
    // One scheduled exactly the reach ahead: its turn arms it, the sweeper never.
    await h.client.send(alice, 'set', { note: 'edge', delay: REACH, id: 'edge' });
    while ((await worker.poll()) > 0);
    expect(armed).toEqual(['edge']);
    armed.length = 0;

    h.clock.advance(days - REACH + 1_000);
    const swept = await new Sweeper(engine).sweep();
    expect(swept.timersArmed).toBe(count);
    expect(armed).toHaveLength(count);
    expect(new Set(armed).size).toBe(count);
  });

  it('overdue by the thousand, are fired once each by one sweep, over pages whose bounds share a due time', async () => {
    const h = setup({ actors: [Reminder], batchSize: 10 });
    const count = 1_200;
    for (let i = 0; i < count; i++) {
      const delay = 60_000 + Math.floor(i / 7);
      await h.client.send(alice, 'set', { note: `n${i}`, delay, id: `t${i}` });
    }
    await h.run();
    // No timer queue: the sweeper fires them, every one in one sweep.
    h.clock.advance(2 * 60_000);
    expect((await new Sweeper(h.engine).sweep()).timersFired).toBe(count);
    await h.run();
    const notes = await rang(h);
    expect(notes).toHaveLength(count);
    expect(new Set(notes).size).toBe(count);
  });

  it('due by the hundreds in one millisecond, are fired a page a sweep, never in an endless loop', async () => {
    const h = setup({ actors: [Reminder], batchSize: 10 });
    for (let i = 0; i < 600; i++) {
      await h.client.send(alice, 'set', { note: `n${i}`, delay: 60_000, id: `t${i}` });
    }
    await h.run();
    h.clock.advance(2 * 60_000);
    // A page of 500 ties, then a page of the same ones again: none fresh, so the sweep stops.
    expect((await new Sweeper(h.engine).sweep()).timersFired).toBe(500);
    await h.run();
    expect((await new Sweeper(h.engine).sweep()).timersFired).toBe(100);
    await h.run();
    expect(new Set(await rang(h)).size).toBe(600);
  });

  it('coming within reach faster than a sweep has time for, are armed a page at least, the rest by the next sweeps', async () => {
    const REACH = 15 * 60_000;
    const armed: string[] = [];
    const h = setup({ actors: [Reminder], batchSize: 10 });
    const recording = recordingTimers(REACH, armed);
    // Each page the store lists takes a second.
    const slow = new Proxy(h.backend.store, {
      get: (target, prop) => {
        const value = Reflect.get(target, prop, target);
        if (prop !== 'listDueTimers')
          return typeof value === 'function' ? value.bind(target) : value;
        return (...args: Parameters<Store['listDueTimers']>) => {
          h.clock.advance(1_000);
          return target.listDueTimers(...args);
        };
      },
    });
    const engine = { ...h.engine, store: slow, timers: recording };
    const days = 3 * 24 * 3_600_000;
    const count = 1_200;
    for (let i = 0; i < count; i++) {
      await h.client.send(alice, 'set', { note: `n${i}`, delay: days + i, id: `t${i}` });
    }
    await h.run();
    h.clock.advance(days - REACH + 60_000);

    // Half a second: the first page, the soonest 500; then none of the outboxes' time is left.
    const hurried = await new Sweeper(engine).sweep({ budgetMs: 500 });
    expect(hurried.timersArmed).toBe(500);
    expect(armed).toEqual(Array.from({ length: 500 }, (_, i) => `t${i}`));
    // The next sweep, given the time, arms them all (the first 500 again: their window overlaps).
    armed.length = 0;
    expect((await new Sweeper(engine).sweep()).timersArmed).toBe(count);
    expect(new Set(armed).size).toBe(count);
  });

  it('refuse a bad schedule in the handler that made it, with a clear error, keeping its message for a fix', async () => {
    const h = setup({ actors: [Reminder] });
    const cases = [
      ['negative', ErrorCode.INVALID_ARGUMENT, /delay ≥ 0 ms/],
      ['unknown', ErrorCode.UNKNOWN_MESSAGE, /no handler "nope"/],
      ['payload', ErrorCode.INVALID_PAYLOAD, /note/],
      ['id', ErrorCode.INVALID_ARGUMENT, /timer id must be a non-empty string/],
      ['long id', ErrorCode.INVALID_ARGUMENT, /at most 256 characters/],
      ['when', ErrorCode.INVALID_ARGUMENT, /needs a delay ≥ 0 ms or a valid Date, got "soon"/],
    ] as const;
    for (const [how, code, message] of cases) {
      const error = (await answered(h, h.client.ask(alice, 'misuse', { how })).catch(
        (e) => e,
      )) as BatonError;
      expect(error.code, how).toBe(ErrorCode.DEAD_LETTERED);
      expect(error.details.cause, how).toMatchObject({ code });
      expect(error.message, how).toMatch(message);
    }
    expect(await h.backend.store.listTimers(alice.id)).toEqual([]);
    expect(await h.backend.store.listDeadLetters(alice.id)).toHaveLength(cases.length);
    const longest = await answered(h, h.client.ask(alice, 'misuse', { how: 'longest id' }));
    expect(longest).toBe('x'.repeat(256));
  });
});

describe('a timer whose fire was dead-lettered', () => {
  /** Schedules a `flaky` ring as `nudge`, due now, and dead-letters its fire (one attempt). */
  async function deadLetteredFire() {
    const h = setup({ actors: [Reminder], maxAttempts: 1 });
    await answered(h, h.client.ask(alice, 'set', { note: 'flaky', delay: 0, id: 'nudge' }));
    const [timer] = await h.backend.store.listTimers(alice.id);
    bell.down = true;
    await fireAndRun(h);
    bell.down = false;
    const letters = await h.backend.store.listDeadLetters(alice.id);
    expect(letters).toMatchObject([{ timer: { id: 'nudge', gen: timer!.gen } }]);
    const redrive = () =>
      redriveDeadLetter(h.backend.store, h.backend.queue, alice.id, letters[0]!.messageId);
    return { h, timer: timer!, letter: letters[0]!, redrive };
  }

  it('stays stored, marked, and is never due again: only a redrive applies the fire, once', async () => {
    const { h, timer, redrive } = await deadLetteredFire();
    expect(await h.backend.store.listTimers(alice.id)).toMatchObject([
      { id: 'nudge', gen: timer.gen, deadLettered: true },
    ]);
    expect(await h.backend.store.listDueTimers(Number.POSITIVE_INFINITY, 10)).toEqual([]);
    // A copy of the first fire (the sweeper's, an armed one) waits for the redrive too.
    await h.backend.queue.send([{ ...timerFire(timer), dedupeId: 'late-copy' }]);
    await h.run();
    expect(await rang(h)).toEqual([]);

    await redrive();
    await h.run();
    expect(await rang(h)).toEqual(['flaky']);
    expect(await h.backend.store.listTimers(alice.id)).toEqual([]);
    expect(await h.backend.store.listDeadLetters(alice.id)).toEqual([]);
    await expect(redrive()).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
  });

  it('cancelled before the redrive: the redrive applies nothing and forgets the dead letter', async () => {
    const { h, redrive } = await deadLetteredFire();
    await answered(h, h.client.ask(alice, 'cancel', { id: 'nudge' }));
    expect(await h.backend.store.listTimers(alice.id)).toEqual([]);
    await redrive();
    await h.run();
    expect(await rang(h)).toEqual([]);
    expect(await h.backend.store.listDeadLetters(alice.id)).toEqual([]);
  });

  it('scheduled anew before the redrive: the new scheduling fires, the old fire never', async () => {
    const { h, redrive } = await deadLetteredFire();
    await answered(h, h.client.ask(alice, 'set', { note: 'again', delay: 50, id: 'nudge' }));
    await redrive();
    await h.run();
    expect(await rang(h)).toEqual([]);
    expect(await h.backend.store.listDeadLetters(alice.id)).toEqual([]);
    h.clock.advance(50);
    await fireAndRun(h);
    expect(await rang(h)).toEqual(['again']);
  });

  it('halted before the redrive: the redrive applies nothing and the timer goes', async () => {
    const { h, redrive } = await deadLetteredFire();
    // Timers due sooner than it (in the past): the halt removes those, and leaves it to be
    // voided by the redrive (a halt counts the timers' epoch up).
    const past = h.clock.now() - 1_000;
    for (let i = 0; i < 25; i++) await h.client.send(alice, 'setAt', { note: `n${i}`, at: past });
    await h.run();
    await answered(h, h.client.ask(alice, 'stop', {}));
    expect(await h.backend.store.listTimers(alice.id)).toMatchObject([{ id: 'nudge' }]);
    await redrive();
    await h.run();
    expect(await rang(h)).toEqual([]);
    expect(await h.backend.store.listDeadLetters(alice.id)).toEqual([]);
    expect(await h.backend.store.listTimers(alice.id)).toEqual([]);
  });

  it('purged: the timer goes with its dead letter', async () => {
    const { h, letter } = await deadLetteredFire();
    await purgeDeadLetter(h.backend.store, alice.id, letter.messageId, { by: 'ops' });
    expect(await h.backend.store.listTimers(alice.id)).toEqual([]);
    expect(await h.backend.store.listDeadLetters(alice.id)).toEqual([]);
  });

  it('scheduled anew while the purge reads the timer: the new scheduling stays and fires', async () => {
    const { h, timer, letter } = await deadLetteredFire();
    // The app schedules `nudge` again just after the purge has read the kept timer.
    let raced = false;
    const store = racingReadTimer(h.backend.store, async () => {
      raced = true;
      await answered(h, h.client.ask(alice, 'set', { note: 'again', delay: 50, id: 'nudge' }));
    });
    await purgeDeadLetter(store, alice.id, letter.messageId, { by: 'ops' });
    expect(raced).toBe(true);
    expect(await h.backend.store.listDeadLetters(alice.id)).toEqual([]);
    const [anew] = await h.backend.store.listTimers(alice.id);
    expect(anew).toMatchObject({ id: 'nudge' });
    expect(anew?.gen).not.toBe(timer.gen);
    expect(anew?.deadLettered).toBeUndefined();
    h.clock.advance(50);
    await fireAndRun(h);
    expect(await rang(h)).toEqual(['again']);
  });
});
