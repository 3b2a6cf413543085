/**
 * How fast this host runs JavaScript today: the time of a fixed workload (the JSON and Map work
 * a turn is made of, no I/O), so that absolute figures such as row 6's turns per second can be
 * compared across runs on hosts that differ. Shared machines do: the same engine has measured
 * 19 µs and 37 µs of CPU per turn on different days.
 *
 * It also tells a loaded host: ratios do not hold across hosts (on a loaded host 3a read 1.32x
 * against 1.14x, 2a 6.71x against 8.21x, and row 6 a sixth of its turns a second), so a run whose
 * reference or load average says so is flagged in its output and in `latest.json`.
 */

/**
 * The reference of the project's 2-core machine when quiet: full runs of 2026-12-02 to 12-05
 * measured 938–1,104 ns; the same machine under other processes' load measured 1,500–3,100.
 */
export const QUIET_REFERENCE_NS = 1_000;
/** A reference past this multiple of {@link QUIET_REFERENCE_NS} marks a loaded (or slower) host. */
export const LOADED_REFERENCE_FACTOR = 1.5;

export interface HostState {
  /** {@link referenceNs} measured at the run's start. */
  readonly referenceNs: number;
  /** `os.loadavg()[0]` at the run's start and at its end. */
  readonly loadAverage: readonly number[];
  readonly cores: number;
}

/**
 * Why this run's verdicts are unreliable, one sentence each; none on a quiet host: the reference
 * well above a quiet host's, or a load average (start or end) above the core count.
 */
export function hostWarnings(host: HostState): string[] {
  const warnings: string[] = [];
  const limit = QUIET_REFERENCE_NS * LOADED_REFERENCE_FACTOR;
  if (host.referenceNs > limit) {
    warnings.push(
      `host reference ${host.referenceNs} ns is above ${limit} (${LOADED_REFERENCE_FACTOR}x a quiet host's ${QUIET_REFERENCE_NS}): a loaded or slower host, verdicts unreliable`,
    );
  }
  const busiest = Math.max(...host.loadAverage);
  if (busiest > host.cores) {
    warnings.push(
      `load average ${busiest.toFixed(1)} is above the ${host.cores} cores: other processes share them, verdicts unreliable`,
    );
  }
  return warnings;
}

/** Nanoseconds per operation of the fixed workload: the best of several repetitions. */
export function referenceNs(): number {
  const ops = 20_000;
  let best = Number.POSITIVE_INFINITY;
  for (let rep = 0; rep < 7; rep++) {
    const start = process.hrtime.bigint();
    workload(ops);
    best = Math.min(best, Number(process.hrtime.bigint() - start) / ops);
  }
  return Math.round(best);
}

/** Encodes, decodes and files `ops` small records, as a turn does its envelope and state. */
function workload(ops: number): void {
  const byId = new Map<string, { n: number }>();
  for (let i = 0; i < ops; i++) {
    const id = `tally/t${i % 1000}`;
    const body = JSON.stringify({ id: `m-${i}`, to: id, name: 'add', payload: { by: i % 7 } });
    const envelope = JSON.parse(body) as { to: string; payload: { by: number } };
    const state = byId.get(envelope.to) ?? { n: 0 };
    byId.set(envelope.to, { n: state.n + envelope.payload.by });
  }
  if (byId.size !== Math.min(ops, 1000)) throw new Error('host reference: lost a record');
}
