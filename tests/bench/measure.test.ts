/**
 * The bench's interleaving: each round runs every side once, in an order that rotates, and each
 * candidate is paired with the baseline of its own round (warm-up rounds dropped).
 */
import { describe, expect, it } from 'vitest';
import { interleave, interleaveMany, type Round } from '../../bench/measure.ts';

/** A side whose rounds log their name and take `ns[i]` for round i (one op each). */
function side(name: string, log: string[], ns: readonly number[]): Round {
  let round = 0;
  return async () => {
    log.push(name);
    const taken = ns[round++]!;
    return { ns: taken, ops: 1, latencies: [taken] };
  };
}

describe('interleaveMany', () => {
  it('rotates the order each round and pairs each candidate with its round’s baseline', async () => {
    const log: string[] = [];
    const result = await interleaveMany({
      baseline: side('base', log, [100, 200, 300, 400]),
      candidates: {
        a: side('a', log, [150, 220, 360, 440]),
        b: side('b', log, [90, 260, 330, 480]),
      },
      rounds: 3,
      warmup: 1,
    });
    expect(log).toEqual([
      ...['base', 'a', 'b'],
      ...['a', 'b', 'base'],
      ...['b', 'base', 'a'],
      ...['base', 'a', 'b'],
    ]);
    expect(result.a.baseline).toEqual([200, 300, 400]);
    expect(result.a.candidate).toEqual([220, 360, 440]);
    expect(result.a.paired).toEqual([1.1, 1.2, 1.1]);
    expect(result.b.candidate).toEqual([260, 330, 480]);
    expect(result.b.paired).toEqual([1.3, 1.1, 1.2]);
    expect(result.b.latencies).toEqual({ baseline: [200, 300, 400], candidate: [260, 330, 480] });
  });
});

describe('interleave', () => {
  it('alternates baseline and candidate first (ABBA), and drops the warm-up rounds', async () => {
    const log: string[] = [];
    const result = await interleave({
      baseline: side('base', log, [10, 20, 30, 40]),
      candidate: side('c', log, [15, 30, 30, 20]),
      rounds: 2,
      warmup: 2,
    });
    expect(log).toEqual(['base', 'c', 'c', 'base', 'base', 'c', 'c', 'base']);
    expect(result.paired).toEqual([1, 0.5]);
    expect(result.candidate).toEqual([30, 20]);
  });
});
