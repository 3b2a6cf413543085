import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { actor, silentLogger } from '@baton/core';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { type EmbeddedRuntime, startEmbedded } from './startEmbedded.ts';

const Alarm = actor({
  name: 'alarm',
  state: z.object({ rang: z.array(z.string()) }),
  initial: () => ({ rang: [] as string[] }),
  handlers: {
    set: {
      payload: z.object({ note: z.string(), inMs: z.number() }),
      handle: (ctx, { note, inMs }) => {
        ctx.schedule(inMs, 'ring', { note });
      },
    },
    ring: {
      payload: z.object({ note: z.string() }),
      handle: (ctx, { note }) => {
        ctx.state.rang.push(note);
      },
    },
  },
});

const running: EmbeddedRuntime[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const app of running.splice(0)) await app.stop();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function start(dataDir?: string): EmbeddedRuntime {
  const app = startEmbedded({
    actors: [Alarm],
    logger: silentLogger,
    ...(dataDir ? { dataDir } : {}),
  });
  running.push(app);
  return app;
}

async function rang(app: EmbeddedRuntime, count: number): Promise<string[]> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const state = (await app.backend.store.load('alarm/a'))?.state as
      | { rang: string[] }
      | undefined;
    if ((state?.rang.length ?? 0) >= count || Date.now() > deadline) return state?.rang ?? [];
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('the embedded runtime fires durable timers', () => {
  it('when they are due, soonest first, a sooner one scheduled later included', async () => {
    const app = start();
    await app.client.asSystem().send(Alarm.ref('a'), 'set', { note: 'later', inMs: 300 });
    await app.idle({ timersWithinMs: 0 }); // the later one stays pending
    await app.client.asSystem().send(Alarm.ref('a'), 'set', { note: 'sooner', inMs: 50 });
    // The sooner one rings on its own, well before the later one is due.
    expect(await rang(app, 1)).toEqual(['sooner']);
    expect(await rang(app, 2)).toEqual(['sooner', 'later']);
    expect(await app.backend.store.listTimers('alarm/a')).toEqual([]);
  });

  it('after a restart, for timers committed before it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'baton-timers-'));
    dirs.push(dataDir);
    const first = start(dataDir);
    // Due well after the restart even on a busy host, where the first runtime would ring it.
    await first.client
      .asSystem()
      .send(Alarm.ref('a'), 'set', { note: 'after restart', inMs: 1_500 });
    await first.idle({ timersWithinMs: 0 });
    expect(await first.backend.store.listTimers('alarm/a')).toHaveLength(1);
    await first.stop();
    running.splice(running.indexOf(first), 1);

    const second = start(dataDir);
    expect(await rang(second, 1)).toEqual(['after restart']);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await rang(second, 1)).toEqual(['after restart']);
  });
});
