import { dependencyRoomRefused, type ReadPosition } from '@baton/server/evaluation';
import type { InstanceItem } from './registry/Instances.ts';
import type { ReactiveContext } from './WebSocketOptions.ts';

/**
 * Checks a run that read actors its instance did not hold, before its dependencies are stored:
 * throws to refuse it.
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
 * count items say, may not pass it. The run's count is written before the others are summed, so
 * that subscribes side by side (API Gateway hands frames to invocations in parallel) each count
 * the others'. A run past it is refused as in the local engine — an actor it already held is no
 * new read, a run whose reads move keeps its share — its count is set back, its subscription
 * withdrawn (`withdraw`) and LIMIT_EXCEEDED thrown, naming its `limit`: the client subscribes
 * again, with its backoff, and the query runs again as room frees. It costs a write and a
 * query of the scope's count items, on a subscribe that adds reads only; a push costs nothing.
 *
 * @example
 * const room = scopeRoom(context, () => registry.removeSubscription(connectionId, 's1'));
 */
export function scopeRoom(context: ReactiveContext, withdraw: () => Promise<void>): RoomCheck {
  return async (instance, deps) => {
    const { instances } = context.registry;
    const most = context.maxDependenciesPerScope;
    const reads = Object.keys(deps);
    await instances.count(instance, reads.length);
    const others = await instances.heldBeside(instance);
    const past = readPastRoom(reads, instance.deps, others, most);
    if (!past) return;
    await instances.count(instance, Object.keys(instance.deps).length);
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
