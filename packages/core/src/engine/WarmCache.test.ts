import { describe, expect, it } from 'vitest';
import { WarmCache } from './WarmCache.ts';

describe('WarmCache', () => {
  it('gives an entry back once: take removes it', () => {
    const cache = new WarmCache(2);
    cache.put('a', 'run of a');
    expect(cache.size).toBe(1);
    expect(cache.take('a')).toBe('run of a');
    expect(cache.take('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('keeps at most its capacity, putting out the least recently put first', () => {
    const cache = new WarmCache(2);
    cache.put('a', 1);
    cache.put('b', 2);
    cache.put('a', 3); // a is the most recent now
    cache.put('c', 4);
    expect(cache.size).toBe(2);
    expect([cache.take('a'), cache.take('b'), cache.take('c')]).toEqual([3, undefined, 4]);
  });

  it('keeps nothing at capacity 0', () => {
    const cache = new WarmCache(0);
    cache.put('a', 1);
    expect(cache.size).toBe(0);
    expect(cache.take('a')).toBeUndefined();
  });
});
