/**
 * The conformance suite's scenarios of durable timers: each fires once when due and never once
 * cancelled, a store lists the due ones in a window, and a timer whose fire was dead-lettered is
 * kept out of the due ones until its redrive applies it, as is one whose fire was parked at its
 * paused actor until the resume applies it; a fire whose handler halts its actor leaves no timer
 * of it stored. `conformanceSuite` runs them among its own, under its describe.
 */
import {
  createEngine,
  fireDueTimers,
  HALT_TIMER_REMOVALS,
  pauseActor,
  redriveDeadLetter,
  resumeActor,
  timerFire,
  Worker,
} from '@baton/core/engine';
import { expect, it } from 'vitest';
import { Ledger, ledgerRuns } from './ledger.ts';
import type { StartScenario } from './turnScenario.ts';

/** Declares the timer scenarios, each begun by `start`. */
export function timerScenarios(start: StartScenario): void {
  it('fires each durable timer once when due, and never a cancelled one', async () => {
    const { b, client, run, state, engineOptions } = await start();
    const engine = createEngine(engineOptions);
    const ref = Ledger.ref('timers');
    await client.send(ref, 'remind', { entry: 'a', delay: 0, id: 'a' });
    await client.send(ref, 'remind', { entry: 'b', delay: 0, id: 'b' });
    await client.send(ref, 'remind', { entry: 'later', delay: 3_600_000, id: 'later' });
    await run();
    // Soonest first: `a` and `b` may be due in the same millisecond, in either order.
    const timers = (await b.store.listTimers(ref.id)).sort((x, y) => x.id.localeCompare(y.id));
    expect(timers.map((t) => t.id)).toEqual(['a', 'b', 'later']);
    await client.send(ref, 'remind', { entry: 'c', delay: 0, id: 'c', cancel: 'b' });
    await run();
    // Fired twice (the armed path and the sweeper), plus the cancelled one's fire.
    await b.pass(1);
    expect(await fireDueTimers(engine, b.clock.now())).toBe(2);
    expect(await fireDueTimers(engine, b.clock.now())).toBe(2);
    const cancelled = timerFire(timers[1]!);
    await b.queue.send([{ ...cancelled, dedupeId: 'late-copy' }]);
    await run();
    expect((await state(ref.id))?.entries.sort()).toEqual(['a', 'c']);
    expect((await b.store.listTimers(ref.id)).map((t) => t.id)).toEqual(['later']);
    expect(await b.store.listDueTimers(b.clock.now(), 10)).toEqual([]);
  });

  it('lists the timers due in a window: after its start, up to and with its end', async () => {
    const { b, client, run } = await start();
    const ref = Ledger.ref('timer-window');
    for (const hours of [1, 2, 3]) {
      await client.send(ref, 'remind', {
        entry: `h${hours}`,
        delay: hours * 3_600_000,
        id: `h${hours}`,
      });
    }
    await run();
    const at = new Map((await b.store.listTimers(ref.id)).map((t) => [t.id, t.at]));
    const [h1, h2, h3] = [at.get('h1')!, at.get('h2')!, at.get('h3')!];
    const ids = async (before: number, after?: number) =>
      (await b.store.listDueTimers(before, 10, after)).map((t) => t.id);
    expect(await ids(h3)).toEqual(['h1', 'h2', 'h3']);
    expect(await ids(h3, h1)).toEqual(['h2', 'h3']);
    expect(await ids(h2, h2 - 1)).toEqual(['h2']);
    expect(await ids(h2, h2)).toEqual([]);
    expect(await ids(h3 - 1, h1)).toEqual(['h2']);
  });

  it('keeps a timer whose fire was dead-lettered out of the due ones; its redrive applies it once, unless it was cancelled', async () => {
    const { b, client, run, state, engineOptions } = await start();
    const once = { ...engineOptions, maxAttempts: 1 };
    const engine = createEngine(once);
    const worker = new Worker(once);
    const ref = Ledger.ref('kept-fires');
    await client.send(ref, 'remind', { entry: 'kept', delay: 0, id: 'kept', failures: 1 });
    await client.send(ref, 'remind', { entry: 'dropped', delay: 0, id: 'dropped', failures: 1 });
    await run(worker);
    await b.pass(1);
    expect(await fireDueTimers(engine, b.clock.now())).toBe(2);
    await run(worker);
    const letters = await b.store.listDeadLetters(ref.id);
    expect(letters.map((l) => l.timer?.id).sort()).toEqual(['dropped', 'kept']);
    const timers = await b.store.listTimers(ref.id);
    expect(timers).toHaveLength(2);
    expect(timers.every((t) => t.deadLettered)).toBe(true);
    expect(await fireDueTimers(engine, b.clock.now() + 3_600_000)).toBe(0);

    await client.send(ref, 'remind', {
      entry: 'plain',
      delay: 0,
      id: 'plain',
      cancel: 'dropped',
    });
    await run(worker);
    await b.pass(1);
    // Due: the timer not fired yet, ahead of the older ones kept for their dead letters.
    const due = await b.store.listDueTimers(b.clock.now(), 1);
    expect(due.map((t) => t.id)).toEqual(['plain']);
    expect(await fireDueTimers(engine, b.clock.now())).toBe(1);
    await run(worker);
    for (const letter of letters) {
      await redriveDeadLetter(b.store, b.queue, ref.id, letter.messageId);
    }
    await run(worker);
    expect((await state(ref.id))?.entries).toEqual(['plain', 'kept']);
    expect(await b.store.listDeadLetters(ref.id)).toEqual([]);
    expect(await b.store.listTimers(ref.id)).toEqual([]);
  });

  it('keeps the timer of a fire parked at a paused actor, due no more: a cancel parked before the fire means it never runs', async () => {
    const { b, client, run, state, engineOptions } = await start();
    const engine = createEngine(engineOptions);
    const ref = Ledger.ref('parked-fires');
    await client.send(ref, 'remind', { entry: 'cancelled', delay: 0, id: 'cancelled' });
    await client.send(ref, 'remind', { entry: 'kept', delay: 0, id: 'kept' });
    await run();
    await pauseActor(b.store, b.queue, ref.id, { by: 'conformance', now: b.clock.now() });
    await run();
    // Parked ahead of both fires: a message that cancels one of them.
    await client.send(ref, 'remind', { delay: 0, cancel: 'cancelled' });
    await b.pass(1);
    expect(await fireDueTimers(engine, b.clock.now())).toBe(2);
    await run();
    expect((await b.store.listDeadLetters(ref.id)).filter((l) => l.parked)).toHaveLength(3);
    expect(await fireDueTimers(engine, b.clock.now() + 3_600_000)).toBe(0);

    await resumeActor(b.store, b.queue, ref.id, { by: 'conformance', now: b.clock.now() });
    await run();
    expect((await state(ref.id))?.entries).toEqual(['kept']);
    expect(await b.store.listDeadLetters(ref.id)).toEqual([]);
    expect(await b.store.listTimers(ref.id)).toEqual([]);
  });

  it('removes the fired timer in the commit of a fire whose handler halts, however many timers are due before it: the fire applied once, the actor fresh after it', async () => {
    const { b, client, run, state, engineOptions } = await start();
    const once = { ...engineOptions, maxAttempts: 1 };
    const engine = createEngine(once);
    const worker = new Worker(once);
    const ref = Ledger.ref('halting-fire');
    // As many timers as a halt removes, due before the one that halts: kept for their fires'
    // dead letters, never due again.
    for (let n = 0; n < HALT_TIMER_REMOVALS; n++) {
      await client.send(ref, 'remind', { entry: `k${n}`, delay: 0, id: `k${n}`, failures: 1 });
    }
    await run(worker);
    await b.pass(1);
    expect(await fireDueTimers(engine, b.clock.now())).toBe(HALT_TIMER_REMOVALS);
    await run(worker);
    expect(await b.store.listDeadLetters(ref.id)).toHaveLength(HALT_TIMER_REMOVALS);
    await client.send(ref, 'add', { entry: 'x', amount: 5 });
    await client.send(ref, 'remind', { delay: 0, id: 'end', closes: true });
    await run(worker);
    const end = (await b.store.listTimers(ref.id)).find((t) => t.id === 'end')!;
    const fire = timerFire(end);
    await b.pass(1);
    expect(await fireDueTimers(engine, b.clock.now())).toBe(1);
    await run(worker);
    const halted = await b.store.load(ref.id);
    expect(halted?.state).toEqual({ entries: [], total: 0 });
    expect(halted?.timerEpoch).toBe(1);
    expect(await b.store.listTimers(ref.id)).toEqual([]);
    // Nothing is left for a sweep to find, however late; a copy of the fire applies nothing.
    expect(await b.store.listDueTimers(b.clock.now() + 86_400_000, 10)).toEqual([]);
    await b.queue.send([{ ...fire, dedupeId: 'late-copy' }]);
    await run(worker);
    expect(ledgerRuns.close.get(fire.dedupeId)).toBe(1);
    expect((await b.store.load(ref.id))?.timerEpoch).toBe(1);

    // The actor starts again from its initial state; a timer it schedules, of the same id, fires.
    await client.send(ref, 'add', { entry: 'y', amount: 1 });
    await client.send(ref, 'remind', { entry: 'z', delay: 0, id: 'end' });
    await run(worker);
    await b.pass(1);
    expect(await fireDueTimers(engine, b.clock.now())).toBe(1);
    await run(worker);
    expect(await state(ref.id)).toEqual({ entries: ['y', 'z'], total: 2 });
    expect(await b.store.listTimers(ref.id)).toEqual([]);
  });
}
