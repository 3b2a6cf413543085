/**
 * `pnpm bench`: measures DESIGN's budgets on DynamoDB Local + ElasticMQ (started for the run) and
 * on the embedded backend, each against a baseline measured in the same run, rounds interleaved.
 * Prints a table, writes `bench/results/latest.json` and `bench/results/latency.svg`. Never fails
 * on a budget: an OVER or UNDER verdict is reported; it exits 1 only if a benchmark broke.
 *
 * Environment (see README): BENCH_QUICK=1, BENCH_ONLY=1,3a, BENCH_VERBOSE=1, BENCH_TARGET=aws,
 * BENCH_DYNAMODB_ENDPOINT + BENCH_SQS_ENDPOINT, BENCH_OUT (results folder).
 */
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { hostWarnings, referenceNs } from './hostSpeed.ts';
import { timeNs } from './measure.ts';
import { toJson, writeJson } from './output/json.ts';
import { latencySvg, writeSvg } from './output/svg.ts';
import { formatTable } from './report.ts';
import { runSuite, selectSteps } from './suite.ts';

const quick = process.env.BENCH_QUICK === '1';
const only = process.env.BENCH_ONLY?.split(',')
  .map((s) => s.trim().toLowerCase())
  .filter((s) => s !== '');
if (process.env.BENCH_ONLY !== undefined && only?.length === 0) {
  console.error('BENCH_ONLY is set but names no benchmark: give ids such as 1,3a, or unset it');
  process.exit(2);
}
const out = process.env.BENCH_OUT ?? new URL('./results/', import.meta.url).pathname;
const log = (line: string) => console.log(line);

async function main(): Promise<void> {
  log(
    `baton bench — node ${process.version}, ${cpus().length} cpus, ${(totalmem() / 2 ** 30).toFixed(0)} GB` +
      (quick ? ' (BENCH_QUICK: smaller sizes, fewer rounds)' : ''),
  );
  // Before any row, while the process is quiet: the host's speed, to compare absolute figures.
  const reference = referenceNs();
  const loadAtStart = loadavg()[0]!;
  log(
    `host reference: ${reference} ns per op of a fixed JSON and Map workload (bench/hostSpeed.ts); load average ${loadAtStart.toFixed(1)} on ${cpus().length} cores`,
  );
  for (const warning of hostWarnings({
    referenceNs: reference,
    loadAverage: [loadAtStart],
    cores: cpus().length,
  })) {
    log(`WARNING: ${warning}`);
  }
  log('baseline and candidate rounds are interleaved; every ratio comes from this run\n');
  let result: Awaited<ReturnType<typeof runSuite>> | undefined;
  const total = await timeNs(async () => {
    result = await runSuite({ quick, ...(only ? { only } : {}), log });
  });
  const { rows, errors, target } = result!;
  const totalSeconds = Math.round(total / 1e8) / 10;
  const loadAverage = [loadAtStart, loadavg()[0]!].map((n) => Math.round(n * 100) / 100);
  const warnings = hostWarnings({ referenceNs: reference, loadAverage, cores: cpus().length });
  log(formatTable(rows));
  log(
    '\nfigures are from this one run on a shared machine: baseline and candidate are medians over' +
      ' rounds; ratio is the median, "paired IQR" the middle half, of the ratios of adjacent' +
      " baseline/candidate rounds (row 6, measured against a fixed budget: of its rounds' rates over" +
      ' the budget; "—": a figure counted or measured once). A verdict marked *' +
      ' has its budget within that middle half, or between the ratio and "medians ÷" (the quotient' +
      ' of the two medians; a verdict passes only if both meet the budget), or fewer than 5 paired' +
      ' rounds: the next run may read otherwise. n: the paired rounds.',
  );
  for (const warning of warnings) log(`WARNING: ${warning}`);
  const subtitle = `${target ?? 'embedded only'} · ${cpus().length} cpus · node ${process.version} · ${new Date().toISOString().slice(0, 16)}Z${quick ? ' · BENCH_QUICK' : ''}`;
  const json = toJson(rows, {
    target: target ?? 'embedded',
    quick,
    totalSeconds,
    referenceNs: reference,
    loadAverage,
    warnings,
  });
  // A partial or a smoke run leaves the full run's files as they are: its rows go to a file of
  // its own (a smoke run's figures, on small sizes, are not the ones the READMEs quote).
  const apart = only ? 'partial.json' : quick ? 'quick.json' : undefined;
  if (apart) {
    writeJson(join(out, apart), json);
    log(
      `wrote ${join(out, apart)} (${only ? 'BENCH_ONLY' : 'BENCH_QUICK'}: latest.json is left to full runs)`,
    );
  } else {
    writeJson(join(out, 'latest.json'), json);
    writeSvg(join(out, 'latency.svg'), latencySvg(rows, subtitle));
    log(`wrote ${join(out, 'latest.json')} and latency.svg`);
  }
  log(`total ${totalSeconds.toFixed(1)} s`);
  if (errors.length > 0) {
    console.error(`${errors.length} benchmark(s) failed:\n${errors.join('\n')}`);
    process.exitCode = 1;
  }
}

if (only) {
  // An id no step answers to stops the run before anything starts, saying which ids there are.
  try {
    selectSteps(only);
  } catch (error) {
    console.error((error as Error).message);
    process.exit(2);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
