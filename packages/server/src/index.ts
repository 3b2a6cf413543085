/**
 * @baton/server — the reactive query engine: shared query instances, a dependency index over
 * actor versions, batched re-runs, latest-only pushes and leased subscriptions. Transports build
 * on it (the local host in `@baton/server/ws`, the API Gateway handlers in `@baton/aws`).
 */
export { DependencyIndex } from './DependencyIndex.ts';
export {
  type EvaluateEnvironment,
  type Evaluation,
  evaluateQuery,
  type ReadObserver,
} from './evaluateQuery.ts';
export { hashText } from './hashText.ts';
export { QueryEngine } from './QueryEngine.ts';
export { identityScope, type QueryEngineOptions } from './QueryEngineOptions.ts';
export type { RunOutcome } from './QueryInstance.ts';
export type {
  QueryError,
  QueryResult,
  QueryUpdate,
  ResumeAnswer,
} from './QueryUpdate.ts';
export { type ResolvedRequest, resolveInstanceKey } from './resolveInstanceKey.ts';
export type {
  QueryEngineStats,
  QuerySubscription,
  ResumeRequest,
  SubscribeRequest,
} from './SubscribeRequest.ts';
