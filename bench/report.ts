/** The result rows every benchmark returns, and the table `run.ts` prints at the end. */
import { formatRatio } from './measure.ts';

/** `max`: the ratio must stay at or below `value` (an overhead); `min`: at or above (a gain). */
export interface Budget {
  readonly kind: 'max' | 'min';
  readonly value: number;
}

export interface Row {
  readonly bench: string;
  readonly baseline: string;
  readonly candidate: string;
  /**
   * As the budget reads it (candidate cost / baseline cost, or candidate rate / baseline rate):
   * the median of the ratios of adjacent rounds, so it can differ a little from the quotient of
   * the two medians shown beside it.
   */
  readonly ratio: number;
  /**
   * Quartiles (25th, 75th percentile) of the per-round paired ratios, to show the noise; none for
   * a figure counted or measured once.
   */
  readonly spread?: readonly [number, number];
  /** DESIGN's budget for this figure; none where DESIGN sets none (the row is for reading). */
  readonly budget?: Budget;
  /** The two medians as numbers, in `unit` (for latest.json). */
  readonly values?: {
    readonly baseline: number;
    readonly candidate: number;
    readonly unit: string;
  };
  /** Calls per operation by side and call name, counted in the runs (for latest.json). */
  readonly calls?: Readonly<Record<string, Readonly<Record<string, number>>>>;
  /** Per-operation latencies in ns of both sides, for the chart. */
  readonly latencies?: {
    readonly baseline: readonly number[];
    readonly candidate: readonly number[];
  };
}

export function verdict(row: Row): string {
  if (!Number.isFinite(row.ratio)) return 'ERROR';
  if (!row.budget) return '—';
  const { kind, value } = row.budget;
  if (kind === 'max') return row.ratio <= value ? 'PASS' : 'OVER';
  return row.ratio >= value ? 'PASS' : 'UNDER';
}

/**
 * Whether the budget lies within the row's paired IQR: the middle half of its rounds falls on
 * both sides of it, so its verdict may read otherwise in the next run.
 */
export function withinNoise(row: Row): boolean {
  if (!row.budget || !row.spread) return false;
  const [low, high] = row.spread;
  return low <= row.budget.value && row.budget.value <= high;
}

export function formatBudget(budget: Budget | undefined): string {
  if (!budget) return '—';
  return `${budget.kind === 'max' ? '≤' : '≥'} ${formatRatio(budget.value)}`;
}

/** A fixed-width table, one row per benchmark. */
export function formatTable(rows: readonly Row[]): string {
  const header = ['bench', 'baseline', 'candidate', 'ratio', 'paired IQR', 'budget', 'verdict'];
  const cells = rows.map((row) => [
    row.bench,
    row.baseline,
    row.candidate,
    formatRatio(row.ratio),
    row.spread ? `${formatRatio(row.spread[0])}–${formatRatio(row.spread[1])}` : '—',
    formatBudget(row.budget),
    `${verdict(row)}${withinNoise(row) ? '*' : ''}`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (values: readonly string[]) =>
    values
      .map((v, i) => (i === 0 ? v.padEnd(widths[i]!) : v.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}
