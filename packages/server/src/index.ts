/**
 * `@baton/server`: the reactive query engine — shared query instances, a dependency index over
 * actor versions, batched re-runs, latest-only pushes and leased subscriptions. The local
 * WebSocket host is `@baton/server/ws`; the protocol session both WebSocket hosts share is
 * `@baton/server/session`; what hosts without an engine in memory build on (the API Gateway
 * handlers) is `@baton/server/evaluation`.
 */
export { QueryEngine, type QueryInstanceInfo } from './QueryEngine.ts';
export type { QueryEngineOptions } from './QueryEngineOptions.ts';
export type { RunOutcome } from './QueryInstance.ts';
export type {
  QueryError,
  QueryResult,
  QueryUpdate,
  ResumeAnswer,
} from './QueryUpdate.ts';
export type {
  QueryEngineStats,
  QuerySubscription,
  ResumeRequest,
  SubscribeRequest,
} from './SubscribeRequest.ts';
