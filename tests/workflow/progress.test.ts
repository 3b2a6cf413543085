/**
 * `ctx.setProgress`: what a run tells its readers of where it stands, committed with each turn
 * and kept once it ends; a cold replay, which sets it again as it runs, commits the value the
 * run stands at, never an earlier one; a replay that diverged leaves it as it was; a value the
 * workflow's schema refuses, too large or not JSON, pauses the run saying what is wrong.
 */
import { BatonClient } from '@baton/client';
import {
  actor,
  defineApp,
  ErrorCode,
  silentLogger,
  type WorkflowState,
  workflow,
} from '@baton/core';
import { PROGRESS_IN_STEP_LOG } from '@baton/core/engine';
import { startEmbedded } from '@baton/embedded';
import { createLocalServer } from '@baton/server/ws';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import * as z from 'zod';
import { recordingLogger } from '../engine/helpers.ts';
import { workflowHarness } from './harness.ts';

/** Packs `items` items, each once its `packed` event came; `stage` names the last stage. */
function packing(options: { stage?: (packed: number) => string; public?: boolean } = {}) {
  return workflow({
    name: 'pack',
    public: options.public ?? false,
    input: z.object({ items: z.number() }),
    progress: z.object({ stage: z.enum(['packing', 'shipping']), packed: z.number() }),
    run: async (ctx, { items }) => {
      for (let packed = 0; packed < items; packed++) {
        ctx.setProgress({ stage: (options.stage?.(packed) ?? 'packing') as 'packing', packed });
        await ctx.waitForEvent('packed');
      }
      await ctx.step('label', () => 'label-1');
      ctx.setProgress({ stage: 'shipping', packed: items });
      return 'shipped';
    },
  });
}

/** The progress instance `id`'s record holds. */
async function progressOf(h: ReturnType<typeof workflowHarness>, id: string) {
  return ((await h.state(id)) as WorkflowState).progress;
}

describe('ctx.setProgress', () => {
  it('is given as each turn commits it, and kept once the run ends', async () => {
    const Pack = packing();
    const h = workflowHarness([Pack.actor]);
    const ref = await h.client.start(Pack, 'p-1', { items: 2 });
    await h.runAll();
    expect(await h.client.workflowStatus(ref)).toMatchObject({
      status: 'waiting',
      progress: { stage: 'packing', packed: 0 },
    });

    await h.client.signal(ref, 'packed', null);
    await h.runAll();
    expect((await h.client.workflowStatus(ref)).progress).toEqual({ stage: 'packing', packed: 1 });

    await h.client.signal(ref, 'packed', null);
    await h.runAll();
    expect(await h.client.workflowStatus(ref)).toMatchObject({
      status: 'completed',
      output: 'shipped',
      progress: { stage: 'shipping', packed: 2 },
    });
  });

  it('is pushed to a subscriber of the instance over the WebSocket with each turn', async () => {
    const Pack = packing({ public: true });
    const app = defineApp({ workflows: [Pack] });
    const runtime = startEmbedded({ actors: app.actors, logger: silentLogger });
    const server = await createLocalServer({
      actors: app.actors,
      queries: app.queries,
      backend: runtime,
      logger: silentLogger,
    });
    const client = new BatonClient({ url: server.url, WebSocket: WebSocket as never });
    try {
      const ref = await client.start(Pack, 'p-1', { items: 2 });
      const seen: unknown[] = [];
      const shipped = new Promise<void>((resolve) => {
        const stop = client.subscribeWorkflow(ref, ({ data }) => {
          if (data?.progress !== undefined) seen.push(data.progress);
          if (data?.status !== 'completed') return;
          stop();
          resolve();
        });
      });
      for (const packed of [0, 1]) {
        await expect.poll(() => seen.at(-1)).toEqual({ stage: 'packing', packed });
        await client.signal(ref, 'packed', null);
      }
      await shipped;
      expect(seen.at(-1)).toEqual({ stage: 'shipping', packed: 2 });
    } finally {
      client.close();
      await server.close();
      await runtime.stop();
    }
  });

  it('commits where the run stands after a cold replay, which sets every earlier value again', async () => {
    const Pack = packing();
    const h = workflowHarness([Pack.actor]);
    const ref = await h.client.start(Pack, 'p-1', { items: 3 });
    await h.client.signal(ref, 'packed', null);
    await h.runAll();
    expect(await progressOf(h, ref.id)).toEqual({ stage: 'packing', packed: 1 });

    // New code on the same record: no warm run, so this turn replays from the start, setting
    // packed 0 then 1 before it waits again.
    h.deploy([Pack.actor]);
    await h.client.send(ref as never, '_wake' as never, {} as never);
    await h.runAll();
    expect(await progressOf(h, ref.id)).toEqual({ stage: 'packing', packed: 1 });

    h.deploy([Pack.actor]);
    await h.client.signal(ref, 'packed', null);
    await h.runAll();
    expect(await progressOf(h, ref.id)).toEqual({ stage: 'packing', packed: 2 });
  });

  it('is left as it was by a replay that diverged', async () => {
    /** Says it is at `stage`, then waits for `go` (or, `early`, takes a step first). */
    const flow = (stage: string, early = false) =>
      workflow({
        name: 'flow',
        input: z.object({}),
        run: async (ctx) => {
          ctx.setProgress(stage);
          if (early) await ctx.step('early', () => 1);
          await ctx.waitForEvent('go');
          return stage;
        },
      });
    const h = workflowHarness([flow('waiting').actor]);
    const ref = await h.client.start(flow('waiting'), 'f-1', {});
    await h.runAll();
    // Code whose first command is another than the history's: its value is not committed.
    h.deploy([flow('changed', true).actor]);
    await h.client.signal(ref, 'go', null);
    await h.runAll({ until: h.clock.now() });
    const status = await h.client.workflowStatus(ref);
    expect(status.paused?.error.code).toBe(ErrorCode.NON_DETERMINISTIC);
    expect(status.progress).toBe('waiting');
  });

  it('pauses a run that gives a value its schema refuses, and fixed code carries it on', async () => {
    const h = workflowHarness([packing().actor]);
    const Wrong = packing({ stage: (packed) => (packed === 1 ? 'boxing' : 'packing') });
    h.deploy([Wrong.actor]);
    const ref = await h.client.start(Wrong, 'p-1', { items: 2 });
    await h.client.signal(ref, 'packed', null);
    await h.runAll({ until: h.clock.now() });
    const paused = await h.client.workflowStatus(ref);
    expect(paused.paused?.error).toMatchObject({
      code: ErrorCode.RETRYABLE,
      details: { reason: 'RUN_THREW' },
    });
    expect(paused.paused?.error.message).toContain(
      `threw INVALID_ARGUMENT: ctx.setProgress of workflow "pack": the workflow's progress schema refuses the value (progress.stage: `,
    );
    // What the run stood at before the refused value.
    expect(paused.progress).toEqual({ stage: 'packing', packed: 0 });

    h.deploy([packing().actor]);
    await h.client.resumeWorkflow(ref);
    await h.client.signal(ref, 'packed', null);
    await h.runAll();
    expect(await h.client.workflowStatus(ref)).toMatchObject({
      status: 'completed',
      progress: { stage: 'shipping', packed: 2 },
    });
  });

  it('refuses a value that is too large or not JSON (a Map or a Set among them), saying what to do', async () => {
    const cases: [string, (ctx: { setProgress(value: unknown): void }) => unknown, RegExp][] = [
      [
        'large',
        (ctx) => ctx.setProgress('x'.repeat(20_000)),
        /the value is 20002 bytes, more than the 16384 progress may take: keep it to what a reader shows/,
      ],
      [
        'bigint',
        (ctx) => ctx.setProgress({ n: 1n }),
        /the value is not JSON \(.*BigInt.*\): give plain data/,
      ],
      ['nothing', (ctx) => ctx.setProgress(undefined), /the value is not JSON \(undefined\)/],
      [
        'map',
        (ctx) => ctx.setProgress({ done: new Map([['a', 1]]) }),
        /the value is not JSON \(a Map is not JSON \(it would be stored as \{\}, its entries lost\): use a plain object or an array\)/,
      ],
      [
        'set',
        (ctx) => ctx.setProgress([new Set([1])]),
        /the value is not JSON \(a Set is not JSON/,
      ],
    ];
    for (const [name, set, message] of cases) {
      const Bad = workflow({
        name,
        input: z.object({}),
        run: async (ctx) => {
          set(ctx);
          return 'done';
        },
      });
      const h = workflowHarness([Bad.actor]);
      const ref = await h.client.start(Bad, 'b-1', {});
      await h.runAll({ until: h.clock.now() });
      const status = await h.client.workflowStatus(ref);
      expect(status.status, name).toBe('paused');
      expect(status.paused?.error.message, name).toMatch(message);
      expect(status, name).not.toHaveProperty('progress');
    }
    // At the limit exactly, taken.
    const Full = workflow({
      name: 'full',
      input: z.object({}),
      run: async (ctx) => {
        ctx.setProgress('x'.repeat(16_382));
        return 'done';
      },
    });
    const h = workflowHarness([Full.actor]);
    const ref = await h.client.start(Full, 'f-1', {});
    await h.runAll();
    expect((await h.client.workflowStatus(ref)).progress).toHaveLength(16_382);
  });

  it("is ignored, and logged, inside a step's function, which a replay does not run again", async () => {
    let attempts = 0;
    const InStep = workflow({
      name: 'in-step',
      input: z.object({}),
      run: async (ctx) => {
        ctx.setProgress('before');
        await ctx.step('label', () => {
          attempts++;
          ctx.setProgress('labelling');
        });
        return 'done';
      },
    });
    const { logger, lines } = recordingLogger();
    const h = workflowHarness([InStep.actor], { logger });
    const ref = await h.client.start(InStep, 's-1', {});
    await h.runAll();
    expect(await h.client.workflowStatus(ref)).toMatchObject({
      status: 'completed',
      progress: 'before',
    });
    // The step's outside work ran once: the misuse failed nothing.
    expect(attempts).toBe(1);
    expect(lines.filter((l) => l.message === PROGRESS_IN_STEP_LOG)).toEqual([
      expect.objectContaining({
        level: 'warn',
        fields: expect.objectContaining({ workflow: 'in-step' }),
      }),
    ]);
  });

  it('stays where the run stood once it is cancelled, though its code goes on as a call under way replies', async () => {
    const Desk = actor({
      name: 'desk',
      state: z.object({}),
      initial: () => ({}),
      handlers: {
        hold: { payload: z.object({}), handle: () => 'held' },
        free: { payload: z.object({}), handle: () => 'freed' },
      },
    });
    const Book = workflow({
      name: 'book',
      input: z.object({}),
      run: async (ctx) => {
        ctx.setProgress('holding');
        await ctx.call(
          Desk.ref('d'),
          'hold',
          {},
          {
            compensate: (_, saga) => saga.call(Desk.ref('d'), 'free', {}),
          },
        );
        ctx.setProgress('charging');
        await ctx.step('charge', () => 'charged');
        return 'booked';
      },
    });
    const h = workflowHarness([Desk, Book.actor]);
    const ref = await h.client.start(Book, 'b-1', {});
    // The cancel comes while the call is under way: the run goes on once the desk replies.
    for (let poll = 0; poll < 100; poll++) {
      const state = (await h.state(ref.id)) as WorkflowState | undefined;
      if (state?.journal.some((e) => e.kind === 'call' && e.state === 'pending')) break;
      await h.worker.poll();
    }
    await h.client.cancel(ref, { reason: 'changed plans' });
    await h.runAll();
    const status = await h.client.workflowStatus(ref);
    expect(status.status).toBe('cancelled');
    expect(status.progress).toBe('holding');
  });

  it('stands where the run got to when it pauses awaiting what is no command, its whole history run', async () => {
    const Stray = workflow({
      name: 'stray',
      input: z.object({}),
      run: async (ctx) => {
        ctx.setProgress('first');
        await ctx.step('first', () => 1);
        ctx.setProgress('second');
        await new Promise((resolve) => setTimeout(resolve, 5));
        return 'done';
      },
    });
    const h = workflowHarness([Stray.actor]);
    const ref = await h.client.start(Stray, 's-1', {});
    await h.runAll({ until: h.clock.now() });
    const status = await h.client.workflowStatus(ref);
    expect(status.paused?.error.details.reason).toBe('AWAITS_OUTSIDE');
    expect(status.progress).toBe('second');
  });

  it('takes what its schema takes, as given: a Date, kept as its ISO string', async () => {
    const Dated = workflow({
      name: 'dated',
      input: z.object({}),
      progress: z.object({ since: z.date() }),
      run: async (ctx) => {
        ctx.setProgress({ since: new Date(ctx.now()) });
        return 'done';
      },
    });
    const h = workflowHarness([Dated.actor]);
    const ref = await h.client.start(Dated, 'd-1', {});
    await h.runAll();
    const status = await h.client.workflowStatus(ref);
    expect(status.status).toBe('completed');
    expect(status.progress).toEqual({ since: new Date(h.clock.now()).toISOString() });
  });

  it('is refused as an option unless it is a schema', () => {
    expect(() =>
      workflow({
        name: 'w',
        input: z.object({}),
        progress: 'stage' as never,
        run: async () => null,
      }),
    ).toThrow('workflow "w" is not valid: progress must be a zod schema');
  });
});
