/**
 * The load simulation's scale model (`bench/load/model.ts`) against docs/scale.md: where a hot
 * actor's partition, not its calls' latency, bounds it, the model gives the turns per second of
 * the doc's table — a transaction of the record and the page of outcomes (at most 1 KB), 2 WCU
 * per KB of each — and bills a commit as the simulation's modelled store does.
 */
import { describe, expect, it } from 'vitest';
import { type CallLatencies, hotActor } from '../../bench/load/model.ts';

/** Calls that take no time: only the partition's write capacity bounds the actor. */
const instant: CallLatencies = {
  getItem: 0.001,
  putItem: 0.001,
  transactBase: 0.001,
  transactPerItem: 0,
  receive: 0.001,
  queueCall: 0.001,
  post: 0.001,
};

describe('the scale model of a hot actor bound by its partition', () => {
  it('gives the turns per second of docs/scale.md for each record size', () => {
    // docs/scale.md, "1,000 WCU/s on its partition": a transaction of record + 1 item.
    const table = [
      [1, 250],
      [4, 100],
      [10, 45],
      [40, 12],
      [100, 5],
    ] as const;
    for (const [recordKb, turns] of table) {
      // One container: no stale cache, no failed commit.
      const { messagesPerSecond } = hotActor(1, recordKb, 0, instant);
      expect({ recordKb, turns: Math.round(messagesPerSecond / 10) }).toEqual({ recordKb, turns });
    }
  });
});
