/**
 * Runs `run` on every item, at most `limit` at once: each of `limit` lanes takes the next item
 * when its last one is done. Every item is run even if some fail; the first failure is thrown
 * once all have settled, as `Promise.all` over them all would report it, without starting them
 * all at once.
 *
 * @example
 * await forEachAtMost(pending, 16, (request) => answer(request));
 */
export async function forEachAtMost<T>(
  items: readonly T[],
  limit: number,
  run: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: { readonly error: unknown } | undefined;
  const lane = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      try {
        await run(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, lane));
  if (failure) throw failure.error;
}
