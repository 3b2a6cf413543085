/**
 * 6. Embedded turns per second (DESIGN "Budgets": ≥ 50,000 turns/s).
 *
 * A stream of ingress messages spread over many actors waits in the embedded inbox (in memory,
 * no journal); one `Worker` (batchSize 10) polls until every message is applied. With many
 * actors most turns carry one message, so a turn is a commit: the figure is commits per second
 * (the sum of the actors' versions, each commit adds one), checked against the messages applied.
 * The workload runs bundled, as a deployment runs the engine, in a process of its own
 * (`embeddedBundle.ts`), so the figure does not hang on the rows that ran before it.
 */

import { cpus, loadavg } from 'node:os';
import { embeddedRoundPart } from './embeddedBundle.ts';
import { median } from './measure.ts';
import { roundDone } from './output/progress.ts';
import { pairedFigures, type Row } from './report.ts';

const BUDGET = 50_000;

export interface EmbeddedTurnsOptions {
  readonly messages: number;
  readonly actors: number;
  readonly rounds: number;
  readonly warmup: number;
  readonly log: (line: string) => void;
}

export async function embeddedTurns(options: EmbeddedTurnsOptions): Promise<Row> {
  const { messages, actors, rounds, warmup, log } = options;
  const rates: number[] = [];
  const latencies: number[] = [];
  const cpuPerTurn: number[] = [];
  const all: number[] = [];
  const part = await embeddedRoundPart();
  const load = loadavg()[0]!;
  try {
    for (let i = 0; i < warmup + rounds; i++) {
      const { turns, ns, cpuMicros } = await part.call('embeddedRound', messages, actors);
      all.push((turns * 1e9) / ns);
      if (i >= warmup) {
        rates.push((turns * 1e9) / ns);
        latencies.push(ns / turns);
        cpuPerTurn.push(cpuMicros / turns);
      }
      roundDone(i + 1, warmup + rounds);
    }
  } finally {
    await part.stop();
  }
  const rate = median(rates);
  log(
    `  ${Math.round(rate).toLocaleString('en-US')} turns/s (${messages.toLocaleString('en-US')} messages over ` +
      `${actors.toLocaleString('en-US')} actors × ${rounds} rounds)`,
  );
  const perRound = all.map((rate) => Math.round(rate).toLocaleString('en-US'));
  log(`  every round, the ${warmup} warm-up first: ${perRound.join(', ')}`);
  // Wall time counts the moments other processes hold the cores; this process's CPU does not.
  log(
    `  CPU per turn (the round's process, median): ${median(cpuPerTurn).toFixed(1)} µs; host load average ` +
      `${load.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end (${cpus().length} cores)`,
  );
  const ratios = rates.map((r) => r / BUDGET);
  return {
    bench: 'embedded turns/s vs the 50,000 budget (value / budget)',
    baseline: `budget ${BUDGET.toLocaleString('en-US')}/s`,
    candidate: `${Math.round(rate).toLocaleString('en-US')} turns/s`,
    // The rates' median over the budget is the ratios' median: one estimator.
    ...pairedFigures(ratios),
    budget: { kind: 'min', value: 1 },
    values: { baseline: BUDGET, candidate: rate, unit: 'turns/s' },
  };
}
