import { PENDING_STATE, type QueryObserver, type QueryRef, type QueryState } from '@baton/client';
import type { AnyPublicQueryDefinition, ArgsOf, ResultOf } from '@baton/core';
import { useMemo, useSyncExternalStore } from 'react';
import { useBatonClient } from './useBatonClient.ts';

/**
 * Subscribes the component to a live query: `{ status, data, error, version }`, re-rendering
 * when the result changes. Components using the same query and args share one subscription;
 * `data` keeps its reference while the result is unchanged (and unchanged parts of a patched
 * result keep theirs); an error keeps the last good `data`. Pass `'skip'` to subscribe to
 * nothing (the state stays `pending`), e.g. until an id is known. On the server, and in the
 * render that hydrates its HTML, the state is `pending`: the live data comes after. The query
 * must be `public: true`: the server refuses an internal one to clients, so it does not compile.
 *
 * @example
 * function Balance({ account }: { account: string }) {
 *   const { status, data, error } = useQuery(balance, { account });
 *   if (status === 'pending') return <span>…</span>;
 *   return <span title={error?.message}>{data ?? '—'}</span>;
 * }
 */
export function useQuery<Q extends AnyPublicQueryDefinition>(
  query: Q,
  args: ArgsOf<Q> | 'skip',
): QueryState<ResultOf<Q>>;
/** By name: `T` is what you know the query yields. */
export function useQuery<T = unknown>(query: string, args: unknown): QueryState<T>;
export function useQuery(query: QueryRef, args: unknown): QueryState<unknown> {
  const client = useBatonClient();
  const name = typeof query === 'string' ? query : query.name;
  // Distinct from any args, undefined too (whose JSON.stringify is undefined, not a string).
  const argsKey = args === 'skip' ? 'skip' : `args ${JSON.stringify(args)}`;
  // A new observer only when the query or the args' value changes, not their identity.
  // biome-ignore lint/correctness/useExhaustiveDependencies: keyed on the args' JSON on purpose
  const observer: QueryObserver<unknown> = useMemo(
    () => client.observe(name, args),
    [client, name, argsKey],
  );
  return useSyncExternalStore(observer.subscribe, observer.getSnapshot, serverSnapshot);
}

/**
 * What the server renders, and hydration first renders, for every query: pending, as the server
 * has no live data, and a hydrating page must render what the server did.
 */
function serverSnapshot(): QueryState<unknown> {
  return PENDING_STATE;
}
