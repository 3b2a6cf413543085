import { knownWorkflow, type QueryState } from '@baton/client';
import type {
  JsonOf,
  SerializedError,
  WorkflowHistoryEntry,
  WorkflowQueryArgs,
  WorkflowRef,
  WorkflowStatus,
} from '@baton/core';
import { useMemo } from 'react';
import { useQuery } from './useQuery.ts';

/**
 * A workflow instance as `useWorkflow` shows it: its status, its output or error once it ends,
 * and each command of its run (steps, actor calls, sleeps, waits) with its state and times.
 */
export interface WorkflowProgress<Output, Progress = unknown> {
  readonly id: string;
  /** `new` until it starts; `running`, `waiting` or `paused` while it goes on; then final. */
  readonly status: WorkflowStatus;
  readonly startedAt?: number;
  readonly endedAt?: number;
  /** The run's result, once `completed`. */
  readonly output?: Output;
  /** What ended it, once `failed`, `cancelled` or `terminated`. */
  readonly error?: SerializedError;
  /** Why it is `paused` (NON_DETERMINISTIC, or RETRYABLE for a run that threw) and the code version. */
  readonly paused?: { readonly error: SerializedError; readonly version: string };
  /** Commands issued so far. */
  readonly steps: number;
  /** What the run last gave `ctx.setProgress` (a stage, counts), as JSON; kept once it ends. */
  readonly progress?: JsonOf<Progress>;
  /**
   * Each command in issue order: `pending` until its result commits, then `done` or `failed`;
   * the newest 500 of a longer history.
   */
  readonly history: readonly WorkflowHistoryEntry[];
  /** Whether commands before the first of `history` are left out (a history of more than 500). */
  readonly older: boolean;
}

/**
 * Follows a workflow instance live: `{ status, data, error, version }` as `useQuery` gives,
 * where `data` is the instance's {@link WorkflowProgress} — re-rendered as each step commits,
 * pushed over the client's WebSocket (the built-in `workflowHistory` query; the workflow must
 * be `public` and its `authorize` allow `{ action: 'read' }` for this client's caller). Pass
 * `'skip'` to follow nothing (the state stays `pending`).
 *
 * @example
 * function Order({ id }: { id: string }) {
 *   const { data, error } = useWorkflow(Fulfil.ref(id));
 *   if (!data) return <span>{error?.message ?? '…'}</span>;
 *   return (
 *     <ol title={data.status}>
 *       {data.history.map((entry) => <li key={entry.seq}>{entry.name}: {entry.state}</li>)}
 *     </ol>
 *   );
 * }
 */
export function useWorkflow<Output, Progress = unknown>(
  ref: WorkflowRef<any, Output, any, Progress> | 'skip',
): QueryState<WorkflowProgress<JsonOf<Output>, Progress>> {
  const args: WorkflowQueryArgs | 'skip' =
    ref === 'skip' ? 'skip' : { workflow: ref.workflow, id: ref.key };
  type Shown = WorkflowProgress<JsonOf<Output>, Progress>;
  const state = useQuery<Shown | null>('workflowHistory', args);
  const workflow = ref === 'skip' ? undefined : ref.workflow;
  return useMemo(
    () => (workflow === undefined ? state : knownWorkflow(state, workflow)),
    [state, workflow],
  ) as QueryState<Shown>;
}
