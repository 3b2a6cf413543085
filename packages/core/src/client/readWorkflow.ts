/**
 * Reading an instance from outside (`client.result`, `client.workflowStatus`): its committed
 * state, for a caller the workflow lets read it, and waiting for its outcome.
 */
import type { ActorRef } from '../actor.ts';
import type { Store } from '../adapter/ports.ts';
import type { Caller } from '../caller.ts';
import { BatonError, ErrorCode, errorFromJSON } from '../errors.ts';
import type { Registry } from '../registry.ts';
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
  const definition = registry.has(ref?.type)
    ? workflowOf(registry.definition(ref.type))
    : undefined;
  if (!definition) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `${String(ref?.id)} is not a workflow instance of this app: pass Workflow.ref(id) of a workflow the client's actors include (defineApp's app.actors)`,
    );
  }
  if (!mayReadWorkflow(definition, caller, ref.key)) {
    throw new BatonError(
      ErrorCode.FORBIDDEN,
      `not allowed: this caller may not read workflow "${definition.name}" instance ${ref.key}`,
      { details: { workflow: definition.name, id: ref.key } },
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
      throw new BatonError(
        ErrorCode.TIMED_OUT,
        `workflow instance ${ref.key} did not finish within ${timeoutMs} ms (it is ${state.status}); it goes on: await its result again`,
        { details: { id: ref.id, status: state.status, timeoutMs } },
      );
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(delay, deadline - Date.now())));
    delay = Math.min(delay * 2, 500);
  }
}
