/**
 * `ctx.map` and `ctx.parallel`: `fn` over each item, at most `maxConcurrency` under way at once,
 * in lanes that each take the next item when their last one is done, so that a run issues its
 * commands in the same order on every replay. The first failure fails it, and no item starts
 * after it.
 */
import { BatonError, ErrorCode } from '../errors.ts';

/**
 * The results of `fn` over `items`, in their order, with at most `options.maxConcurrency` calls
 * under way (every item at once by default). INVALID_ARGUMENT for a `maxConcurrency` that is not
 * an integer of 1 or more, unless there is no item. `stopOnFailure` false: the lanes go on
 * taking items after a failure, as runs an earlier release started did (they replay so).
 *
 * @example
 * const stock = await mapInLanes(skus, (sku) => reserve(sku), { maxConcurrency: 4 });
 */
export function mapInLanes<I, T>(
  items: readonly I[],
  fn: (item: I, index: number) => Promise<T>,
  options: { readonly maxConcurrency?: number } = {},
  stopOnFailure = true,
): Promise<T[]> {
  const limit = options.maxConcurrency ?? items.length;
  if (!Number.isInteger(limit) || limit < 1) {
    if (items.length === 0) return Promise.resolve([]);
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `ctx.map(…, { maxConcurrency }) must be an integer ≥ 1, got ${String(options.maxConcurrency)}`,
    );
  }
  const results: T[] = new Array(items.length);
  let next = 0;
  let failed = false;
  // Each lane takes the next item when its last one is done: the order is deterministic. Once
  // an item failed, the map has failed, so no lane takes another (those under way go on).
  const lane = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const index = next++;
      try {
        results[index] = await fn(items[index] as I, index);
      } catch (error) {
        failed = stopOnFailure;
        throw error;
      }
    }
  };
  const lanes = Array.from({ length: Math.min(limit, items.length) }, lane);
  return Promise.all(lanes).then(() => results);
}
