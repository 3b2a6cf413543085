/**
 * The load simulation of docs/scale.md: `pnpm bench:load`. Runs the engine on the embedded
 * backend with AWS's latencies and limits imposed on every call (bench/load/), in scenarios that
 * each exercise one limit of the scale model — many actors bound by latency and by the queue's
 * calls per second, one hot actor, skewed traffic over 10,000 actors, a message's latency, one
 * result pushed to 10,000 subscribers, the sweeper retiring idle actors — and prints what the
 * model predicts beside what was measured. Exits 1 if a prediction is off by more than 25%.
 *
 * The modelled ports sleep the model's own latencies and hold its own limits, so measured against
 * predicted checks the engine's call pattern and concurrency (which calls a message makes, how
 * many run side by side), not AWS's latencies. Where the prediction is one of those limits itself
 * (a queue's calls per second times the batch, a fan-out's pacing), the line is a limit check:
 * it shows the engine reaches the limit the simulation sets, no more.
 */
import { seededRandom } from '@baton/core/adapter';
import { SWEEP_CONCURRENCY } from '@baton/core/engine';
import {
  fanOutSeconds,
  hotActor,
  LATENCIES,
  manyActors,
  messageLatencyMs,
  skewedDrainSeconds,
  skewedOnSqsSeconds,
  sweptActors,
} from './load/model.ts';
import { drainTime, fanOut, openLoop, sweepTime } from './load/scenarios.ts';

const TOLERANCE = 0.25;

interface Line {
  readonly scenario: string;
  readonly predicted: number;
  readonly measured: number;
  readonly unit: string;
  /** A bound, not a figure: measured must not beat it by more than the tolerance. */
  readonly bound?: 'at least';
  /**
   * `limit`: the prediction is a limit the simulation configures (its rate limit, its pacing),
   * equal to it by construction — a check that the engine reaches it, not a prediction.
   */
  readonly check?: 'limit';
  readonly note?: string;
}

/** `total` message keys over `actors` tallies, the k-th most popular drawn ∝ 1/k (Zipf, s = 1). */
function zipfKeys(actors: number, total: number, random: () => number): string[] {
  const weights = Array.from({ length: actors }, (_, k) => 1 / (k + 1));
  const sum = weights.reduce((a, b) => a + b, 0);
  const cumulative: number[] = [];
  let acc = 0;
  for (const w of weights) {
    acc += w / sum;
    cumulative.push(acc);
  }
  return Array.from({ length: total }, () => {
    const r = random();
    let lo = 0;
    let hi = actors - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cumulative[mid] as number) < r) lo = mid + 1;
      else hi = mid;
    }
    return `t${lo}`;
  });
}

const per = (counts: Record<string, number>, messages: number) =>
  Object.entries(counts)
    .sort()
    .map(([name, n]) => `${name} ${(n / messages).toFixed(2)}`)
    .join(', ');

async function main(): Promise<void> {
  const lines: Line[] = [];
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const ACTORS = 10_000;
  const random = seededRandom(25);
  const many = Array.from({ length: ACTORS }, (_, i) => `t${i}`);

  for (const containers of [4, 16]) {
    const model = manyActors(containers);
    const { seconds, counts } = await drainTime(containers, many);
    log(`many actors, ${containers} containers: calls per message ${per(counts, ACTORS)}`);
    lines.push({
      scenario: `${ACTORS.toLocaleString('en-US')} actors × 1 message, ${containers} containers (${model.bound}-bound)`,
      predicted: model.messagesPerSecond,
      measured: ACTORS / seconds,
      unit: 'messages/s',
      // Queue-bound: the prediction is the queue's 300 calls/s × 10, the modelled queue's limit.
      ...(model.bound === 'queue' ? { check: 'limit' as const } : {}),
    });
  }

  const HOT = 2_000;
  let lookups = 0;
  {
    const keys = Array.from({ length: HOT }, () => 'hot');
    const { seconds, counts } = await drainTime(16, keys);
    // The backlog's look-ups in closed pages of outcomes, per turn of a full batch.
    lookups = ((counts['store.readPagedOutcomes'] ?? 0) / HOT) * 10;
    log(`hot actor: calls per message ${per(counts, HOT)}`);
    lines.push({
      scenario: `one hot actor × ${HOT.toLocaleString('en-US')} messages, 16 containers`,
      predicted: hotActor(16, 1, lookups).messagesPerSecond,
      measured: HOT / seconds,
      unit: 'messages/s',
      note: `${lookups.toFixed(1)} page look-ups a turn`,
    });
  }

  {
    const TOTAL = 20_000;
    const keys = zipfKeys(ACTORS, TOTAL, random);
    const byKey = new Map<string, number>();
    for (const key of keys) byKey.set(key, (byKey.get(key) ?? 0) + 1);
    const perGroup = [...byKey.values()];
    const hottest = Math.max(...perGroup);
    const { seconds } = await drainTime(16, keys);
    lines.push({
      scenario: `skewed: ${TOTAL.toLocaleString('en-US')} messages over ${ACTORS.toLocaleString('en-US')} actors (Zipf; the hottest ${hottest.toLocaleString('en-US')}), 16 containers`,
      predicted: skewedDrainSeconds(perGroup, 16, lookups),
      measured: seconds,
      unit: 's to drain',
      note: `on SQS, whose receives take as many messages of one group as they can, the model gives ${skewedOnSqsSeconds(perGroup, 16, lookups).toFixed(1)} s`,
    });
  }

  {
    const RATE = 100;
    const { latencies, counts } = await openLoop(10, ACTORS, RATE, 600, random);
    const sorted = [...latencies].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)] as number;
    log(`open loop: calls per message ${per(counts, 600)}`);
    lines.push({
      scenario: `a message's latency, send to commit, at ${RATE}/s over idle workers (median)`,
      predicted: messageLatencyMs(),
      measured: median,
      unit: 'ms',
      note: `p90 ${sorted[Math.floor(sorted.length * 0.9)]?.toFixed(1)} ms`,
    });
  }

  const SUBSCRIBERS = 10_000;
  {
    const paced = 8_000;
    const { seconds, throttled } = await fanOut(SUBSCRIBERS, {
      concurrency: 200,
      maxPushesPerSecond: paced,
    });
    lines.push({
      scenario: `one result to ${SUBSCRIBERS.toLocaleString('en-US')} subscribers, 200 in flight, paced to ${paced.toLocaleString('en-US')}/s`,
      predicted: fanOutSeconds(SUBSCRIBERS, 200, paced),
      measured: seconds,
      unit: 's',
      note: `${throttled} throttled`,
      // The pacing sets the rate (below the account's limit and 200 in flight's): a limit check.
      check: 'limit',
    });
    const unpaced = await fanOut(SUBSCRIBERS, { concurrency: 1_000 });
    // Unpaced, the account's 5,000 burst goes first, then 10,000/s: no faster than that.
    const floor = Math.max(
      (SUBSCRIBERS - 5_000) / 10_000,
      (SUBSCRIBERS * LATENCIES.post) / 1_000 / 1000,
    );
    lines.push({
      scenario: `the same, 1,000 in flight, unpaced: throttled calls retried (429 past 10,000/s, 5,000 burst)`,
      predicted: floor,
      measured: unpaced.seconds,
      unit: 's',
      bound: 'at least',
      note: `${unpaced.throttled} throttled and retried`,
    });
  }

  for (const [idle, lanes] of [
    [400, undefined],
    [4_000, SWEEP_CONCURRENCY],
    [10_000, 16],
  ] as const) {
    const model = sweptActors(lanes);
    const { seconds, counts } = await sweepTime(idle, lanes);
    const how =
      lanes === undefined ? 'one actor after the other' : `${lanes} groups of 10 at a time`;
    log(`sweeper, ${how}: calls per actor ${per(counts, idle)}`);
    lines.push({
      scenario: `the sweeper retires ${idle.toLocaleString('en-US')} idle actors' held sends, ${how} (${model.bound}-bound)`,
      predicted: model.actorsPerSecond,
      measured: idle / seconds,
      unit: 'actors/s',
      ...(model.bound === 'queue' ? { check: 'limit' as const } : {}),
    });
  }

  let off = 0;
  log('');
  log('scenario | predicted (or the limit checked) | measured | measured / predicted');
  for (const line of lines) {
    const ratio = line.measured / line.predicted;
    const ok =
      line.bound === 'at least' ? ratio >= 1 - TOLERANCE : Math.abs(ratio - 1) <= TOLERANCE;
    if (!ok) off++;
    const fmt = (n: number) => (n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(2));
    log(
      `${line.scenario} | ${line.check ? 'limit check: ' : ''}${line.bound ? `${line.bound} ` : ''}${fmt(line.predicted)} ${line.unit} | ${fmt(line.measured)} ${line.unit}${line.note ? ` (${line.note})` : ''} | ${ratio.toFixed(2)}${ok ? '' : '  OFF BY MORE THAN 25%'}`,
    );
  }
  log(
    "\nThe modelled ports sleep the model's own latencies (bench/load/model.ts): measured / predicted" +
      " checks the engine's calls and concurrency, not AWS's latencies. A limit check's figure is a" +
      ' limit the simulation sets (its queue calls per second × the batch, its pacing): reaching it' +
      ' shows the engine is not the bottleneck, not that the model predicts AWS.',
  );
  process.exitCode = off > 0 ? 1 : 0;
}

await main();
