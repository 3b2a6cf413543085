/** `bench/results/latest.json`: the rows of one run, the machine it ran on, and when. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { arch, cpus, platform, release, totalmem } from 'node:os';
import { dirname } from 'node:path';
import { quantile } from '../measure.ts';
import { type Row, verdict, withinNoise } from '../report.ts';

export interface LatestJson {
  readonly results: readonly unknown[];
  readonly machine: {
    readonly cpus: number;
    readonly cpuModel: string;
    readonly memoryGb: number;
    readonly os: string;
    readonly node: string;
    /** ns per op of `bench/hostSpeed.ts`'s fixed workload: to compare hosts across runs. */
    readonly referenceNs?: number;
    /** `os.loadavg()[0]` at the run's start and at its end. */
    readonly loadAverage?: readonly number[];
  };
  /** Why the run's verdicts are unreliable (a loaded host, `hostWarnings`); absent if none. */
  readonly warnings?: readonly string[];
  readonly date: string;
  readonly target: string;
  readonly quick: boolean;
  readonly totalSeconds: number;
}

/** One result per row: `name`, `baton`, `baseline`, `ratio`, `budget`, `met`, and details. */
export function toJson(
  rows: readonly Row[],
  extra: {
    target: string;
    quick: boolean;
    totalSeconds: number;
    referenceNs?: number;
    loadAverage?: readonly number[];
    warnings?: readonly string[];
  },
): LatestJson {
  const { referenceNs, loadAverage, warnings, ...run } = extra;
  const round = (n: number, digits = 4) => Number(n.toPrecision(digits));
  const percentiles = (values: readonly number[]) =>
    values.length === 0
      ? undefined
      : {
          n: values.length,
          p50: round(quantile(values, 0.5) / 1e6),
          p90: round(quantile(values, 0.9) / 1e6),
          p99: round(quantile(values, 0.99) / 1e6),
        };
  return {
    results: rows.map((row) => {
      const v = verdict(row);
      return {
        name: row.bench,
        baton: row.values ? round(row.values.candidate) : row.candidate,
        baseline: row.values ? round(row.values.baseline) : row.baseline,
        unit: row.values?.unit,
        ratio: round(row.ratio),
        // The quotient of the two medians, the verdict's second estimator; the paired rounds.
        ...(row.quotient === undefined ? {} : { quotient: round(row.quotient) }),
        ...(row.rounds === undefined ? {} : { rounds: row.rounds }),
        budget: row.budget ? { kind: row.budget.kind, value: row.budget.value } : null,
        met: row.budget ? v === 'PASS' : null,
        // Null for a figure counted or measured once; withinNoise: the next run may read otherwise.
        iqr: row.spread ? [round(row.spread[0]), round(row.spread[1])] : null,
        ...(withinNoise(row) ? { withinNoise: true } : {}),
        ...(row.calls ? { calls: row.calls } : {}),
        ...(row.latencies
          ? {
              latencyMs: {
                baton: percentiles(row.latencies.candidate),
                baseline: percentiles(row.latencies.baseline),
              },
            }
          : {}),
      };
    }),
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
      memoryGb: round(totalmem() / 2 ** 30, 3),
      os: `${platform()} ${release()} ${arch()}`,
      node: process.version,
      ...(referenceNs === undefined ? {} : { referenceNs }),
      ...(loadAverage === undefined ? {} : { loadAverage }),
    },
    ...(warnings && warnings.length > 0 ? { warnings } : {}),
    date: new Date().toISOString(),
    ...run,
  };
}

/** Biome's line width (biome.json): an array it fits on one line, it writes on one line. */
const LINE_WIDTH = 100;

export function writeJson(path: string, json: LatestJson): void {
  mkdirSync(dirname(path), { recursive: true });
  // Arrays of plain values on one line when the line fits, as Biome formats JSON (the file is
  // checked in).
  const text = JSON.stringify(json, null, 2).replace(
    /^([^\n]*)\[\n\s*([^[\]{}]*?)\n\s*\]/gm,
    (whole, head: string, inner: string) => {
      const line = `${head}[${inner.split(/,\n\s*/).join(', ')}]`;
      return line.length + 1 <= LINE_WIDTH ? line : whole;
    },
  );
  writeFileSync(path, `${text}\n`);
}
