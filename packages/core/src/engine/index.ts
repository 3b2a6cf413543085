/**
 * `@baton/core/engine`: the turn engine that backends run — `createEngine`, the turn itself
 * (`runTurn`), the `Worker` that feeds it from a queue, the outbox drain and the `Sweeper` that
 * catches what a crash left undrained, dead-letter redrive, and firing due timers.
 */

export {
  RECHECK_TIMER as WORKFLOW_RECHECK_TIMER,
  WORKFLOW_COMPENSATIONS_FAILED_LOG,
  WORKFLOW_LEFT_PAUSED_LOG,
} from '../workflow/advance.ts';
export { WAIT_BEHIND_LOG } from '../workflow/eventWaits.ts';
export { summarize as workflowSummary } from '../workflow/journal.ts';
export { PROGRESS_IN_STEP_LOG } from '../workflow/progress.ts';
// An operator's way to an instance by its stored key (see the function).
export { storedInstanceRef } from '../workflow/workflow.ts';
export { GAPS_FORGOTTEN_LOG, GAPS_FORGOTTEN_LOGS } from './advanceRecord.ts';
export {
  type Arrival,
  classify,
  forgetOldestGaps,
  markAfter,
  maxGaps,
  RECORD_GAPS,
} from './channels.ts';
export {
  createEngine,
  DEFAULT_MAX_ATTEMPTS,
  type Engine,
  type EngineOptions,
  type TurnEngine,
} from './createEngine.ts';
export {
  drainOutbox,
  drainOutboxes,
  type OutboxToDrain,
  outboxOf,
  storedOutbox,
  sweepOutbox,
  sweepOutboxes,
  sweepOutboxOf,
} from './drainOutbox.ts';
export { endFailingMessage, failingNotDeadLettered, failingSummary } from './failingHead.ts';
export { batonCommand, commandLine, type FollowUp, shellQuote } from './followUp.ts';
export type {
  CommitListener,
  DeadLetterListener,
  TurnStart,
  TurnStartListener,
  TurnStartMessage,
} from './hooks.ts';
export type { Inbound } from './Inbound.ts';
export { DEAD_LETTER_AT_ONCE_LOG, DEAD_LETTER_LOG, DEAD_LETTER_LOGS } from './keptLetters.ts';
export { REJECTED_LOG } from './messageEffects.ts';
export {
  cancelTimer,
  heldAsk,
  type PauseOptions,
  pauseActor,
  purgeDeadLetter,
  resumeActor,
} from './operatorActions.ts';
export type { OperatorOptions } from './operatorCommit.ts';
export { PAGE_BYTES, pageBytes } from './outcomePages.ts';
export { MOVES_PER_MESSAGE, RECORD_PEERS } from './overflow.ts';
export { parkedLetterRefused } from './parking.ts';
export { type RedriveOptions, redriveDeadLetter } from './redriveDeadLetter.ts';
export {
  answeredSender,
  keptTooOldToTell,
  keyClaimLapsed,
  ofEndedLife,
  redriveNeedsForce,
} from './redriveNeedsForce.ts';
export { runTurn, type TurnCounts, type TurnOptions, type TurnResult } from './runTurn.ts';
export {
  STALE_OUTBOX_LOG,
  SWEEP_BEHIND_LOG,
  SWEEP_CONCURRENCY,
  SWEEP_GROUP,
  SWEEP_LOG,
  Sweeper,
  type SweeperOptions,
  type SweepOptions,
  type SweepResult,
} from './Sweeper.ts';
export type { OpenTelemetryApi, OtelSpan, OtelSpanContext } from './spans.ts';
export { readHistoryWindow, readPagedEntries, readStoredHistory } from './storedHistory.ts';
export { fireDueTimers, fireTimers, HALT_TIMER_REMOVALS, isVoid, timerFire } from './timers.ts';
export {
  type MetricsRecorder,
  type TurnListener,
  type TurnStats,
  turnMetrics,
} from './turnMetrics.ts';
export {
  type ProcessResult,
  PushWorker,
  REDELIVERED_LOG,
  releaseReach,
  retryDelays,
  UNSENT_LOG,
  Worker,
} from './Worker.ts';
export { startWorkerLoops, type WorkerLoops, type WorkerLoopsOptions } from './WorkerLoops.ts';
