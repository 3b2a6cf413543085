/**
 * A workflow's `timeoutMs`: how long a run's own work may go on from its start (its undo is not
 * bounded). The start arms a timer (`_deadline`); if it fires while the run is under way, the run
 * fails with TIMED_OUT and its compensations run, as after any failure (calls under way are
 * waited for, as a cancel waits for them). The end disarms it, so an ended run costs no late turn.
 */
import type { ActorContext } from '../ActorContext.ts';
import { BatonError, ErrorCode, type SerializedError } from '../errors.ts';
import type { WorkflowState } from './journal.ts';
import type { AnyWorkflowDefinition } from './workflow.ts';

type Ctx = ActorContext<WorkflowState>;

/** The timer of a run's deadline. */
export const DEADLINE_TIMER = 'wf:deadline';

/** What the deadline's timer carries: the run it bounds, and the timeout it was armed with. */
export interface Deadline {
  readonly run: string;
  readonly timeoutMs: number;
}

/** Arms the deadline of the run that just began, if the workflow has a `timeoutMs`. */
export function armDeadline(definition: AnyWorkflowDefinition, ctx: Ctx): void {
  const { timeoutMs } = definition;
  const { state } = ctx;
  if (timeoutMs === undefined || !Number.isFinite(timeoutMs) || state.runId === undefined) return;
  const deadline: Deadline = { run: state.runId, timeoutMs };
  ctx.schedule(timeoutMs, '_deadline' as never, deadline as never, { id: DEADLINE_TIMER });
  state.deadlineAt = ctx.now() + timeoutMs;
}

/** Disarms the run's deadline, if it has one armed (the run ended before it). */
export function disarmDeadline(ctx: Ctx): void {
  if (ctx.state.deadlineAt === undefined) return;
  ctx.cancel(DEADLINE_TIMER);
  delete ctx.state.deadlineAt;
}

/** The error a run that outlived its `timeoutMs` fails with. */
export function timedOut(key: string, timeoutMs: number): SerializedError {
  return new BatonError(
    ErrorCode.TIMED_OUT,
    `workflow instance ${key} timed out: its run did not end within timeoutMs (${timeoutMs} ms)`,
    { details: { id: key, timeoutMs } },
  ).toJSON();
}
