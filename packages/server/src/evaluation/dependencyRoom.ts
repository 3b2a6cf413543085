import { BatonError, ErrorCode } from '@baton/core';

/**
 * The most dependencies (one per actor a live instance's run read) the instances of one identity
 * scope keep, when a host is given no `maxDependenciesPerScope`: the local engine and the API
 * Gateway handlers share it.
 */
export const DEFAULT_MAX_DEPENDENCIES_PER_SCOPE = 100_000;

/**
 * A host's `maxDependenciesPerScope`, checked (a problem in `problems` unless it is a number
 * ≥ 0), its default filled in.
 *
 * @example
 * const most = resolveMaxDependenciesPerScope(options.maxDependenciesPerScope, problems); // 100_000
 */
export function resolveMaxDependenciesPerScope(
  value: number | undefined,
  problems: string[],
): number {
  const most = value ?? DEFAULT_MAX_DEPENDENCIES_PER_SCOPE;
  if (typeof most !== 'number' || !Number.isFinite(most) || most < 0) {
    problems.push(`maxDependenciesPerScope must be a number ≥ 0, got ${String(most)}`);
  }
  return most;
}

/**
 * A read refused room: `held` dependencies are kept already, `most` is the budget, and `whose`
 * says whose reads count — the caller's identity scope, or every live query of the host.
 *
 * @example
 * const refusal: RoomRefusal = { query: 'totalBalance', actorId: 'account/f', held: 5, most: 5, whose: 'scope' };
 */
export interface RoomRefusal {
  readonly query: string;
  readonly actorId: string;
  readonly held: number;
  readonly most: number;
  readonly whose: 'scope' | 'all';
}

/**
 * The LIMIT_EXCEEDED error of a run that would read `actorId` past its dependency budget. A host
 * that holds the subscription and runs it again as room frees (the local engine) names no
 * `limit` in its details: a client takes that for a subscribe refused, held by none, and
 * subscribes again. A host that withdraws the subscription (`withdrawn`: the API Gateway
 * handlers, which keep no retries) names it, so that the client subscribes again, and the
 * query runs again, as room frees.
 *
 * @example
 * throw dependencyRoomRefused({ query: 'totalBalance', actorId: 'account/f', held: 5, most: 5, whose: 'scope' });
 */
export function dependencyRoomRefused(refusal: RoomRefusal, withdrawn = false): BatonError {
  const { query, actorId, held, most } = refusal;
  const whose = refusal.whose === 'scope' ? `this caller's live queries` : 'all live queries here';
  return new BatonError(
    ErrorCode.LIMIT_EXCEEDED,
    `query "${query}" cannot read ${actorId}: ${whose} hold ${held} actors' reads, the most this server keeps (${most}); it runs again as room frees. Unsubscribe from views no longer shown, or read fewer actors per query`,
    { details: { query, held, most, ...(withdrawn ? { limit: most } : {}) } },
  );
}
