/**
 * `replayWorkflow` over the history of an instance that ran compensations: the run replays up
 * to where it failed or was cancelled, then the saga runner's commands replay as the live run
 * issued them — so an app's CI can check new code against a cancelled or failed saga too.
 */
import {
  type AnyWorkflowDefinition,
  actor,
  ErrorCode,
  replayWorkflow,
  TerminalError,
  type WorkflowState,
  workflow,
} from '@baton/core';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { workflowHarness } from './harness.ts';

const Shelf = actor({
  name: 'shelf',
  state: z.object({ held: z.number() }),
  initial: () => ({ held: 0 }),
  handlers: {
    hold: { payload: z.object({}), handle: (ctx) => ++ctx.state.held },
    release: { payload: z.object({}), handle: (ctx) => --ctx.state.held },
  },
});

/** A saga: a step and an actor call, each undone; `undo` names the step's compensation. */
function saga(version: string, { undo = 'refund', fail = false } = {}) {
  return workflow({
    name: 'saga',
    version,
    input: z.object({}),
    compensationRetry: { maxAttempts: 1 },
    run: async (ctx) => {
      await ctx.step('charge', () => 'c-1', { compensate: () => undo });
      await ctx.call(
        Shelf.ref('s'),
        'hold',
        {},
        { compensate: (_, s) => s.call(Shelf.ref('s'), 'release', {}) },
      );
      await ctx.waitForEvent('shipped');
      if (fail) throw new TerminalError('the label printer is out');
      return 'shipped';
    },
  });
}

async function recorded(definition: AnyWorkflowDefinition, end: 'cancel' | 'fail') {
  const h = workflowHarness([Shelf, definition.actor]);
  const ref = await h.client.start(definition, 'o', {});
  await h.runAll();
  if (end === 'cancel') await h.client.cancel(ref, { reason: 'changed mind' });
  else await h.client.signal(ref, 'shipped');
  await h.runAll();
  expect(await h.state(Shelf.ref('s').id)).toEqual({ held: 0 });
  return (await h.state(ref.id)) as WorkflowState;
}

describe('replayWorkflow over a saga', () => {
  it('replays a cancelled saga: the run, then its compensations', async () => {
    const history = await recorded(saga('1'), 'cancel');
    expect(history.status).toBe('cancelled');
    expect(history.journal.map((e) => `${e.kind} ${e.name}`)).toEqual([
      'step charge',
      'call shelf.hold',
      'event shipped',
      'patch baton:saga-by-command',
      'call shelf.release',
      'compensate charge',
    ]);
    await expect(replayWorkflow(saga('2'), history)).resolves.toEqual({
      outcome: 'cancelled',
      commands: 6,
    });
  });

  it('replays a failed saga, and names a compensation the new code renamed', async () => {
    const history = await recorded(saga('1', { fail: true }), 'fail');
    expect(history.status).toBe('failed');
    await expect(replayWorkflow(saga('2', { fail: true }), history)).resolves.toEqual({
      outcome: 'failed',
      commands: 6,
    });
    const Renamed = workflow({
      name: 'saga',
      version: '3',
      input: z.object({}),
      run: async (ctx) => {
        await ctx.step('charge', () => 'c-1', { compensate: () => 'refund' });
        await ctx.call(
          Shelf.ref('s'),
          'hold',
          {},
          { compensate: (_, s) => s.call(Shelf.ref('s'), 'hold', {}) },
        );
        await ctx.waitForEvent('shipped');
        throw new TerminalError('the label printer is out');
      },
    });
    await expect(replayWorkflow(Renamed, history)).rejects.toMatchObject({
      code: ErrorCode.NON_DETERMINISTIC,
      details: { seq: 4, kind: 'call', step: 'shelf.release', version: '3' },
    });
  });
});
