import { describe, expect, it } from 'vitest';
import { lifeId, seededRandom } from './random.ts';

describe('lifeId', () => {
  it('gives 12 characters of [0-9a-z], distinct past the bytes it draws ahead', () => {
    // 256 ids use up the bytes drawn ahead; the next ones are drawn anew.
    const ids = Array.from({ length: 1000 }, () => lifeId());
    for (const id of ids) expect(id).toMatch(/^[0-9a-z]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('draws from a given source: the same seed gives the same ids', () => {
    const first = seededRandom(7);
    const second = seededRandom(7);
    const ids = [lifeId(first), lifeId(first)];
    expect([lifeId(second), lifeId(second)]).toEqual(ids);
    expect(ids[0]).toMatch(/^[0-9a-z]{12}$/);
    expect(ids[0]).not.toBe(ids[1]);
  });

  it('uses the whole alphabet', () => {
    const seen = new Set(Array.from({ length: 200 }, () => lifeId()).join(''));
    expect(seen.size).toBe(36);
  });
});
