/**
 * `pnpm bench`: measures the DESIGN budgets on the embedded backend (in memory, no journal) and
 * prints ratios against a baseline measured in the same run, interleaved round by round.
 * Never fails on a budget: an OVER or UNDER verdict is reported, not thrown.
 *
 * Environment: BENCH_QUICK=1 runs fewer rounds (a smoke test, figures are rougher);
 * BENCH_ONLY=1,3a runs only the listed steps (by the number that starts their title).
 */
import { cpus } from 'node:os';
import { hotActor } from './hot-actor.ts';
import { formatNs, timeNs } from './measure.ts';
import { pingPong } from './ping-pong.ts';
import { formatTable, type Row } from './report.ts';
import { turnCommit } from './turn-commit.ts';
import { workerBundle } from './worker-bundle.ts';

/** Modelled network round trip per store/queue call (DynamoDB and SQS are slower still). */
const LATENCY_NS = 500_000;

const quick = process.env.BENCH_QUICK === '1';
const only = process.env.BENCH_ONLY?.split(',').map((s) => s.trim().toLowerCase());
const rounds = (n: number) => (quick ? Math.min(n, 3) : n);
const log = (line: string) => console.log(line);

async function main(): Promise<void> {
  log(
    `baton bench — node ${process.version}, ${cpus().length} cpus, embedded backend in memory` +
      (quick ? ' (BENCH_QUICK: fewer rounds)' : ''),
  );
  log('baseline and candidate rounds are interleaved; every ratio comes from this run\n');
  const rows: Row[] = [];
  const steps: Array<[string, () => Promise<Row | Row[]>]> = [
    [
      '1a. turn commit overhead — runTurn vs raw store.commit of the same items',
      () => turnCommit({ ops: 2_000, rounds: rounds(21), warmup: 2, latencyNs: 0, log }),
    ],
    [
      `1b. turn commit overhead — same, modelled ${formatNs(LATENCY_NS)} per store call`,
      () => turnCommit({ ops: 300, rounds: rounds(3), warmup: 1, latencyNs: LATENCY_NS, log }),
    ],
    [
      '2a. hot actor batching — Worker batchSize 10 vs 1, one actor',
      () => hotActor({ messages: 2_000, rounds: rounds(15), warmup: 1, latencyNs: 0, log }),
    ],
    [
      `2b. hot actor batching — same, modelled ${formatNs(LATENCY_NS)} per store/queue call`,
      () => hotActor({ messages: 400, rounds: rounds(3), warmup: 1, latencyNs: LATENCY_NS, log }),
    ],
    [
      '3a. actor→actor ping-pong — engine vs hand-written at-least-once pipeline',
      () => pingPong({ roundTrips: 500, rounds: rounds(21), warmup: 2, latencyNs: 0, log }),
    ],
    [
      `3b. actor→actor ping-pong — same, modelled ${formatNs(LATENCY_NS)} per store/queue call`,
      () => pingPong({ roundTrips: 60, rounds: rounds(3), warmup: 1, latencyNs: LATENCY_NS, log }),
    ],
    [
      '7. worker Lambda bundle — size against the budget, load time against the SDK alone',
      () => workerBundle({ rounds: rounds(15), log }),
    ],
  ];
  const total = await timeNs(async () => {
    for (const [title, step] of steps) {
      const id = title.slice(0, title.indexOf('.'));
      if (only && !only.some((o) => o === id || o === id.replace(/[a-z]$/, ''))) continue;
      log(title);
      const ns = await timeNs(async () => {
        rows.push(...[await step()].flat());
      });
      log(`  (${(ns / 1e9).toFixed(1)} s)\n`);
    }
  });
  log(formatTable(rows));
  log(
    '\nfigures are from this one run on a shared machine: baseline and candidate are medians over' +
      ' rounds; ratio is the median, "paired IQR" the middle half, of the ratios of adjacent' +
      ' baseline/candidate rounds.\nmodelled rows wait ' +
      `${formatNs(LATENCY_NS)} per store/queue call to imitate a networked store; they are a model, not DynamoDB.`,
  );
  log(`total ${(total / 1e9).toFixed(1)} s`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
