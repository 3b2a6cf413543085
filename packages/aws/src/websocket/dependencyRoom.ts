import { dependencyRoomRefused, type ReadPosition } from '@baton/server/evaluation';
import type { InstanceItem } from './registry/Instances.ts';
import type { ReactiveContext } from './WebSocketOptions.ts';

/**
 * Checks a run that read actors its instance did not hold, once its count is written and before
 * its dependencies are stored: throws to refuse it (the caller then sets its count back).
 *
 * @example
 * const room: RoomCheck = async (instance, deps) => {
 *   if (Object.keys(deps).length > 10) throw new Error('too many');
 * };
 */
export type RoomCheck = (
  instance: InstanceItem,
  deps: Readonly<Record<string, ReadPosition>>,
) => Promise<void>;

/**
 * `maxDependenciesPerScope` on API Gateway, for a subscribe's run: the dependencies of the
 * instances of one identity scope (every anonymous subscriber shares one), as their scope's
 * count items say, may not pass it. The run's count is written (by `refreshInstance`) before the
 * others are summed, so that subscribes side by side (API Gateway hands frames to invocations in
 * parallel) each count the others'. A run past it is refused as in the local engine — an actor
 * it already held is no new read, a run whose reads move keeps its share — its subscription
 * withdrawn (`withdraw`) and LIMIT_EXCEEDED thrown, naming its `limit` (`refreshInstance` sets
 * its count back): the client subscribes again, with its backoff, and the query runs again as
 * room frees. It costs a query of the scope's count items, on a subscribe that adds reads only;
 * a push costs nothing.
 *
 * @example
 * const room = scopeRoom(context, () => registry.removeSubscription(connectionId, 's1'));
 */
export function scopeRoom(context: ReactiveContext, withdraw: () => Promise<void>): RoomCheck {
  return async (instance, deps) => {
    const most = context.maxDependenciesPerScope;
    const others = await context.registry.instances.heldBeside(instance);
    const past = readPastRoom(Object.keys(deps), instance.deps, others, most);
    if (!past) return;
    await withdraw();
    throw dependencyRoomRefused({ query: instance.query, ...past, most, whose: 'scope' }, true);
  };
}

/**
 * The first of `reads` (in the order the run made them) with no room, and what its scope held
 * then: the others' `held`, and the reads before it. One the instance `had` is never refused.
 */
function readPastRoom(
  reads: readonly string[],
  had: Readonly<Record<string, ReadPosition>>,
  held: number,
  most: number,
): { actorId: string; held: number } | undefined {
  for (const [before, actorId] of reads.entries()) {
    if (!(actorId in had) && held + before >= most) return { actorId, held: held + before };
  }
  return undefined;
}
