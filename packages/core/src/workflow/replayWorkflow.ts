/**
 * Checks a workflow's code against a recorded history, without running anything: the check an
 * app's CI runs over histories of its running instances before a deploy.
 */
import { sealedCount, type WorkflowState } from './journal.ts';
import { Replayer } from './Replayer.ts';
import type { AnyWorkflowDefinition } from './workflow.ts';

/**
 * Replays `history` (an instance's state: `workflowHistory`'s result or the stored record)
 * with `definition`'s code. Resolves with how far the history takes the run; rejects with
 * NON_DETERMINISTIC, naming the command, when the code no longer issues what the history holds
 * — the error that would pause the instance after the deploy. Steps are not run, nothing is sent.
 *
 * @example
 * for (const history of recordedHistories) await replayWorkflow(Checkout, history);
 */
export async function replayWorkflow(
  definition: AnyWorkflowDefinition,
  history: Pick<WorkflowState, 'journal'> & Partial<WorkflowState>,
): Promise<{ readonly outcome: 'completed' | 'failed' | 'suspended'; readonly commands: number }> {
  const state: WorkflowState = structuredClone({
    status: 'running',
    completed: 0,
    signals: [],
    notify: [],
    ...history,
  } as WorkflowState);
  const result = await new Replayer(definition, state, undefined).drive();
  if (result.kind === 'diverged') throw result.error;
  const outcome =
    result.kind === 'completed'
      ? 'completed'
      : result.kind === 'suspended'
        ? 'suspended'
        : 'failed';
  return { outcome, commands: sealedCount(state) + state.journal.length };
}
