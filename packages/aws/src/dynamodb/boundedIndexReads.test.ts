/**
 * The bounded reads of the sparse index: side by side over its shards, at most `maxItems` items
 * in all, a full shard taking what empty ones leave, and whether they read all there was.
 */
import { describe, expect, it } from 'vitest';
import { boundedReads, type ReadPage } from './boundedIndexReads.ts';
import type { Item } from './itemCodec.ts';

/** Shards where shard `s` (its query) holds `sizes[s]` items, and the pages read of them. */
function shards(sizes: readonly number[]) {
  const pages: Array<{ shard: number; limit: number; served: number }> = [];
  const readPage: ReadPage<number> = async (shard, limit, from) => {
    const start = Number(from?.n?.N ?? 0);
    const end = Math.min(sizes[shard]!, start + limit);
    const items: Item[] = Array.from({ length: end - start }, (_, i) => ({
      id: { S: `${shard}:${start + i}` },
    }));
    pages.push({ shard, limit, served: items.length });
    // As DynamoDB does: a key to go on from whenever the limit was reached.
    return { items, next: end - start === limit ? { n: { N: String(end) } } : undefined };
  };
  return { readPage, queries: sizes.map((_, s) => s), pages };
}

describe('boundedReads', () => {
  it('reads every shard to its end under the bound, and says it read all', async () => {
    const { readPage, queries } = shards([2, 0, 3]);
    const read = await boundedReads(queries, 100, readPage);
    expect(read.found).toHaveLength(5);
    expect(read.complete).toBe(true);
  });

  it('stops at the bound, a full shard taking what empty ones left, and says it stopped', async () => {
    const { readPage, queries, pages } = shards([0, 50, 0, 0]);
    const read = await boundedReads(queries, 20, readPage);
    expect(read.found).toHaveLength(20);
    expect(read.complete).toBe(false);
    // A first round of 5 each; then the full shard alone gets the 15 left.
    expect(pages.map((p) => [p.shard, p.limit])).toEqual([
      [0, 5],
      [1, 5],
      [2, 5],
      [3, 5],
      [1, 15],
    ]);
    // Never more read than the bound: each round shares out what is left of it.
    expect(pages.reduce((n, p) => n + p.served, 0)).toBe(20);
  });

  it('with fewer items left than shards, reads one from each of the first, the rest next round', async () => {
    const { readPage, queries, pages } = shards([1, 1, 1, 1, 1]);
    const read = await boundedReads(queries, 3, readPage);
    expect(read.found.map((i) => i.id?.S)).toEqual(['0:0', '1:0', '2:0']);
    expect(read.complete).toBe(false);
    expect(pages.map((p) => p.limit)).toEqual([1, 1, 1]);
  });

  it('counts a bound met exactly by the last item as stopped: the count is then a lower bound', async () => {
    const { readPage, queries } = shards([4]);
    const read = await boundedReads(queries, 4, readPage);
    expect(read.found).toHaveLength(4);
    expect(read.complete).toBe(false);
  });
});
