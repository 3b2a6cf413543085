import type { BatonError } from '@baton/core';

/**
 * The status of a live query: `pending` until its first result, `success` while it holds the
 * newest result, `error` after the server refused or failed it (the last good `data` stays).
 *
 * @example
 * if (state.status === 'error') console.warn(state.error.code);
 */
export type QueryStatus = 'pending' | 'success' | 'error';

/**
 * A live query's state before its first result (also what a skipped query reports).
 *
 * @example
 * const state: QueryPending = { status: 'pending', data: undefined, error: undefined, version: undefined };
 */
export interface QueryPending {
  readonly status: 'pending';
  readonly data: undefined;
  readonly error: undefined;
  readonly version: undefined;
}

/**
 * A live query holding its newest result at instance `version`.
 *
 * @example
 * if (state.status === 'success') render(state.data);
 */
export interface QuerySuccess<T> {
  readonly status: 'success';
  readonly data: T;
  readonly error: undefined;
  readonly version: number;
}

/**
 * A live query the server refused or failed. `data` and `version` are the last good result's,
 * if there was one; a later result turns it back into `success`.
 *
 * @example
 * if (state.status === 'error' && state.error.code === 'REJECTED') showSignIn();
 */
export interface QueryFailure<T> {
  readonly status: 'error';
  readonly data: T | undefined;
  readonly error: BatonError;
  readonly version: number | undefined;
}

/**
 * What a live query holds: `{ status, data, error, version }`. The object (and `data` inside
 * it) is replaced only when something changed, and a result whose hash equals the held one
 * keeps the same `data` object, so it can be compared by reference (React's
 * `useSyncExternalStore`, `memo`).
 *
 * @example
 * client.subscribe(balance, { account: 'alice' }, (state: QueryState<number>) => {
 *   text.textContent = state.status === 'success' ? String(state.data) : '…';
 * });
 */
export type QueryState<T> = QueryPending | QuerySuccess<T> | QueryFailure<T>;

/**
 * The state of every query without a result yet: one shared, frozen object.
 *
 * @example
 * client.getQueryState(balance, { account: 'alice' }) === PENDING_STATE; // before its first result
 */
export const PENDING_STATE: QueryPending = Object.freeze({
  status: 'pending',
  data: undefined,
  error: undefined,
  version: undefined,
});
