/**
 * `@baton/server/evaluation`: a query evaluated once, outside an engine — what a host without
 * one in memory builds on (the API Gateway handlers of `@baton/aws/websocket`, where each event
 * is its own Lambda invocation and the instances live in DynamoDB): run a query recording the
 * position of each actor it read, compare read positions with commits, key an instance by
 * (query, canonical args, identity scope), and hash a result.
 */
export { identityScope } from '../QueryEngineOptions.ts';
export {
  type EvaluateEnvironment,
  type Evaluation,
  evaluateQuery,
  MAX_QUERY_READ_ID_BYTES,
  MAX_QUERY_READS,
  type ReadObserver,
} from './evaluateQuery.ts';
export { hashText } from './hashText.ts';
export {
  movedPast,
  positionOf,
  type ReadPosition,
  samePosition,
  withNewest,
} from './ReadPosition.ts';
export {
  MAX_QUERY_ARGS_BYTES,
  type ResolvedRequest,
  resolveInstanceKey,
} from './resolveInstanceKey.ts';
