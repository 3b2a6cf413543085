/** The result table: a spread only where rounds were measured, and a mark where noise decides. */
import { describe, expect, it } from 'vitest';
import { formatTable, type Row, withinNoise } from '../../bench/report.ts';

const row = (over: Partial<Row>): Row => ({
  bench: 'b',
  baseline: '1 ms',
  candidate: '1.1 ms',
  ratio: 1.1,
  ...over,
});
const max = (value: number) => ({ kind: 'max' as const, value });

describe('the bench table', () => {
  it('marks a verdict whose budget lies within the paired IQR, on its bounds too, and no other', () => {
    expect(withinNoise(row({ spread: [1.05, 1.3], budget: max(1.2) }))).toBe(true);
    expect(withinNoise(row({ spread: [1.2, 1.3], budget: max(1.2) }))).toBe(true);
    expect(withinNoise(row({ spread: [1.21, 1.3], budget: max(1.2) }))).toBe(false);
    expect(withinNoise(row({ spread: [1.0, 1.19], budget: max(1.2) }))).toBe(false);
    expect(withinNoise(row({ budget: max(1.2) }))).toBe(false);
    expect(withinNoise(row({ spread: [1.0, 1.3] }))).toBe(false);
  });

  it('shows no spread for a figure measured once, and the mark beside the verdict', () => {
    const lines = formatTable([
      row({ bench: 'once', ratio: 0.2, budget: max(0.3) }),
      row({ bench: 'noisy', spread: [1.05, 1.3], budget: max(1.2) }),
    ]).split('\n');
    expect(lines[2]).toMatch(/^once\s.*\s—\s+≤ 0\.30x\s+PASS$/);
    expect(lines[3]).toMatch(/^noisy\s.*\s1\.05x–1\.30x\s+≤ 1\.20x\s+PASS\*$/);
  });
});
