/** The result table: a spread only where rounds were measured, and a mark where noise decides. */
import { describe, expect, it } from 'vitest';
import { formatTable, pairedFigures, type Row, verdict, withinNoise } from '../../bench/report.ts';

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

  it('marks a verdict of too few paired rounds to tell, whatever its spread', () => {
    const clear = { ratio: 1.0, spread: [0.98, 1.02] as const, budget: max(1.2) };
    expect(withinNoise(row({ ...clear, rounds: 1 }))).toBe(true);
    expect(withinNoise(row({ ...clear, rounds: 4 }))).toBe(true);
    expect(withinNoise(row({ ...clear, rounds: 5 }))).toBe(false);
    // A figure measured once, with no budget, has no verdict to mark.
    expect(withinNoise(row({ rounds: 1 }))).toBe(false);
  });

  it('shows no spread for a figure measured once, and the mark beside the verdict', () => {
    const lines = formatTable([
      row({ bench: 'once', ratio: 0.2, budget: max(0.3) }),
      row({ bench: 'noisy', spread: [1.05, 1.3], rounds: 7, budget: max(1.2) }),
    ]).split('\n');
    expect(lines[2]).toMatch(/^once\s.*\s—\s+—\s+≤ 0\.30x\s+PASS$/);
    expect(lines[3]).toMatch(/^noisy\s.*\s1\.05x–1\.30x\s+7\s+≤ 1\.20x\s+PASS\*$/);
  });

  it('prints both estimators and the rounds a verdict rests on', () => {
    const lines = formatTable([
      row({ bench: 'gain', ratio: 8.206, quotient: 6.68, spread: [6.76, 8.31], rounds: 7 }),
    ]).split('\n');
    expect(lines[0]).toMatch(/\bratio\s+medians ÷\s+paired IQR\s+n\s+budget\s+verdict$/);
    expect(lines[2]).toMatch(/\s8\.21x\s+6\.68x\s+6\.76x–8\.31x\s+7\s+—\s+—$/);
  });

  it('passes a verdict only when the median of the paired ratios and the quotient of the medians both meet the budget', () => {
    const min = (value: number) => ({ kind: 'min' as const, value });
    // Row 2a of 2026-12-05: 8.21x paired, 397.3 / 59.5 = 6.68x between the medians.
    const twoA = row({ ratio: 8.206, quotient: 6.68, spread: [6.0, 7.9], budget: min(8) });
    expect(verdict(twoA)).toBe('UNDER');
    // The estimators part on the budget: the next run may read otherwise, marked so.
    expect(withinNoise(twoA)).toBe(true);
    expect(verdict(row({ ratio: 6.68, quotient: 8.2, budget: min(8) }))).toBe('UNDER');
    expect(verdict(row({ ratio: 8.5, quotient: 8.1, budget: min(8) }))).toBe('PASS');
    expect(
      withinNoise(row({ ratio: 8.5, quotient: 8.1, spread: [8.2, 8.9], budget: min(8) })),
    ).toBe(false);
    expect(verdict(row({ ratio: 1.1, quotient: 1.25, budget: max(1.2) }))).toBe('OVER');
    expect(verdict(row({ ratio: 1.25, quotient: 1.1, budget: max(1.2) }))).toBe('OVER');
    expect(verdict(row({ ratio: 1.1, quotient: 1.15, budget: max(1.2) }))).toBe('PASS');
    // A row with one estimator (counted, or measured against a fixed figure) keeps its reading.
    expect(verdict(row({ ratio: 1.1, budget: max(1.2) }))).toBe('PASS');
  });

  it('takes the figures of paired rounds: their median, quartiles, count and the quotient', () => {
    expect(pairedFigures([1, 2, 3, 4, 5], 2.5)).toEqual({
      ratio: 3,
      spread: [2, 4],
      rounds: 5,
      quotient: 2.5,
    });
    expect(pairedFigures([2, 4])).toEqual({ ratio: 3, spread: [2.5, 3.5], rounds: 2 });
  });
});
