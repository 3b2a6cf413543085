/**
 * 5. Cost per message (DESIGN "Budgets": ≤ 0.3 item writes per message at batch 10): item
 * writes, write capacity units (the table's estimated from the items, its indexes' as DynamoDB
 * reports them) and SQS requests, counted by middleware on each side's own SDK clients in one
 * untimed run of the hot actor (Worker batch 10 vs the raw SDK, one message per transaction)
 * and of the ping-pong (engine vs the hand-written pipeline).
 */
import type { Row } from '../report.ts';
import { type CallCounter, formatPerOp, perOp } from './counting.ts';
import { rawRound, workerRound } from './hot-actor.ts';
import { engineRound, handRound } from './ping-pong.ts';
import { benchResources, type Target } from './target.ts';

export interface CostOptions {
  readonly target: Target;
  /** Messages into the hot actor. */
  readonly messages: number;
  /** Ping-pong round trips. */
  readonly roundTrips: number;
  readonly log: (line: string) => void;
}

export async function costPerMessage(options: CostOptions): Promise<Row[]> {
  const { target, messages, roundTrips, log } = options;
  const hot = await benchResources(target, 'cost-hot');
  const ping = await benchResources(target, 'cost-ping');
  const hops = 2 * roundTrips + 1;
  const count = async (
    run: (side: ReturnType<Target['clients']>) => Promise<unknown>,
    per: number,
  ) => {
    const side = target.clients({ capacity: true });
    await run(side);
    return { counts: perOp(side.counter, per), counter: side.counter };
  };
  const hotBaton = await count((side) => workerRound(side, hot, messages, 10), messages);
  const hotRaw = await count((side) => rawRound(side, hot, messages), messages);
  const pingBaton = await count((side) => engineRound(side, ping, roundTrips), hops);
  const pingHand = await count((side) => handRound(side, ping, roundTrips), hops);
  log(`  hot actor, per message: Worker batch 10 ${formatPerOp(hotBaton.counts)}`);
  log(`                          raw SDK 1/txn    ${formatPerOp(hotRaw.counts)}`);
  log(`  ping-pong, per hop:     engine           ${formatPerOp(pingBaton.counts)}`);
  log(`                          hand-written     ${formatPerOp(pingHand.counts)}`);
  const row = (
    bench: string,
    unit: string,
    key: 'itemWrites' | 'sqsRequests',
    baton: { counts: Record<string, number>; counter: CallCounter },
    base: { counts: Record<string, number> },
    budget?: number,
  ): Row => {
    const b = baton.counts[key]!;
    const a = base.counts[key]!;
    const ratio = budget === undefined ? b / a : b;
    const units = (counts: Record<string, number>) =>
      key === 'itemWrites' ? ` (${counts.wcu} WCU, ${counts.indexWcu} index WCU)` : '';
    const wcu = units(baton.counts);
    const baseWcu = units(base.counts);
    return {
      bench,
      baseline: `${a} ${unit}${baseWcu}`,
      candidate: `${b} ${unit}${wcu}`,
      ratio,
      ...(budget === undefined ? {} : { budget: { kind: 'max' as const, value: budget } }),
      values: { baseline: a, candidate: b, unit },
      calls: { baton: baton.counts, baseline: base.counts },
    };
  };
  return [
    row(
      'item writes per message, hot actor batch 10 (value, not ratio)',
      'writes/msg',
      'itemWrites',
      hotBaton,
      hotRaw,
      0.3,
    ),
    row(
      'item writes per hop, ping-pong vs hand-written',
      'writes/hop',
      'itemWrites',
      pingBaton,
      pingHand,
    ),
    row(
      'SQS requests per message, hot actor batch 10 vs raw 1/txn',
      'req/msg',
      'sqsRequests',
      hotBaton,
      hotRaw,
    ),
    row(
      'SQS requests per hop, ping-pong vs hand-written',
      'req/hop',
      'sqsRequests',
      pingBaton,
      pingHand,
    ),
  ];
}
