/**
 * A run's `ctx.log` writes each line once: a cold worker runs the workflow again from the start
 * over its history, and the lines of that replay were written when the run first came there.
 */
import { type Logger, workflow } from '@baton/core';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { workflowHarness } from './harness.ts';

const Greeting = workflow({
  name: 'greeting',
  input: z.object({}),
  events: { go: z.object({}) },
  run: async (ctx) => {
    const { log } = ctx; // kept across the run's turns
    const name = await ctx.step('name', () => 'ada');
    ctx.log.info(`greeted ${name}`);
    await ctx.sleep(1_000);
    log.info('slept');
    await ctx.waitForEvent('go');
    ctx.log.info('went');
    return name;
  },
});

/** A logger that keeps the messages of its info lines. */
function infoLines(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const ignore = () => {};
  return {
    logger: { debug: ignore, info: (message) => lines.push(message), warn: ignore, error: ignore },
    lines,
  };
}

describe("a workflow run's ctx.log", () => {
  it('writes each line once, though cold workers replay the run over its history', async () => {
    const { logger, lines } = infoLines();
    const h = workflowHarness([Greeting.actor], { logger });
    const ref = await h.client.start(Greeting, 'g', {});
    await h.runAll({ until: 0 });
    // Each deploy is a cold worker: the next turn replays the run from its start.
    h.deploy([Greeting.actor]);
    await h.runAll();
    h.deploy([Greeting.actor]);
    await h.client.signal(ref, 'go', {});
    await h.runAll();

    expect(await h.client.result(ref)).toBe('ada');
    const ours = new Set(['greeted ada', 'slept', 'went']);
    expect(lines.filter((line) => ours.has(line))).toEqual(['greeted ada', 'slept', 'went']);
  });
});

/** Version `v` of a run that logs around a step and an event; v2 logs one line more, early. */
function noted(version: string) {
  return workflow({
    name: 'noted',
    version,
    input: z.object({}),
    events: { go: z.object({}) },
    run: async (ctx) => {
      ctx.log.info('asked');
      if (version === '2') ctx.log.info('asked, in v2');
      await ctx.step('look', () => 1);
      ctx.log.info('looked');
      await ctx.waitForEvent('go');
      ctx.log.info('went');
      return null;
    },
  });
}

describe("a workflow run's ctx.log across a deploy", () => {
  it('writes the lines past where the run had logged, though the new code logs more before', async () => {
    const { logger, lines } = infoLines();
    const h = workflowHarness([noted('1').actor], { logger });
    const ref = await h.client.start(noted('1'), 'n', {});
    await h.runAll();
    h.deploy([noted('2').actor]);
    await h.client.signal(ref, 'go', {});
    await h.runAll();

    expect((await h.client.workflowStatus(ref)).status).toBe('completed');
    // A count of lines alone would skip 'asked, in v2' for 'looked', and write 'looked' again.
    expect(lines.filter((line) => /^(asked|looked|went)/.test(line))).toEqual([
      'asked',
      'looked',
      'went',
    ]);
  });
});

describe("a workflow run's ctx.log on a record an earlier Baton wrote", () => {
  it('writes the lines past its history once, not the history again', async () => {
    const { logger, lines } = infoLines();
    const h = workflowHarness([Greeting.actor], { logger });
    const ref = await h.client.start(Greeting, 'old', {});
    await h.runAll({ until: 0 });
    await h.runAll();
    // The record as an earlier Baton left it: no `logged` mark.
    await h.rewriteState(ref.id, ({ logged: _, ...state }) => state);
    h.deploy([Greeting.actor]);
    await h.client.signal(ref, 'go', {});
    await h.runAll();

    expect(await h.client.result(ref)).toBe('ada');
    expect(lines.filter((line) => /^(greeted|slept|went)/.test(line))).toEqual([
      'greeted ada',
      'slept',
      'went',
    ]);
  });
});
