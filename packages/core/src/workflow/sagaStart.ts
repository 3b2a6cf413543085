/**
 * What a run's saga runner undoes, in which order, and when it starts: the compensation a step keeps, and the
 * patches a saga's history holds where its runner starts, which say the order it undoes in (a
 * saga an earlier Baton began replays as it ran).
 */
import type { WorkflowState } from './journal.ts';
import type { ReplaySlots } from './ReplaySlots.ts';
import type { ReplayHost, Slot } from './replayTypes.ts';
import type { Compensation, SagaRunner } from './SagaRunner.ts';
import { stepKey, unfinishedAttempts } from './steps.ts';
import type { AnyWorkflowDefinition } from './workflow.ts';

/** What begins the names of Baton's own patches in a history; an app's may not. */
export const BATON_PATCH = 'baton:';

/**
 * The patch a saga's history holds where its runner starts when it undoes every step that may
 * have been attempted (see `keepCompensation`), in the reverse order of the commands. One begun
 * without it (by an earlier Baton) replays as it ran.
 */
const SAGA_BY_COMMAND = `${BATON_PATCH}saga-by-command`;

/**
 * The patch a saga's history holds, after {@link SAGA_BY_COMMAND}, when it also undoes calls that
 * failed with no reply yet may have been applied (see `ReplayContext.call`). One begun without it
 * replays without them.
 */
const SAGA_UNREPLIED_CALLS = `${BATON_PATCH}saga-unreplied-calls`;

/** The replayer, as a kept compensation reads it when it runs (maybe in a later turn). */
export interface CompensationKeeper {
  readonly host: ReplayHost | undefined;
  readonly state: WorkflowState;
  readonly sagas: SagaRunner;
}

/**
 * Keeps the compensation of step `slot`, if it has one: with its result, or with `undefined`
 * for a step with none (failed, or ended unfinished) whose attempts may have had their effect.
 */
export function keepCompensation(replayer: CompensationKeeper, slot: Slot, result: unknown): void {
  const compensate = slot.step?.options.compensate;
  if (!compensate) return;
  replayer.sagas.compensations.push({
    seq: slot.seq,
    name: slot.entry.name,
    step: true,
    attempted: slot.entry.state !== 'done',
    fn: (info) =>
      compensate(result, {
        ...info,
        stepKey: stepKey(replayer.host!.self.id, replayer.state, slot),
        stepAttempts: slot.entry.attempts ?? 0,
      }),
  });
}

/**
 * The order the runner undoes the compensations `kept` in. A saga an earlier Baton began undid
 * what it kept in another order, and left steps with no result undone: its history replays so.
 * `marked(id)` says whether the history holds patch `id` where the runner starts (recording it
 * there if the history ends there).
 */
export function sagaOrder(
  kept: readonly Compensation[],
  marked: (id: string) => boolean,
): { byCommand: boolean; unrepliedCalls: boolean } {
  const byCommand = kept.length > 0 && marked(SAGA_BY_COMMAND);
  const unrepliedCalls =
    byCommand &&
    kept.some((compensation) => !compensation.step && compensation.attempted) &&
    marked(SAGA_UNREPLIED_CALLS);
  return { byCommand, unrepliedCalls };
}

/**
 * Whether a failed run leaves its saga runner something to undo: a compensation kept, a
 * compensable step that may have been attempted, or a compensable call or a race loser's undo
 * under way (the run's commands are `slots`).
 */
export function leftToUndo(sagas: SagaRunner, slots: ReplaySlots): boolean {
  return (
    sagas.compensations.length > 0 ||
    unfinishedAttempts(slots.values()).length > 0 ||
    slots.callsUnderWay() ||
    sagas.undoing ||
    slots.undoUnderWay()
  );
}

/** The replayer, as it starts its saga runner. */
export interface SagaStarter extends CompensationKeeper {
  readonly definition: AnyWorkflowDefinition;
}

/**
 * Starts `replayer`'s saga runner (once) when the run has ended and nothing it waits for is under
 * way (the run's commands are `slots`); `marked` as for {@link sagaOrder}. Whether it started.
 */
export function startRunner(
  replayer: SagaStarter,
  slots: ReplaySlots,
  marked: (id: string) => boolean,
): boolean {
  const { sagas, state } = replayer;
  if (sagas.started || !state.ending) return false;
  // A call under way may yet be applied: the runner starts once its reply came (and kept its
  // compensation, to run first) or it failed. Its reply is journaled before the runner's
  // commands, so a replay starts the runner at the same place.
  if (slots.callsUnderWay() || sagas.undoing || slots.undoUnderWay()) return false;
  for (const slot of unfinishedAttempts(slots.values()))
    keepCompensation(replayer, slot, undefined);
  const order = sagaOrder(sagas.compensations, marked);
  sagas.start(replayer.definition.compensationRetry, order);
  return true;
}
