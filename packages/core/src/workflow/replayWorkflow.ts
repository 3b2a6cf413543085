/**
 * Checks a workflow's code against a recorded history, without running anything: the check an
 * app's CI runs over histories of its running instances before a deploy.
 */
import { type JournalEntry, sealedCount, type WorkflowState } from './journal.ts';
import { Replayer } from './Replayer.ts';
import type { AnyWorkflowDefinition } from './workflow.ts';

/**
 * Replays `history` (an instance's state, as its stored record holds it: `workflowHistory`'s
 * result leaves the journal out; with a long history, `options.paged`: the entries the record
 * moved out into pages, as `baton workflows export` writes them) with `definition`'s code — of
 * an instance that ran
 * compensations, the run and then its compensations, as the live turns did. Resolves with how far
 * the history takes the run (`continued` for a run that ends in `ctx.continueAsNew`, `cancelled`
 * or `failed` for a saga that ended so); rejects with
 * NON_DETERMINISTIC, naming the command, when the code no longer issues what the history holds,
 * or with RETRYABLE when the run throws an unexpected error — the error that would pause the
 * instance after the deploy. Steps are not run, nothing is sent.
 *
 * @example
 * // Each file as `baton workflows export checkout <id> > histories/<id>.json` wrote it.
 * const { state, paged } = JSON.parse(readFileSync('histories/o-17.json', 'utf8'));
 * await replayWorkflow(Checkout, state, { paged });
 */
export async function replayWorkflow(
  definition: AnyWorkflowDefinition,
  history: Pick<WorkflowState, 'journal'> & Partial<WorkflowState>,
  options: { readonly paged?: readonly JournalEntry[] } = {},
): Promise<{
  readonly outcome: 'completed' | 'continued' | 'failed' | 'cancelled' | 'suspended';
  readonly commands: number;
}> {
  const state: WorkflowState = structuredClone({
    status: 'running',
    completed: 0,
    signals: [],
    notify: [],
    ...history,
  } as WorkflowState);
  // An instance that ran compensations and ended: its commands from `sagaFrom` on are the saga
  // runner's, replayed as the live turn ran them once the run failed or was cancelled.
  const { status, sagaFrom, error } = state;
  if (
    !state.ending &&
    sagaFrom !== undefined &&
    error !== undefined &&
    (status === 'failed' || status === 'cancelled')
  ) {
    state.ending = { status, error, seq: sagaFrom };
  }
  const replayer = new Replayer(definition, state, undefined, { sealed: options.paged ?? [] });
  const result = await replayer.drive();
  if (result.kind === 'paused') throw result.error;
  const outcome =
    result.kind === 'completed' || result.kind === 'continued'
      ? result.kind
      : result.kind === 'suspended'
        ? 'suspended'
        : result.kind === 'compensated'
          ? (state.ending?.status ?? 'failed')
          : 'failed';
  return { outcome, commands: sealedCount(state) + state.journal.length };
}
