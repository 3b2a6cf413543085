/**
 * How a replay ends short of its run's own end: the NON_DETERMINISTIC errors that pause an
 * instance until code that replays its history is deployed (the history diverged, a race entry
 * that is no command, a wait on something outside), and the failure a run that threw ends with.
 */
import { BatonError, ErrorCode, isBatonError } from '../errors.ts';
import type { JournalEntry } from './journal.ts';
import type { AnyWorkflowDefinition } from './workflow.ts';

/** The `details.reason` of a pause whose run raced something that is not a command's promise. */
export const RACE_ENTRY = 'RACE_ENTRY';

/** The `details.reason` of a pause whose run awaits something that is not a command. */
export const AWAITS_OUTSIDE = 'AWAITS_OUTSIDE';

/** NON_DETERMINISTIC: the code no longer matches the history (see `Replayer.diverge`). */
export function divergence(
  definition: AnyWorkflowDefinition,
  what: string,
  entry: JournalEntry | undefined,
): BatonError {
  const version = definition.version;
  return new BatonError(
    ErrorCode.NON_DETERMINISTIC,
    `workflow "${definition.name}" (code version ${version}) does not replay its history: ${what}. ` +
      'The instance is paused with its history intact: deploy code that issues the same commands ' +
      '(keep the old path behind ctx.patched(id)) and resume it',
    {
      details: {
        workflow: definition.name,
        version,
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

/** NON_DETERMINISTIC: the run awaits a promise that is not a command (see `#awaitsOutside`). */
export function awaitsOutside(workflow: string): BatonError {
  return new BatonError(
    ErrorCode.NON_DETERMINISTIC,
    `workflow "${workflow}" awaits something that is not a ctx command (a fetch, a timer or a promise of its own): nothing in its history can resume it. Await only ctx's promises (ctx.step for work outside, ctx.sleep to wait), deploy, and resume the instance`,
    { details: { workflow, reason: AWAITS_OUTSIDE } },
  );
}

/**
 * What a run that threw failed with: a Baton error as it is, anything else as REJECTED (a run's
 * own error is final, not a retryable turn).
 */
export function runFailure(thrown: unknown): BatonError {
  if (isBatonError(thrown)) return thrown;
  const message = thrown instanceof Error ? thrown.message : String(thrown);
  return new BatonError(ErrorCode.REJECTED, message, { cause: thrown });
}
