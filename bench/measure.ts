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
  const { candidate: compared } = await interleaveMany({
    baseline,
    candidates: { candidate },
    rounds,
    warmup,
  });
  return compared;
}

export interface InterleaveManyOptions<K extends string> {
  readonly baseline: Round;
  /** The sides compared with the baseline, by name. */
  readonly candidates: Readonly<Record<K, Round>>;
  /** Measured rounds per side. */
  readonly rounds: number;
  /** Discarded rounds per side, run first. */
  readonly warmup: number;
}

/**
 * {@link interleave} with several candidates against one baseline: every round runs each side
 * once, in an order that rotates by one each round (with two sides, ABBA), and each candidate
 * is paired with the baseline of its own round. Candidates measured against the same baseline
 * rounds can be compared with each other.
 */
export async function interleaveMany<K extends string>(
  options: InterleaveManyOptions<K>,
): Promise<Record<K, Comparison>> {
  const { baseline, candidates, rounds, warmup } = options;
  const names = Object.keys(candidates) as K[];
  const sides: Array<[K | typeof BASELINE, Round]> = [
    [BASELINE, baseline],
    ...names.map((name) => [name, candidates[name]] as [K, Round]),
  ];
  const result = {} as Record<K, Comparison>;
  for (const name of names) {
    result[name] = {
      baseline: [],
      candidate: [],
      paired: [],
      latencies: { baseline: [], candidate: [] },
    };
  }
  for (let i = 0; i < warmup + rounds; i++) {
    const shift = i % sides.length;
    const order = [...sides.slice(shift), ...sides.slice(0, shift)];
    const perOp = new Map<K | typeof BASELINE, number>();
    const latencies = new Map<K | typeof BASELINE, readonly number[]>();
    for (const [side, round] of order) {
      const sample = await round();
      perOp.set(side, sample.ns / sample.ops);
      if (sample.latencies) latencies.set(side, sample.latencies);
    }
    roundDone(i + 1, warmup + rounds);
    const base = perOp.get(BASELINE)!;
    if (verbose) {
      const tag = i < warmup ? 'warmup' : `round ${i - warmup + 1}`;
      const compared = names.map((name) => {
        const ns = perOp.get(name)!;
        const label = names.length === 1 ? 'candidate' : name;
        return `${label} ${formatNs(ns)}, ratio ${formatRatio(ns / base)}`;
      });
      console.log(`    ${tag}: baseline ${formatNs(base)}, ${compared.join('; ')}`);
    }
    if (i < warmup) continue;
    for (const name of names) {
      const comparison = result[name];
      const ns = perOp.get(name)!;
      comparison.baseline.push(base);
      comparison.candidate.push(ns);
      comparison.paired.push(ns / base);
      comparison.latencies.baseline.push(...(latencies.get(BASELINE) ?? []));
      comparison.latencies.candidate.push(...(latencies.get(name) ?? []));
    }
  }
  return result;
}

/** The baseline's key among the sides of {@link interleaveMany}: no candidate's name. */
const BASELINE = Symbol('baseline');

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
