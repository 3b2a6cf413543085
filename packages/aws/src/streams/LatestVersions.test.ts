import { describe, expect, it } from 'vitest';
import { LatestVersions } from './LatestVersions.ts';

describe('LatestVersions', () => {
  it('lets through only versions newer than the last one of the same actor', () => {
    const latest = new LatestVersions(10);
    const passed = [1, 2, 2, 1, 3, 5, 4].filter((ver) => latest.advance('account/a', ver));
    expect(passed).toEqual([1, 2, 3, 5]);
    expect(latest.advance('account/b', 1)).toBe(true);
  });

  it('forgets the actor updated least recently once past its bound', () => {
    const latest = new LatestVersions(2);
    latest.advance('a', 5);
    latest.advance('b', 5);
    latest.advance('a', 6); // a is now the most recent
    latest.advance('c', 1); // evicts b
    expect(latest.size).toBe(2);
    expect(latest.advance('a', 6)).toBe(false);
    expect(latest.advance('b', 5)).toBe(true);
  });
});
