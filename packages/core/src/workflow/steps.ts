/**
 * A workflow step in a live turn: one attempt of it, the key every attempt carries, and what a
 * step with a compensation must commit before it runs (see {@link waitsForCommit}).
 */
import type { TurnDeadline } from '../contextSlots.ts';
import { BatonError, ErrorCode, TerminalError, toBatonError, withheld } from '../errors.ts';
import { asJson } from '../shared/asJson.ts';
import { clip } from '../shared/clip.ts';
import type { Outcome, WorkflowState } from './journal.ts';
import { journalValueTooLarge } from './journalLimits.ts';
import type { ReplayHost, Slot } from './replayTypes.ts';
import { retryDelay, stepFailed, undoRetry } from './retry.ts';
import { withinTimeout } from './stepTimeout.ts';
import type { RetryPolicy } from './WorkflowContext.ts';

/** The most characters of a retried step's last error its journal entry keeps. */
const LAST_ERROR_CHARS = 200;

/** The replayer, as an attempt of a step sees it. */
export interface StepRunner {
  readonly definition: {
    readonly name: string;
    readonly public?: boolean;
    readonly compensationRetry?: RetryPolicy;
  };
  readonly state: WorkflowState;
  /** Journals a result that comes in this turn, and resolves the step's promise with it. */
  complete(slot: Slot, outcome: Outcome): void;
  /** A failure as the journal keeps it (see `Replayer.told`). */
  told(error: BatonError, context: Record<string, unknown>): BatonError;
}

/**
 * Runs the next attempt of step `slot`: its result or final failure is journaled with the turn; a
 * failure that may pass on a later attempt arms the retry's timer instead.
 */
export async function attemptStep(runner: StepRunner, slot: Slot, host: ReplayHost): Promise<void> {
  const { entry } = slot;
  const { fn, options } = slot.step!;
  const attempt = (entry.attempts ?? 0) + 1;
  const compensation = entry.kind === 'compensate';
  entry.attempts = attempt;
  const key = stepKey(host.self.id, runner.state, slot);
  const span = host.span?.(`${runner.definition.name} ${entry.kind} ${entry.name}`, {
    'baton.workflow': runner.definition.name,
    'baton.workflow_id': host.self.key,
    'baton.step': entry.name,
    'baton.step_seq': entry.seq,
    'baton.step_attempt': attempt,
  });
  // Wall-clock, for operators: the turn's clock stands still while its steps run.
  const started = performance.now();
  const ran = () => {
    entry.ranMs = Math.round(performance.now() - started);
  };
  try {
    const value = await withinTimeout(entry.name, options.timeoutMs, (signal) =>
      fn({ key, attempt, signal }),
    );
    ran();
    const result = journaled(`the result of step "${entry.name}"`, value);
    span?.end();
    // Running it again gives as large a result, or one as little JSON: it fails for good.
    if ('error' in result) {
      runner.complete(slot, {
        ok: false,
        error: stepFailed(entry.name, attempt, result.error, compensation).toJSON(),
      });
    } else runner.complete(slot, { ok: true, value: result.value });
  } catch (thrown) {
    ran();
    const error = toBatonError(thrown);
    span?.end(error);
    // A TerminalError says that trying again cannot help (a declined card): no retry.
    const policy =
      compensation || entry.saga
        ? undoRetry(runner.definition.compensationRetry, options.retry)
        : options.retry;
    const delay = thrown instanceof TerminalError ? undefined : retryDelay(policy, attempt);
    if (delay === undefined) {
      const shown = runner.told(error, { step: entry.name, attempt });
      const failed = stepFailed(entry.name, attempt, shown, compensation);
      runner.complete(slot, { ok: false, error: failed.toJSON() });
      return;
    }
    host.log.warn('workflow step failed; it will be retried', {
      step: entry.name,
      attempt,
      error: error.message,
    });
    entry.retryAt = host.now() + delay;
    // As a public workflow's final error would be: an unexpected error's text only in the log.
    const kept = runner.definition.public === true ? withheld(error) : error;
    entry.lastError = clip(`${kept.code}: ${kept.message}`, LAST_ERROR_CHARS);
    host.schedule(entry.seq, entry.retryAt, 'retry');
  }
}

/** `result` as the journal keeps it (JSON), or why it cannot: not JSON, or too large. */
function journaled(what: string, result: unknown): { value: unknown } | { error: BatonError } {
  let value: unknown;
  try {
    value = asJson(result);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const notJson = `${what} is not JSON (${reason}): return plain JSON values from a step`;
    return { error: new BatonError(ErrorCode.INVALID_STATE, notJson) };
  }
  const tooLarge = journalValueTooLarge(what, value);
  return tooLarge ? { error: tooLarge } : { value };
}

/**
 * The key of a step's every attempt: the instance, its run, the step's name and how many of that
 * name came before it. Code that adds a command before it, deployed while an attempt of it was not
 * yet committed, leaves it the same key (by command number it would move). Runs started before
 * keys were made so keep their numbered keys, so that a step retrying across the upgrade does too.
 */
export function stepKey(id: string, state: WorkflowState, slot: Slot): string {
  const prefix = `${id}:${state.runId}`;
  return state.stepKeys === 'name'
    ? `${prefix}:${slot.entry.name}:${slot.nth}`
    : `${prefix}:${slot.seq}`;
}

/** A step with a compensation, due to run, not yet committed for an attempt ("armed"). */
export function unarmed(slot: Slot): boolean {
  const { entry, step } = slot;
  return (
    step?.options.compensate !== undefined &&
    entry.state === 'pending' &&
    entry.attempts === undefined &&
    entry.retryAt === undefined
  );
}

/**
 * The run's compensable steps that will never finish but may have been attempted: committed
 * for an attempt (armed, see {@link waitsForCommit}), then cancelled, or still pending as the run ends.
 * A crashed turn's attempt leaves no trace in the journal, so being armed is what counts.
 */
export function unfinishedAttempts(slots: Iterable<Slot>): Slot[] {
  return [...slots]
    .filter(
      ({ entry, step }) =>
        entry.kind === 'step' &&
        !entry.saga &&
        step?.options.compensate !== undefined &&
        entry.attempts !== undefined &&
        (entry.state === 'pending' || entry.state === 'cancelled'),
    )
    .sort((a, b) => a.seq - b.seq);
}

/** Time a turn keeps, before its host's deadline, for its commit and drain after its last step. */
export const COMMIT_TIME_MS = 1_000;

/**
 * Whether the turn starts no more steps: one as long as its longest so far (run by any of its
 * messages) could end past its host's deadline (a Lambda invocation's timeout) less
 * {@link COMMIT_TIME_MS}, and the turn would then never commit. Its first step always runs: a
 * turn that ran none would never get on.
 */
export function pastDeadline(deadline: TurnDeadline | undefined): boolean {
  return (
    deadline !== undefined &&
    deadline.steps > 0 &&
    Date.now() + deadline.longestMs + COMMIT_TIME_MS > deadline.at
  );
}

/** Counts a step of `ms` against the turn's deadline, if it has one. */
export function ranStep(deadline: TurnDeadline | undefined, ms: number): void {
  if (!deadline) return;
  deadline.steps++;
  deadline.longestMs = Math.max(deadline.longestMs, ms);
}

/**
 * Whether step `runnable` waits for a commit before it runs: the turn then suspends, to drive
 * again on the committed record. What a step may carry outside is committed before it runs, so
 * that a turn that crashes after the step leaves no trace that the next attempt would not match:
 * a compensation (a step with one is armed first, and any attempt of it is then undone, see
 * {@link unfinishedAttempts}), and the values the run `drawn` this turn (a step that passed out a
 * `ctx.uuid()` or a callback's token, or that the run named by `ctx.now()`, would otherwise see
 * another on its next attempt).
 */
export function waitsForCommit(
  drawn: boolean,
  runnable: Slot,
  slots: Iterable<Slot>,
  host: ReplayHost,
): boolean {
  if (drawn || unarmed(runnable)) {
    for (const slot of slots) if (unarmed(slot)) slot.entry.attempts = 0;
    return true;
  }
  // Nor does a step run on a record that holds earlier messages of the turn, uncommitted: what
  // they drew or armed is not committed either (their commit may fail, and its redo draw again),
  // even though this drive drew nothing. They commit first, and the turn drives again on the
  // committed record.
  if (host.commitFirst) {
    host.commitFirst();
    return true;
  }
  return false;
}
