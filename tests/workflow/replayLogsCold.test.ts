/**
 * A run's `ctx.log` writes each line once also when every turn replays the run cold
 * (`workflowCacheSize: 0`), whatever comes between its lines: a step that commits before it
 * runs, a draw, parallel branches, a compensation.
 */
import { type Logger, silentLogger, TerminalError, workflow } from '@baton/core';
import { startEmbedded } from '@baton/embedded';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';

const Order = workflow({
  name: 'order',
  input: z.object({}),
  run: async (ctx) => {
    ctx.log.info('charging');
    // A step with a compensation commits before it runs: a turn of its own.
    await ctx.step('charge', () => 'c-1', { compensate: () => ctx.log.info('refunding') });
    ctx.log.info('charged');
    const pick = ctx.random();
    ctx.log.info('drew');
    await ctx.step('note', () => pick);
    await ctx.parallel([
      async () => {
        await ctx.step('pack', () => 1);
        ctx.log.info('packed');
      },
      async () => {
        await ctx.sleep(5);
        ctx.log.info('slept');
      },
    ]);
    ctx.log.info('failing');
    throw new TerminalError('withdrawn');
  },
});

const OURS = ['charging', 'charged', 'drew', 'packed', 'slept', 'failing', 'refunding'];

/** Logs in its step's attempts, which retry on durable backoff: a turn each. */
const Flaky = workflow({
  name: 'flaky',
  input: z.object({}),
  run: async (ctx) => {
    ctx.log.info('before');
    await ctx.step(
      'call',
      ({ attempt }) => {
        ctx.log.info(`attempt ${attempt}`);
        if (attempt < 3) throw new Error('busy');
      },
      { retry: { maxAttempts: 3, initialDelayMs: 1 } },
    );
    ctx.log.info('after');
    return null;
  },
});

/** A logger that keeps the messages of its info lines. */
function infoLines(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  return {
    logger: { ...silentLogger, info: (message) => lines.push(message) },
    lines,
  };
}

describe("a workflow run's ctx.log, every turn replayed cold", () => {
  for (const workflowCacheSize of [0, 200]) {
    it(`writes each line once (workflowCacheSize ${workflowCacheSize})`, async () => {
      const { logger, lines } = infoLines();
      const app = startEmbedded({ actors: [], workflows: [Order], logger, workflowCacheSize });
      try {
        const ref = await app.client.asSystem().start(Order, 'o-1', {});
        await app.idle();
        expect((await app.client.asSystem().workflowStatus(ref)).status).toBe('failed');
      } finally {
        await app.stop();
      }
      const ours = lines.filter((line) => OURS.includes(line));
      expect(ours).toEqual(OURS);
    });

    it(`writes each line of each attempt of a step (workflowCacheSize ${workflowCacheSize})`, async () => {
      const { logger, lines } = infoLines();
      const app = startEmbedded({ actors: [], workflows: [Flaky], logger, workflowCacheSize });
      try {
        const ref = await app.client.asSystem().start(Flaky, 'f-1', {});
        await app.idle();
        expect((await app.client.asSystem().workflowStatus(ref)).status).toBe('completed');
      } finally {
        await app.stop();
      }
      expect(lines.filter((line) => !line.includes(' '))).toEqual(['before', 'after']);
      expect(lines.filter((line) => /^(before|attempt|after)/.test(line))).toEqual([
        'before',
        'attempt 1',
        'attempt 2',
        'attempt 3',
        'after',
      ]);
    });
  }
});
