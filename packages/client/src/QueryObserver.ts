import type { AnyPublicQueryDefinition } from '@baton/core';
import type { QueryState } from './QueryState.ts';

/**
 * A query, by definition (typed; one declared `public: true`, as clients may subscribe to no
 * other) or by name (untyped).
 *
 * @example
 * const byDefinition: QueryRef = balance;
 * const byName: QueryRef = 'balance';
 */
export type QueryRef = AnyPublicQueryDefinition | string;

/**
 * Called with a live query's new state each time it changes.
 *
 * @example
 * const listener: QueryListener<number> = (state) => console.log(state.status, state.data);
 */
export type QueryListener<T> = (state: QueryState<T>) => void;

/**
 * A handle on one live query, shaped for React's `useSyncExternalStore` (both members are
 * bound functions): `subscribe` joins the shared subscription (the network subscription starts
 * with the first listener), `getSnapshot` reads the current state without subscribing.
 *
 * @example
 * const observer = client.observe(balance, { account: 'alice' });
 * const state = useSyncExternalStore(observer.subscribe, observer.getSnapshot);
 */
export interface QueryObserver<T> {
  readonly subscribe: (onChange: () => void) => () => void;
  readonly getSnapshot: () => QueryState<T>;
}
