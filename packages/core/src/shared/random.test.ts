import { describe, expect, it } from 'vitest';
import { lifeId, randomOf, seededRandom, uuidOf } from './random.ts';

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

describe('uuidOf and randomOf', () => {
  it('derive the same value from the same seed, and distinct ones from distinct seeds', () => {
    const seeds = Array.from({ length: 2000 }, (_, n) => `wf-order/o:run:${n}`);
    const uuids = seeds.map(uuidOf);
    for (const uuid of uuids) {
      expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
    expect(new Set(uuids).size).toBe(seeds.length);
    expect(seeds.map(uuidOf)).toEqual(uuids);
    const numbers = seeds.map(randomOf);
    expect(seeds.map(randomOf)).toEqual(numbers);
    expect(new Set(numbers).size).toBe(seeds.length);
    for (const n of numbers) {
      expect(n).toBeGreaterThanOrEqual(0);
      expect(n).toBeLessThan(1);
    }
    // Spread over [0, 1): each tenth holds about a tenth of them.
    const tenths = Array.from(
      { length: 10 },
      (_, t) => numbers.filter((n) => Math.floor(n * 10) === t).length,
    );
    for (const count of tenths) expect(count).toBeGreaterThan(120);
  });
});
