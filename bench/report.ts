/** The result rows every benchmark returns, and the table `run.ts` prints at the end. */
import { formatRatio, median, quartiles } from './measure.ts';

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
   * the median of the ratios of adjacent rounds, so it can differ from the quotient of the two
   * medians shown beside it (`quotient`): by much where the two sides' rounds differ in length.
   */
  readonly ratio: number;
  /**
   * Quartiles (25th, 75th percentile) of the per-round paired ratios, to show the noise; none for
   * a figure counted or measured once.
   */
  readonly spread?: readonly [number, number];
  /**
   * The other estimator of the same ratio, where the row measured rounds: the quotient of the two
   * sides' medians (the columns beside it), in the budget's direction. A verdict passes only if
   * both `ratio` and this meet the budget: rounds of very different lengths (2a: raw rounds of
   * seconds against the Worker's of tenths of a second) do not cancel a host's drift, and the two
   * estimators can then fall on either side of it.
   */
  readonly quotient?: number;
  /** How many paired rounds `ratio` and `spread` come from; none for a figure measured once. */
  readonly rounds?: number;
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

/**
 * The figures of a row measured in paired rounds: `ratios` one per pair of rounds, in the
 * budget's direction (cost or gain), and `quotient` the two medians' quotient in that direction.
 */
export function pairedFigures(
  ratios: readonly number[],
  quotient?: number,
): Pick<Row, 'ratio' | 'spread' | 'rounds' | 'quotient'> {
  return {
    ratio: median(ratios),
    spread: quartiles(ratios),
    rounds: ratios.length,
    ...(quotient === undefined ? {} : { quotient }),
  };
}

function meets(budget: Budget, ratio: number): boolean {
  return budget.kind === 'max' ? ratio <= budget.value : ratio >= budget.value;
}

/**
 * `PASS` only if the ratio (the median of the paired ratios) and, where the row has it, the
 * quotient of the medians both meet the budget; `OVER` or `UNDER` otherwise. Where the two
 * disagree the verdict is the miss, marked within noise ({@link withinNoise}).
 */
export function verdict(row: Row): string {
  if (!Number.isFinite(row.ratio)) return 'ERROR';
  if (!row.budget) return '—';
  const met =
    meets(row.budget, row.ratio) && (row.quotient === undefined || meets(row.budget, row.quotient));
  if (met) return 'PASS';
  return row.budget.kind === 'max' ? 'OVER' : 'UNDER';
}

/**
 * Paired rounds below which a row's IQR says nothing of its noise (a smoke run's one to three):
 * its verdict is marked whatever its spread.
 */
export const FEWEST_ROUNDS_TO_TELL = 5;

/**
 * Whether the verdict may read otherwise in the next run: the budget lies within the row's paired
 * IQR (the middle half of its rounds falls on both sides of it), or between its two estimators
 * (the median of the paired ratios meets it and the quotient of the medians does not, or the
 * reverse), or the row has too few paired rounds for its IQR to tell.
 */
export function withinNoise(row: Row): boolean {
  if (!row.budget) return false;
  if (row.rounds !== undefined && row.rounds < FEWEST_ROUNDS_TO_TELL) return true;
  if (
    row.quotient !== undefined &&
    meets(row.budget, row.quotient) !== meets(row.budget, row.ratio)
  )
    return true;
  if (!row.spread) return false;
  const [low, high] = row.spread;
  return low <= row.budget.value && row.budget.value <= high;
}

export function formatBudget(budget: Budget | undefined): string {
  if (!budget) return '—';
  return `${budget.kind === 'max' ? '≤' : '≥'} ${formatRatio(budget.value)}`;
}

/** A fixed-width table, one row per benchmark. */
export function formatTable(rows: readonly Row[]): string {
  const header = [
    'bench',
    'baseline',
    'candidate',
    'ratio',
    'medians ÷',
    'paired IQR',
    'n',
    'budget',
    'verdict',
  ];
  const cells = rows.map((row) => [
    row.bench,
    row.baseline,
    row.candidate,
    formatRatio(row.ratio),
    row.quotient === undefined ? '—' : formatRatio(row.quotient),
    row.spread ? `${formatRatio(row.spread[0])}–${formatRatio(row.spread[1])}` : '—',
    row.rounds === undefined ? '—' : String(row.rounds),
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
