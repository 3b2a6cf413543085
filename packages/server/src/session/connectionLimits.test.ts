import { describe, expect, it } from 'vitest';
import { frameOutcome } from './connectionLimits.ts';

describe('frameOutcome', () => {
  it('passes the first max frames of a second, refuses as many more, closes at the next, then drops', () => {
    const max = 3;
    const outcomes = Array.from({ length: 9 }, (_, i) => frameOutcome(i, max));
    expect(outcomes).toEqual([
      'drop', // 0: a frame its host could not count
      'pass',
      'pass',
      'pass',
      'refuse',
      'refuse',
      'refuse',
      'close',
      'drop',
    ]);
  });
});
