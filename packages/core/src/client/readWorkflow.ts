/**
 * Reading an instance from outside (`client.result`, `client.workflowStatus`): its committed
 * state, for a caller the workflow lets read it, and waiting for its outcome.
 */

import { READ_WORKFLOW } from '../access.ts';
import type { ActorRef } from '../actor.ts';
import type { Store } from '../adapter/ports.ts';
import type { Caller } from '../caller.ts';
import { BatonError, ErrorCode, errorFromJSON } from '../errors.ts';
import type { Registry } from '../registry.ts';
import { parseActorId } from '../shared/actorId.ts';
import { FINAL_STATUSES, newWorkflowState, type WorkflowState } from '../workflow/journal.ts';
import { mayReadWorkflow } from '../workflow/readAccess.ts';
import { workflowOf } from '../workflow/workflow.ts';

/** The committed state of instance `ref`, if `caller` may read it (FORBIDDEN otherwise). */
export async function readWorkflow(
  store: Store,
  registry: Registry,
  caller: Caller,
  ref: ActorRef,
): Promise<WorkflowState> {
  // The instance read is the one `ref.id` names, whatever `ref.type` and `ref.key` say: a ref
  // is plain JSON, and one put together by a caller must not pass the check as another instance.
  const named = typeof ref?.id === 'string' ? parseActorId(ref.id) : undefined;
  const definition =
    named && registry.has(named.type) ? workflowOf(registry.definition(named.type)) : undefined;
  if (!named || !definition) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `${String(ref?.id)} is not a workflow instance of this app: pass Workflow.ref(id) of a workflow the client's actors include (defineApp's app.actors)`,
    );
  }
  if (!mayReadWorkflow(definition, caller, named.key)) {
    throw new BatonError(
      ErrorCode.FORBIDDEN,
      `not allowed: this caller may not read workflow "${definition.name}" instance ${named.key}; ${READ_WORKFLOW}`,
      { details: { workflow: definition.name, id: named.key } },
    );
  }
  const record = await store.load(ref.id);
  return (record?.state as WorkflowState | undefined) ?? newWorkflowState();
}

/**
 * Waits until instance `ref` ends: its output, or the error that ended it (CANCELLED for a
 * cancelled or terminated one), or TIMED_OUT after `timeoutMs`. Polls the committed record.
 */
export async function awaitWorkflow(
  read: () => Promise<WorkflowState>,
  ref: ActorRef,
  timeoutMs: number,
): Promise<unknown> {
  const deadline = Date.now() + timeoutMs;
  let delay = 10;
  for (;;) {
    const state = await read();
    if (FINAL_STATUSES.has(state.status)) {
      if (state.status === 'completed') return state.output;
      throw errorFromJSON(
        state.error ?? { code: ErrorCode.CANCELLED, message: `${ref.id} ended`, details: {} },
      );
    }
    if (Date.now() >= deadline) {
      // Awaiting again does not help an instance nobody started (or one halted after its
      // retention, which reads as new): say what to look at instead.
      const why =
        state.status === 'new'
          ? 'it was never started: start it with client.start(Workflow, id, input) (or ctx.start from an actor) first; a finished instance also reads as new once its retentionMs is over and it halted'
          : state.status === 'paused'
            ? `it is paused, and goes on only once replayed by code that can carry it on: ${state.paused?.error.message ?? 'its code no longer replays its history'}. Deploy such code (that replays its history, or fixes what its run threw), then client.resumeWorkflow(ref) (baton workflows resume)`
            : `it is ${state.status}; it goes on: await its result again`;
      throw new BatonError(
        ErrorCode.TIMED_OUT,
        `workflow instance ${ref.key} did not finish within ${timeoutMs} ms: ${why}`,
        { details: { id: ref.id, status: state.status, timeoutMs } },
      );
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(delay, deadline - Date.now())));
    delay = Math.min(delay * 2, 500);
  }
}
