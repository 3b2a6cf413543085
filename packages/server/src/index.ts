/**
 * @baton/server — the reactive query engine: shared query instances, a dependency index over
 * actor versions, batched re-runs, latest-only pushes and leased subscriptions. Transports build
 * on it.
 */
export { canonicalJson } from './canonicalJson.ts';
export { DependencyIndex } from './DependencyIndex.ts';
export { hashText } from './hashText.ts';
export { QueryEngine } from './QueryEngine.ts';
export { identityScope, type QueryEngineOptions } from './QueryEngineOptions.ts';
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
