/**
 * Errors are cut to fit the journal, as values are capped: a step failing with a large message
 * (an HTTP body thrown whole) or an outside system failing a callback with one must not make the
 * turn's record too large after the step ran — that would keep the message as a dead letter
 * without the step's run, and its redrive would run the step again.
 */
import {
  ErrorCode,
  type SerializedError,
  TerminalError,
  type WorkflowState,
  workflow,
} from '@baton/core';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { recordingLogger } from '../engine/helpers.ts';
import { workflowHarness } from './harness.ts';

const body = (bytes: number) => `<html>${'x'.repeat(bytes)}</html>`;
const size = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
/** The most one error takes in a journal (docs/workflows.md, "Limits"). */
const MAX_ERROR_BYTES = 8 * 1024;

describe('a large error in a workflow', () => {
  it('fails the step with its message cut, once, and the instance with it', async () => {
    let charges = 0;
    const Pay = workflow({
      name: 'pay',
      input: z.object({}),
      run: async (ctx) => {
        await ctx.step('charge', () => void charges++);
        await ctx.step('notify', () => {
          throw new TerminalError(`bad gateway: ${body(120_000)}`);
        });
        return 'paid';
      },
    });
    const h = workflowHarness([Pay.actor]);
    const ref = await h.client.start(Pay, 'p', {});
    await h.runAll();

    const state = (await h.state(ref.id)) as WorkflowState;
    expect(state.status).toBe('failed');
    const failed = state.journal.find((e) => e.name === 'notify')?.error as SerializedError;
    for (const error of [failed, state.error]) {
      expect(error).toMatchObject({ code: ErrorCode.STEP_FAILED });
      expect(error?.message).toMatch(
        /^step "notify" failed after 1 attempt: bad gateway: <html>x+… \(\d+ more characters cut\)$/,
      );
      expect(size(error)).toBeLessThanOrEqual(MAX_ERROR_BYTES);
    }
    // The step's cause keeps its code and the start of its message.
    expect(failed.details.cause).toMatchObject({ code: ErrorCode.REJECTED });
    // Started again, the ended instance runs nothing: one charge.
    await h.client.start(Pay, 'p', {});
    await h.runAll();
    expect(charges).toBe(1);
  });

  it('fails a callback whose error is large, cut, and the run sees it', async () => {
    const tokens: string[] = [];
    const Ship = workflow({
      name: 'ship',
      input: z.object({}),
      run: async (ctx) => {
        const callback = ctx.createCallback('label');
        await ctx.step('share', () => void tokens.push(callback.token));
        try {
          return await callback.result;
        } catch (error) {
          return (error as Error).message.length;
        }
      },
    });
    const h = workflowHarness([Ship.actor]);
    const ref = await h.client.start(Ship, 's', {});
    await h.runAll();
    await h.client.completeCallback(tokens[0]!, { error: body(100_000) });
    await h.runAll();

    const length = (await h.client.result(ref)) as number;
    expect(length).toBeGreaterThan(1_900);
    expect(length).toBeLessThanOrEqual(2_000);
  });

  it("journals a public workflow's unexpected step error without its text, which it logs", async () => {
    const { logger, lines } = recordingLogger();
    const leaky = (open: boolean) =>
      workflow({
        name: open ? 'open-charge' : 'charge',
        input: z.object({}),
        ...(open ? { public: true } : {}),
        run: (ctx) =>
          ctx.step(
            'charge',
            () => {
              throw new Error('ECONNREFUSED postgres://admin:hunter2@db');
            },
            { retry: { maxAttempts: 1 } },
          ),
      });
    const [Open, Internal] = [leaky(true), leaky(false)];
    const h = workflowHarness([Open.actor, Internal.actor], { logger });
    const [open, internal] = [
      await h.client.start(Open, 'o', {}),
      await h.client.start(Internal, 'i', {}),
    ];
    await h.runAll();

    // Its status and result are read by clients.
    const failed = (await h.state(open.id)) as WorkflowState;
    expect(JSON.stringify(failed)).not.toContain('hunter2');
    await expect(h.client.result(open)).rejects.toMatchObject({
      code: ErrorCode.STEP_FAILED,
      message: `step "charge" failed after 1 attempt: an unexpected error; its text is in the server's log`,
    });
    expect(lines.find((line) => line.message === 'workflow command failed')?.fields).toMatchObject({
      step: 'charge',
      error: 'unexpected error: ECONNREFUSED postgres://admin:hunter2@db',
    });
    // Only trusted code reads an internal one's: it keeps the text.
    await expect(h.client.result(internal)).rejects.toMatchObject({
      message: expect.stringContaining('hunter2'),
    });
  });
});
