/**
 * How fast this host runs JavaScript today: the time of a fixed workload (the JSON and Map work
 * a turn is made of, no I/O), so that absolute figures such as row 6's turns per second can be
 * compared across runs on hosts that differ. Shared machines do: the same engine has measured
 * 19 µs and 37 µs of CPU per turn on different days.
 */

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
