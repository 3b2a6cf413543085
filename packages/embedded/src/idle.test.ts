import { actor, silentLogger } from '@baton/core';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { type EmbeddedRuntime, startEmbedded } from './startEmbedded.ts';

const Log = actor({
  name: 'log',
  state: z.object({ lines: z.array(z.string()) }),
  initial: () => ({ lines: [] as string[] }),
  handlers: {
    write: {
      payload: z.object({ line: z.string() }),
      handle: (ctx, { line }) => {
        ctx.state.lines.push(line);
      },
    },
  },
});

/** Schedules a tick; each tick writes to the log, and schedules the next while `left` > 0. */
const Ticker = actor({
  name: 'ticker',
  state: z.object({}),
  initial: () => ({}),
  handlers: {
    start: {
      payload: z.object({ inMs: z.number(), left: z.number() }),
      handle: (ctx, { inMs, left }) => {
        ctx.schedule(inMs, 'tick', { inMs, left });
      },
    },
    tick: {
      payload: z.object({ inMs: z.number(), left: z.number() }),
      handle: (ctx, { inMs, left }) => {
        ctx.send(Log.ref('l'), 'write', { line: `tick ${left}` });
        if (left > 0) ctx.schedule(inMs, 'tick', { inMs, left: left - 1 });
      },
    },
  },
});

let app: EmbeddedRuntime | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
});

function start(): EmbeddedRuntime {
  app = startEmbedded({ actors: [Log, Ticker], logger: silentLogger });
  return app;
}

async function lines(running: EmbeddedRuntime): Promise<string[]> {
  const record = await running.backend.store.load(Log.ref('l').id);
  return (record?.state as { lines: string[] } | undefined)?.lines ?? [];
}

describe('idle()', () => {
  it('waits for a timer due soon: it fires, its handler sends, and the send is handled', async () => {
    const running = start();
    await running.client.asSystem().send(Ticker.ref('t'), 'start', { inMs: 100, left: 0 });
    expect(await running.idle()).toEqual({ timersLater: 0, nextTimerAt: undefined });
    expect(await lines(running)).toEqual(['tick 0']);
  });

  it('reports a timer due after its bound instead of waiting for it', async () => {
    const running = start();
    const sent = Date.now();
    await running.client.asSystem().send(Ticker.ref('t'), 'start', { inMs: 60_000, left: 0 });
    const report = await running.idle();
    expect(Date.now() - sent).toBeLessThan(5_000);
    expect(report.timersLater).toBe(1);
    expect(report.nextTimerAt).toBeGreaterThanOrEqual(sent + 60_000);
    expect(await lines(running)).toEqual([]);
  });

  it('fixes its bound at the call: a timer that keeps rescheduling itself does not hold it', async () => {
    const running = start();
    await running.client.asSystem().send(Ticker.ref('t'), 'start', { inMs: 50, left: 1_000 });
    const report = await running.idle({ timersWithinMs: 200 });
    expect(report.timersLater).toBe(1);
    const written = await lines(running);
    expect(written.length).toBeGreaterThanOrEqual(3);
    expect(written.length).toBeLessThan(1_000);
  });

  it('with timersWithinMs: 0, leaves a timer not due yet pending', async () => {
    const running = start();
    await running.client.asSystem().send(Ticker.ref('t'), 'start', { inMs: 300, left: 0 });
    expect((await running.idle({ timersWithinMs: 0 })).timersLater).toBe(1);
    expect(await lines(running)).toEqual([]);
  });

  it("fires a timer once a clock of the caller's own is moved past it, as idle() then waits for", async () => {
    let now = Date.UTC(2026, 0, 1);
    const clock = { now: () => now };
    // The sweeper, a backstop that fires due timers too, not within the test: the pump alone.
    const sweepIntervalMs = 3_600_000;
    app = startEmbedded({ actors: [Log, Ticker], logger: silentLogger, clock, sweepIntervalMs });
    await app.client.asSystem().send(Ticker.ref('t'), 'start', { inMs: 600_000, left: 0 });
    expect(await app.idle({ timersWithinMs: 0 })).toEqual({
      timersLater: 1,
      nextTimerAt: now + 600_000,
    });
    now += 601_000;
    // No real timer follows the clock: the pump looks again while idle() waits for it.
    expect(await app.idle({ timersWithinMs: 0 })).toEqual({
      timersLater: 0,
      nextTimerAt: undefined,
    });
    expect(await lines(app)).toEqual(['tick 0']);
  });

  it("waits only for the timers due by now on a clock of the caller's own, which nothing else moves", async () => {
    let now = Date.UTC(2026, 0, 1);
    const clock = { now: () => now };
    app = startEmbedded({ actors: [Log, Ticker], logger: silentLogger, clock });
    await app.client.asSystem().send(Ticker.ref('t'), 'start', { inMs: 500, left: 0 });
    // Due within the default second, but the clock stands still until the test moves it.
    expect(await app.idle()).toEqual({ timersLater: 1, nextTimerAt: now + 500 });
    expect(await app.idle({ timersWithinMs: undefined })).toEqual({
      timersLater: 1,
      nextTimerAt: now + 500,
    });
    now += 500;
    expect(await app.idle()).toEqual({ timersLater: 0, nextTimerAt: undefined });
    expect(await lines(app)).toEqual(['tick 0']);
  });

  it('rejects a bound that is not a duration, saying what it takes', async () => {
    const running = start();
    await expect(running.idle({ timersWithinMs: -1 })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: 'idle({ timersWithinMs }) must be a finite number of milliseconds ≥ 0, got -1',
    });
  });
});
