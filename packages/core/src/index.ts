/**
 * `@baton/core`: the app API — `actor()`, `query()` and `workflow()` definitions with their
 * types, the error model, the logger and the limits. The layers, each importing only those
 * before it: `@baton/core/shared` (helpers) → this app API → `@baton/core/adapter` (the ports
 * backends implement) → `@baton/core/engine` (the turn engine) and, beside it,
 * `@baton/core/client` (the ingress `Client`).
 */

export type {
  ActorAskOptions,
  ActorContext,
  AskReply,
  HandledMessage,
  ScheduleOptions,
  TimerHandle,
} from './ActorContext.ts';
export {
  type ActorDefinition,
  type ActorOptions,
  type ActorRef,
  type AnyActorDefinition,
  type Authorize,
  actor,
  type HandlerSpec,
  type MessageName,
  type PayloadOf,
  type PublicMessageName,
  type ReplyOf,
  type StateOf,
  type Target,
} from './actor.ts';
export {
  ANONYMOUS,
  type Caller,
  callerDigest,
  callerOf,
  isTrusted,
  SYSTEM,
} from './caller.ts';
export { type BatonApp, type ConnectRequest, defineApp } from './defineApp.ts';
export {
  type AnyEffectDefinition,
  type EffectContext,
  type EffectDefinition,
  effect,
  webhook,
} from './effect.ts';
export {
  BatonError,
  type BatonErrorOptions,
  ErrorCode,
  errorFromJSON,
  isBatonError,
  RetryableError,
  type SerializedError,
  TerminalError,
  toBatonError,
  withheld,
} from './errors.ts';
export type { JsonOf } from './jsonOf.ts';
export {
  MAX_ACTOR_KEY_BYTES,
  MAX_MESSAGE_BYTES,
  MAX_NAME_LENGTH,
  MAX_RECEIVE_MESSAGES,
  MAX_VISIBILITY_TIMEOUT_MS,
} from './limits.ts';
export { childLogger, jsonLogger, type Logger, type LogLevel, silentLogger } from './logger.ts';
export {
  type AnyPublicQueryDefinition,
  type AnyQueryDefinition,
  type ArgsOf,
  type IdentityOf,
  type QueryContext,
  type QueryDefinition,
  type QueryHandler,
  type QueryOptions,
  query,
  type ResultOf,
} from './query.ts';
export type { Schema } from './schema.ts';
export type { Migration } from './stateVersions.ts';
export type {
  CommandKind,
  JournalEntry,
  WorkflowState,
  WorkflowStatus,
  WorkflowSummary,
} from './workflow/journal.ts';
/** The `details.reason` of a workflow instance paused because its run threw (RETRYABLE). */
export { RUN_THREW as WORKFLOW_RUN_THREW } from './workflow/replayErrors.ts';
export { replayWorkflow } from './workflow/replayWorkflow.ts';
export type {
  CallOptions,
  CompensationContext,
  CompensationInfo,
  RaceResult,
  RetryPolicy,
  StepInfo,
  StepOptions,
  WaitForEvent,
  WaitOptions,
  WorkflowCallback,
  WorkflowContext,
} from './workflow/WorkflowContext.ts';
export {
  type AnyEvents,
  type AnyWorkflowDefinition,
  type EventInput,
  type EventName,
  type EventOutput,
  type EventSchemas,
  type EventsOf,
  type InputOf,
  type OutputOf,
  type ProgressOf,
  type SignalOf,
  type WorkflowActor,
  type WorkflowDefinition,
  type WorkflowOptions,
  type WorkflowRef,
  type WorkflowRefOf,
  type WorkflowRequest,
  workflow,
} from './workflow/workflow.ts';
export {
  type WorkflowHistoryEntry,
  type WorkflowQueryArgs,
  workflowQueries,
} from './workflow/workflowQueries.ts';
