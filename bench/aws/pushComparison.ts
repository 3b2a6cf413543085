/**
 * What the push rows (4a–4f) share: Baton's rounds interleaved with a hand-written push's, the
 * log's summary of both, and the row they make.
 */
import { type Comparison, formatNs, interleave, median, quantile, type Round } from '../measure.ts';
import { pairedFigures, type Row } from '../report.ts';

/** A comparison of pushes, with its medians (ns per change) and the log's summary of both. */
export interface PushComparison {
  readonly result: Comparison;
  readonly baseline: number;
  readonly candidate: number;
  /** `hand-written push … (p99 …), Baton … (p99 …)`. */
  readonly summary: string;
}

/** Runs `rounds` (after `warmup`) of each side, alternating. */
export async function comparePushes(
  round: (side: 'baton' | 'push') => Round,
  rounds: number,
  warmup: number,
): Promise<PushComparison> {
  const result = await interleave({
    baseline: round('push'),
    candidate: round('baton'),
    rounds,
    warmup,
  });
  const baseline = median(result.baseline);
  const candidate = median(result.candidate);
  const p99 = (values: number[]) => formatNs(quantile(values, 0.99));
  const summary =
    `hand-written push ${formatNs(baseline)} (p99 ${p99(result.latencies.baseline)}), ` +
    `Baton ${formatNs(candidate)} (p99 ${p99(result.latencies.candidate)})`;
  return { result, baseline, candidate, summary };
}

/** The row of a comparison, with DESIGN's budget where it sets one. */
export function pushRow(
  bench: string,
  { result, baseline, candidate }: PushComparison,
  budget: number | undefined,
): Row {
  return {
    bench,
    baseline: formatNs(baseline),
    candidate: formatNs(candidate),
    ...pairedFigures(result.paired, candidate / baseline),
    ...(budget === undefined ? {} : { budget: { kind: 'max' as const, value: budget } }),
    values: { baseline: baseline / 1e6, candidate: candidate / 1e6, unit: 'ms' },
    latencies: result.latencies,
  };
}
