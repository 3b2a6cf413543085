/**
 * Timing helpers: interleaved baseline/candidate rounds, medians and paired ratios.
 *
 * The machine is shared and noisy, so a benchmark never measures its baseline in one block and
 * its candidate in another: rounds alternate (ABBA order, so neither side always runs second),
 * and the figures are medians over rounds. No round starts with a forced full collection: V8
 * then throws compiled code away, and the round after it ran with its code being optimized again
 * (about a hundred functions per round under `--trace-opt`, against none once warm), at up to
 * 4x the time per operation on either side. Each side's garbage is left to the collector, as a
 * long-running process leaves it; the ABBA order shares what one side's garbage costs the other.
 */
import { roundDone } from './output/progress.ts';

/** Elapsed time of `ops` operations, measured inside a round (setup excluded). */
export interface Sample {
  readonly ns: number;
  readonly ops: number;
  /** Per-operation latencies in nanoseconds, where the round records them (for the chart). */
  readonly latencies?: readonly number[];
}

/** One round of a side: sets itself up, times its work and returns the sample. */
export type Round = () => Promise<Sample>;

export interface Comparison {
  /** Nanoseconds per operation, one per measured round. */
  readonly baseline: number[];
  readonly candidate: number[];
  /** candidate / baseline per op, per pair of adjacent rounds. */
  readonly paired: number[];
  /** Per-operation latencies (ns) of the measured rounds, where the rounds recorded them. */
  readonly latencies: { baseline: number[]; candidate: number[] };
}

export interface InterleaveOptions {
  readonly baseline: Round;
  readonly candidate: Round;
  /** Measured rounds per side. */
  readonly rounds: number;
  /** Discarded rounds per side, run first (JIT, caches, heap growth). */
  readonly warmup: number;
}

/** Times `fn` with the monotonic high-resolution clock; returns nanoseconds. */
export async function timeNs(fn: () => Promise<void>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start);
}

/** BENCH_VERBOSE=1 prints every round. */
const verbose = process.env.BENCH_VERBOSE === '1';

/** Runs baseline and candidate rounds alternately and returns per-op times. */
export async function interleave(options: InterleaveOptions): Promise<Comparison> {
  const { baseline, candidate, rounds, warmup } = options;
  const result: Comparison = {
    baseline: [],
    candidate: [],
    paired: [],
    latencies: { baseline: [], candidate: [] },
  };
  for (let i = 0; i < warmup + rounds; i++) {
    const order: Array<['baseline' | 'candidate', Round]> = [
      ['baseline', baseline],
      ['candidate', candidate],
    ];
    if (i % 2 === 1) order.reverse();
    const perOp = { baseline: 0, candidate: 0 };
    for (const [side, round] of order) {
      const sample = await round();
      perOp[side] = sample.ns / sample.ops;
      if (i >= warmup && sample.latencies) result.latencies[side].push(...sample.latencies);
    }
    roundDone(i + 1, warmup + rounds);
    if (verbose) {
      const tag = i < warmup ? 'warmup' : `round ${i - warmup + 1}`;
      console.log(
        `    ${tag}: baseline ${formatNs(perOp.baseline)}, candidate ${formatNs(perOp.candidate)}, ` +
          `ratio ${formatRatio(perOp.candidate / perOp.baseline)}`,
      );
    }
    if (i < warmup) continue;
    result.baseline.push(perOp.baseline);
    result.candidate.push(perOp.candidate);
    result.paired.push(perOp.candidate / perOp.baseline);
  }
  return result;
}

export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/** The `q`-quantile (0…1) by linear interpolation between the sorted values. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  const high = Math.ceil(at);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (at - low);
}

/** 25th and 75th percentile. */
export function quartiles(values: readonly number[]): [number, number] {
  return [quantile(values, 0.25), quantile(values, 0.75)];
}

/** `12.3 µs`, `845 ns`, `1.20 ms` */
export function formatNs(ns: number): string {
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(2)} ms`;
  if (ns >= 1e4) return `${(ns / 1e3).toFixed(1)} µs`;
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(2)} µs`;
  return `${ns.toFixed(0)} ns`;
}

/** Messages per second from nanoseconds per message: `41,200 msg/s`. */
export function formatRate(nsPerOp: number): string {
  return `${Math.round(1e9 / nsPerOp).toLocaleString('en-US')} msg/s`;
}

export function formatRatio(ratio: number): string {
  return `${ratio.toFixed(2)}x`;
}
