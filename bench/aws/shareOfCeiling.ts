/** Row 2e: the Worker's share of the hand-written batch loop's rate (see `hot-actor.ts`). */
import { type Comparison, formatRate, median } from '../measure.ts';
import { pairedFigures, type Row } from '../report.ts';

/**
 * The Worker's rate over the hand-written batch loop's, paired round by round. Both rounds of a
 * pair last tenths of a second and run next to each other, so the host's drift cancels as it
 * does not against the raw loop's rounds of seconds: how far the Worker is from what the
 * emulators let any batch-10 engine reach, 2a's gain being about 2d's times this share.
 */
export function shareOfCeiling(
  worker: Comparison,
  hand: Comparison,
  label: string,
  log: (line: string) => void,
): Row {
  // Per message, so the hand-written loop's time over the Worker's is the Worker's share.
  const shares = worker.candidate.map((ns, i) => hand.candidate[i]! / ns);
  const workerNs = median(worker.candidate);
  const handNs = median(hand.candidate);
  log(
    `  the Worker's share of the hand-written loop's rate: ${(median(shares) * 100).toFixed(0)}% ` +
      `(median of ${shares.length} paired rounds), ${((handNs / workerNs) * 100).toFixed(0)}% (quotient of the medians)`,
  );
  return {
    bench: `hot actor: Worker batch 10 vs hand-written batch 10, the share of the ceiling (${label})`,
    baseline: formatRate(handNs),
    candidate: formatRate(workerNs),
    ...pairedFigures(shares, handNs / workerNs),
    values: { baseline: 1e9 / handNs, candidate: 1e9 / workerNs, unit: 'msg/s' },
    latencies: { baseline: hand.latencies.candidate, candidate: worker.latencies.candidate },
  };
}
