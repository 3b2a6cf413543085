import { describe, expect, it } from 'vitest';
import type { ActorRef } from '../actor.ts';
import { ErrorCode } from '../errors.ts';
import { newWorkflowState, type WorkflowState } from '../workflow/journal.ts';
import { awaitWorkflow } from './readWorkflow.ts';

const ref = { type: 'wf-loan', key: 'l1', id: 'wf-loan/l1' } as ActorRef;

/** The error the wait ends with (it must not resolve). */
const failure = (waited: Promise<unknown>): Promise<Error> =>
  waited.then(
    (value) => {
      throw new Error(`resolved with ${String(value)}`);
    },
    (error: Error) => error,
  );

describe('awaiting a workflow instance past its timeout', () => {
  it('says an instance that reads as new was never started, and how to start it, rather than to await again', async () => {
    const error = await failure(awaitWorkflow(async () => newWorkflowState(), ref, 20));
    expect(error).toMatchObject({ code: ErrorCode.TIMED_OUT, details: { status: 'new' } });
    expect(error.message).toContain('workflow instance l1 did not finish within 20 ms');
    expect(error.message).toContain('it was never started: start it with client.start(');
    expect(error.message).not.toContain('await its result again');
  });

  it('says an instance under way goes on, to await its result again', async () => {
    const waiting: WorkflowState = { ...newWorkflowState(), status: 'waiting' };
    const error = await failure(awaitWorkflow(async () => waiting, ref, 20));
    expect(error).toMatchObject({ code: ErrorCode.TIMED_OUT, details: { status: 'waiting' } });
    expect(error.message).toContain('it is waiting; it goes on: await its result again');
  });

  it('says a paused instance waits to be resumed, and why it paused, rather than to await again', async () => {
    const paused: WorkflowState = {
      ...newWorkflowState(),
      status: 'paused',
      paused: {
        error: {
          code: ErrorCode.NON_DETERMINISTIC,
          message: 'workflow "loan" awaits something that is not a ctx command',
          details: {},
        },
        version: '1',
      },
    };
    const error = await failure(awaitWorkflow(async () => paused, ref, 20));
    expect(error).toMatchObject({ code: ErrorCode.TIMED_OUT, details: { status: 'paused' } });
    expect(error.message).toContain('it is paused, and goes on only once replayed by code');
    expect(error.message).toContain('awaits something that is not a ctx command');
    expect(error.message).toContain('client.resumeWorkflow(ref)');
    expect(error.message).not.toContain('await its result again');
  });
});
