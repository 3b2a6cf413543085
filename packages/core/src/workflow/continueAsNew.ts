/**
 * `ctx.continueAsNew(input)`: a run that would go on for ever (a loop of months) ends, and the
 * same instance starts a new run with `input` and an empty history, so no history grows without
 * bound and a cold worker replays only the current run. The instance keeps its id, its parents
 * awaiting it, the events it holds for waits to come, its progress and its starter; the new run
 * has a run id (so step keys) of its own and its own `timeoutMs`. The ended run's pages of
 * history are forgotten by turns of their own (`_forget`, see `dropEarlierPages`), and a reply
 * to one of its calls is taken by no call of the new run (the ask's context names the run).
 *
 * What the ended run leaves must need nothing of it: its waits (sleeps, events, callbacks) are
 * cancelled, and it may not leave work under way (a step, a call, a child) or compensations
 * kept, which a new run would neither await nor undo: such a continue is refused, and the run
 * pauses, as on any misuse of `ctx`.
 */
import type { ActorContext } from '../ActorContext.ts';
import { BatonError, ErrorCode } from '../errors.ts';
import { asJson } from '../shared/asJson.ts';
import { schemaIssues } from '../shared/schemaIssues.ts';
import { digest128 } from '../shared/sha256.ts';
import { armDeadline, disarmDeadline } from './deadline.ts';
import { recordEntries, type WorkflowState } from './journal.ts';
import { runThrew } from './replayErrors.ts';
import type { DriveResult } from './replayTypes.ts';
import type { RunEnd } from './startRun.ts';
import type { AnyWorkflowDefinition } from './workflow.ts';

type Ctx = ActorContext<WorkflowState>;

/** What `ctx.continueAsNew` throws: the run ends there, and the next begins with `input`. */
export class ContinueAsNew {
  readonly input: unknown;
  constructor(input: unknown) {
    this.input = input;
  }
}

/**
 * The input of the next run as the record keeps it: parsed by the workflow's input schema, as a
 * start's is, then as JSON. Throws INVALID_ARGUMENT for an input the schema refuses.
 */
export function nextInput(definition: AnyWorkflowDefinition, input: unknown): unknown {
  const parsed = definition.input.safeParse(input);
  if (!parsed.success) {
    const { summary } = schemaIssues('input', parsed.error.issues);
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `ctx.continueAsNew of workflow "${definition.name}": its input schema refuses the input (${summary})`,
    );
  }
  return asJson(parsed.data);
}

/**
 * How a drive ends whose run returned, once the race losers it left are undone: completed, or
 * continued as new — paused instead when the run leaves what a new run would not take over.
 * `leavesUndo`: whether it keeps compensations or work a saga would wait for (`leftToUndo`).
 */
export function runReturned(
  replayer: { readonly definition: AnyWorkflowDefinition; readonly state: WorkflowState },
  run: Extract<RunEnd, { ok: true }>,
  leavesUndo: () => boolean,
): DriveResult {
  if (!run.next) return { kind: 'completed', value: run.value };
  const { definition, state } = replayer;
  const refused = continueRefused(definition, state, leavesUndo());
  if (!refused) return { kind: 'continued', input: run.next.input };
  return { kind: 'paused', error: runThrew(definition, refused) };
}

/** Why the run of `state` may not continue as new, if it may not (see {@link runReturned}). */
function continueRefused(
  definition: AnyWorkflowDefinition,
  state: WorkflowState,
  underWay: boolean,
): BatonError | undefined {
  const pending = recordEntries(state).filter(
    (e) => e.state === 'pending' && (e.kind === 'step' || e.kind === 'call' || e.kind === 'child'),
  );
  if (!underWay && pending.length === 0) return undefined;
  const what = pending.map((e) => `${e.kind} "${e.name}"`).join(', ');
  return new BatonError(
    ErrorCode.INVALID_ARGUMENT,
    `ctx.continueAsNew of workflow "${definition.name}": the run leaves ${what ? `work under way (${what})` : 'compensations kept, or work to undo'}, which a new run would neither await nor undo. Continue where the run has awaited all it started and keeps nothing to undo (steps without compensate), e.g. at the top of a loop`,
  );
}

/**
 * Begins the next run of the instance in its record (the ended run's waits already cancelled):
 * an empty history, `input`, a run id of its own, its deadline. The run starts in the instance's
 * next turn (`_wake`), so a run that continues at once does not loop within one turn.
 */
export function beginNextRun(definition: AnyWorkflowDefinition, ctx: Ctx, input: unknown): void {
  const { state } = ctx;
  const ended = state.runId ?? '';
  disarmDeadline(ctx);
  // The ended run's pages are forgotten in turns of their own (`_forget`): each is a write of
  // its turn's commit, which holds 100 at most.
  if (state.sealed?.pages) {
    if (!state.earlierPages) ctx.send(ctx.self as never, '_forget' as never, {} as never);
    state.earlierPages = [...(state.earlierPages ?? []), { run: ended, pages: state.sealed.pages }];
  }
  // A start of the instance is the first run's, with its input, whatever runs now.
  state.firstRun ??= { runId: ended, input: state.input };
  const runs = (state.continued ?? 0) + 1;
  state.continued = runs;
  // From the ended run's id: the same on a redelivery of this turn, another for each run.
  state.runId = digest128(`${ended}:${runs}`).slice(0, 16);
  state.input = input;
  state.startedAt = ctx.now();
  state.status = 'running';
  state.journal = [];
  state.completed = 0;
  for (const field of ['sealed', 'pinned', 'logged', 'drivenBy', 'sagaFrom'] as const) {
    delete state[field];
  }
  armDeadline(definition, ctx);
  ctx.send(ctx.self as never, '_wake' as never, {} as never);
}
