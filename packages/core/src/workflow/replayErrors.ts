/**
 * How a replay ends short of its run's own end: the NON_DETERMINISTIC errors that pause an
 * instance until code that replays its history is deployed (the history diverged, a race entry
 * that is no command, a wait on something outside); the RETRYABLE one of a run that threw an
 * unexpected error, and which errors a run throws pause it (`pausesRun`) or fail it.
 */
import { BatonError, ErrorCode, isBatonError, withheld } from '../errors.ts';
import {
  type CommandKind,
  type JournalEntry,
  recordEntries,
  rulesAtLeast,
  type WorkflowState,
} from './journal.ts';
import type { ReplayHost } from './replayTypes.ts';
import type { SagaRunner } from './SagaRunner.ts';
import type { AnyWorkflowDefinition } from './workflow.ts';

/** The `details.reason` of a pause whose run raced something that is not a command's promise. */
export const RACE_ENTRY = 'RACE_ENTRY';

/** The `details.reason` of a pause whose run awaits something that is not a command. */
export const AWAITS_OUTSIDE = 'AWAITS_OUTSIDE';

/**
 * NON_DETERMINISTIC: the code no longer matches the history (see `Replayer.diverge`), which code
 * of version `recordedBy` carried last. When that is this code's own version, no deploy may
 * have changed anything: the run is then not deterministic, and the error says where to look.
 */
export function divergence(
  definition: AnyWorkflowDefinition,
  what: string,
  entry: JournalEntry | undefined,
  recordedBy: string | undefined,
): BatonError {
  const version = definition.version;
  const sameVersion = recordedBy === version;
  return new BatonError(
    ErrorCode.NON_DETERMINISTIC,
    `workflow "${definition.name}" (code version ${version}) does not replay its history: ${what}. ` +
      (sameVersion
        ? 'Code of this same version recorded it: unless a deploy (or a save under baton dev) changed the code without raising its version, the run is not deterministic, choosing its commands by something a replay sees otherwise (Math.random(), Date.now(), new Date(), state outside the workflow): take those from ctx.random(), ctx.now() or a step. '
        : '') +
      'The instance is paused with its history intact: deploy code that issues the same commands ' +
      '(keep the old path behind ctx.patched(id)) and resume it',
    {
      details: {
        workflow: definition.name,
        version,
        ...(recordedBy === undefined ? {} : { recordedBy }),
        ...(entry ? { seq: entry.seq, step: entry.name, kind: entry.kind } : {}),
      },
    },
  );
}

/**
 * NON_DETERMINISTIC: the run passed `ctx.race` an entry (`index`) that is no promise ctx
 * returned (see `Replayer.refuseRace`).
 */
export function raceEntryRefused(workflow: string, index: number): BatonError {
  return new BatonError(
    ErrorCode.NON_DETERMINISTIC,
    `workflow "${workflow}" passed ctx.race an entry (${index}) that is not the promise a ctx command returned (one derived with .then, .catch or .finally, an async function's, Promise.all's): a race cancels its losers by their commands, and cannot find this one's. Race the commands themselves and map the winner's value after — const { index, value } = await ctx.race([ctx.waitForEvent('go'), ctx.sleep(ms)]) — deploy, and resume the instance`,
    { details: { workflow, reason: RACE_ENTRY, entry: index } },
  );
}

/** The commands a compensation may not issue on the run's `ctx`, whose ended run issues none. */
const WAITS: ReadonlySet<CommandKind> = new Set([
  'step',
  'call',
  'send',
  'sleep',
  'event',
  'callback',
  'child',
]);

/** Whether a command of `kind` is one a run waits on (not `now`, `random`, `uuid`, a patch). */
export const isWaitingCommand = (kind: CommandKind): boolean => WAITS.has(kind);

/**
 * INVALID_ARGUMENT when a compensation issues command `kind` on the run's `ctx`, which issues
 * nothing once its run has ended (the command would wait for ever); else `undefined`: for a
 * value drawn or a patch asked for, which wait on nothing, and in runs started earlier, which
 * replay as they ran, the command dropped (see `rules` in the record).
 */
export function runContextInCompensation(
  replayer: { readonly definition: AnyWorkflowDefinition; readonly state: WorkflowState },
  kind: CommandKind,
  name: string,
): BatonError | undefined {
  if (!WAITS.has(kind) || !rulesAtLeast(replayer.state, 2)) return undefined;
  const workflow = replayer.definition.name;
  return new BatonError(
    ErrorCode.INVALID_ARGUMENT,
    `workflow "${workflow}": a compensation issued ${kind} "${name}" on the run's ctx, which issues nothing once its run has ended: undo with the context a compensation is given — compensate: (result, saga) => saga.call(…)`,
    { details: { workflow, kind, name } },
  );
}

/**
 * Why a live replay can go no further by itself, if so: nothing is pending in the record, no
 * command is runnable, and its run (not ended, `runSettled` false) or a compensation under way
 * awaits a promise no command settles — a fetch, a timer of its own, or, in a compensation, a
 * command of the run's ctx, which issues nothing once the run has ended. Either would wait for
 * good without a word: the instance pauses instead, until a deploy and a `resume`. (Nothing
 * that can go on stops: a run or a compensation waiting here has nothing left to resume it.)
 */
export function awaitingOutside(
  replayer: {
    readonly definition: AnyWorkflowDefinition;
    readonly state: WorkflowState;
    readonly sagas: SagaRunner;
    readonly host: ReplayHost | undefined;
  },
  runSettled: boolean,
): BatonError | undefined {
  const { definition, state, sagas } = replayer;
  if (!replayer.host || recordEntries(state).some((entry) => entry.state === 'pending')) {
    return undefined;
  }
  if (!runSettled && !state.ending && !sagas.started) return awaitsOutside(definition.name);
  if (sagas.undoing || (sagas.started && !sagas.finished)) {
    return compensationAwaitsOutside(definition.name, sagas.current, sagas.dropped);
  }
  return undefined;
}

/** NON_DETERMINISTIC: the run awaits a promise that is not a command. */
function awaitsOutside(workflow: string): BatonError {
  return new BatonError(
    ErrorCode.NON_DETERMINISTIC,
    `workflow "${workflow}" awaits something that is not a ctx command (a fetch, a timer or a promise of its own): nothing in its history can resume it. Await only ctx's promises (ctx.step for work outside, ctx.sleep to wait), deploy, and resume the instance`,
    { details: { workflow, reason: AWAITS_OUTSIDE } },
  );
}

/**
 * NON_DETERMINISTIC: the compensation of `compensation` (a race loser's when `undefined`) awaits
 * a promise that is not a command of its saga; `dropped`, the last command asked of the run's
 * ctx once its run had ended.
 */
function compensationAwaitsOutside(
  workflow: string,
  compensation: string | undefined,
  dropped: string | undefined,
): BatonError {
  const which =
    compensation === undefined
      ? "a race loser's compensation"
      : `the compensation of "${compensation}"`;
  const why =
    dropped === undefined
      ? "a command of the run's ctx, which issues nothing once its run has ended, a fetch, or a promise of its own"
      : `the run's ctx was asked for ${dropped} since the run ended, and issues nothing then`;
  return new BatonError(
    ErrorCode.NON_DETERMINISTIC,
    `workflow "${workflow}": ${which} awaits something that is not a command of its saga (${why}): nothing can resume it. Undo with the context a compensation is given — compensate: (result, saga) => saga.call(…), saga.step for work outside — deploy, and resume the instance`,
    {
      details: {
        workflow,
        reason: AWAITS_OUTSIDE,
        ...(compensation !== undefined && { compensation }),
        ...(dropped !== undefined && { dropped }),
      },
    },
  );
}

/** The `details.reason` of a pause whose run threw an unexpected error (see {@link runThrew}). */
export const RUN_THREW = 'RUN_THREW';

/**
 * The codes of Baton errors a run's own code throws that pause it: a misuse of `ctx` (a bug, as
 * a TypeError is) and a RetryableError (a passing fault).
 */
const PAUSING_CODES: ReadonlySet<string> = new Set([
  ErrorCode.INVALID_ARGUMENT,
  ErrorCode.INVALID_REF,
  ErrorCode.INVALID_PAYLOAD,
  ErrorCode.UNKNOWN_ACTOR,
  ErrorCode.UNKNOWN_MESSAGE,
  ErrorCode.RETRYABLE,
]);

/**
 * Whether what a run threw pauses the instance rather than ending it: anything but a Baton error
 * (a TypeError, a plain Error), a RetryableError, and a misuse of `ctx` (a bad argument, a
 * payload its schema refuses) — taken, as an actor's handler takes them, for a bug or a passing
 * fault, where failing the run would run its compensations for good. A command's own outcome
 * the run lets through (a step's STEP_FAILED, a call's rejection, a wait's TIMED_OUT: see
 * {@link journaled}) and a final Baton error (a TerminalError) fail the run; so does any error
 * of a run an earlier Baton started (`thrown` absent from its record).
 */
export function pausesRun(state: WorkflowState, thrown: unknown): boolean {
  if (state.thrown !== 'pauses') return false;
  if (!isBatonError(thrown)) return true;
  return !OUTCOMES.has(thrown) && PAUSING_CODES.has(thrown.code);
}

/** The errors that are commands' journaled outcomes: the same on every replay, no bug to fix. */
const OUTCOMES = new WeakSet<BatonError>();

/** `error`, a command's journaled outcome that the run gets, marked so (see {@link pausesRun}). */
export function journaled(error: BatonError): BatonError {
  OUTCOMES.add(error);
  return error;
}

/**
 * RETRYABLE: why an instance whose run threw `thrown` is paused (see {@link pausesRun}). A
 * public workflow's readers see its status: there, what an unexpected error says (a server path,
 * a record's data) is withheld, as a failed command's is, and the worker's log line has it.
 */
export function runThrew(definition: AnyWorkflowDefinition, thrown: unknown): BatonError {
  const { name, version } = definition;
  return new BatonError(
    ErrorCode.RETRYABLE,
    `workflow "${name}" (code version ${version}) threw ${shownText(definition, thrown)}. An error that is not a TerminalError pauses the instance, its history intact, where a TerminalError would fail it and run its compensations. It is replayed at its next recheck (baton workflows show says when): if the code is at fault, deploy a fix, and resume it`,
    { details: { workflow: name, version, reason: RUN_THREW }, cause: thrown },
  );
}

/** What a run threw, said whole: for the log, and for the readers of a workflow that is not public. */
export function thrownText(thrown: unknown): string {
  if (isBatonError(thrown)) return `${thrown.code}: ${thrown.message}`;
  return thrown instanceof Error ? `${thrown.name}: ${thrown.message}` : String(thrown);
}

/** What the readers of `definition`'s instances are told its run threw (see {@link runThrew}). */
function shownText(definition: AnyWorkflowDefinition, thrown: unknown): string {
  if (definition.public !== true) return thrownText(thrown);
  if (isBatonError(thrown)) return thrownText(withheld(thrown));
  const what = thrown instanceof Error ? `an error, ${thrown.name},` : 'a value that is no Error,';
  return `${what} whose text is withheld from the readers of this public workflow (the worker's log has it)`;
}

/**
 * What a run that threw fails with: a Baton error as it is, anything else (thrown by a run an
 * earlier Baton started, see {@link pausesRun}) as REJECTED; in a public workflow, without its
 * text, which `log` gets.
 */
export function runFailure(
  definition: AnyWorkflowDefinition,
  thrown: unknown,
  log: (text: string) => void,
): BatonError {
  if (isBatonError(thrown)) return definition.public === true ? withheld(thrown, log) : thrown;
  const message = thrown instanceof Error ? thrown.message : String(thrown);
  if (definition.public !== true)
    return new BatonError(ErrorCode.REJECTED, message, { cause: thrown });
  log(thrownText(thrown));
  return new BatonError(ErrorCode.REJECTED, `its run threw ${shownText(definition, thrown)}`, {
    cause: thrown,
  });
}
