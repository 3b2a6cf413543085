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
  }
});
