import { BatonError, ErrorCode } from '@baton/core';
import type { QueryState } from './QueryState.ts';

/**
 * A built-in workflow query's state as `subscribeWorkflow` and React's `useWorkflow` give it:
 * the query yields `null` only for a workflow the app does not register, told as NOT_FOUND.
 *
 * @example
 * knownWorkflow(state, 'fulfil'); // state, or an error state for a `null` result
 */
export function knownWorkflow<T>(state: QueryState<T | null>, workflow: string): QueryState<T> {
  if (state.status !== 'success' || state.data !== null) return state as QueryState<T>;
  const error = new BatonError(
    ErrorCode.NOT_FOUND,
    `the app has no workflow "${workflow}": pass a ref of a workflow its defineApp({ workflows }) registers`,
    { details: { workflow } },
  );
  return { status: 'error', data: undefined, error, version: state.version };
}
