/**
 * What every `baton workflows` command reads of an instance: its workflow name argument,
 * checked, the actor id it lives at, and its stored record. The listing and showing commands
 * and the actions that send it a message share these.
 */
import { BatonError, ErrorCode, type WorkflowState } from '@baton/core';
import type { OpsContext } from './OpsContext.ts';

const NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;

/** The workflow name argument at `index`, checked. */
export function workflowArg(ctx: OpsContext, index: number): string {
  const name = ctx.arg(index, 'workflow');
  if (!NAME.test(name)) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `"${name}" is not a workflow name: pass the name given to workflow({ name }), e.g. fulfil (not wf-fulfil/…)`,
    );
  }
  return name;
}

/** The actor id of instance `id` of workflow `name`. */
export const instanceId = (name: string, id: string) => `wf-${name}/${id}`;

/** The stored record of an instance; NOT_FOUND when it never started (or expired). */
export async function readInstance(
  ctx: OpsContext,
  name: string,
  id: string,
): Promise<WorkflowState> {
  const { store } = await ctx.target();
  const record = await store.load(instanceId(name, id));
  const state = record?.state as WorkflowState | undefined;
  if (!state || state.status === 'new') {
    throw new BatonError(
      ErrorCode.NOT_FOUND,
      `workflow ${name} has no instance ${id}: it never started, or its retention ended; list them with ${ctx.followUp`workflows list ${name}`}`,
      { details: { workflow: name, id } },
    );
  }
  return state;
}

/** Commands issued in all: those moved out of the record into pages, and the record's. */
export const stepsOf = (state: WorkflowState) =>
  (state.sealed?.entries ?? 0) + state.journal.length;
