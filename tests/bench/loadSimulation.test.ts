/**
 * The load simulation's scenarios, small: the engine on the embedded backend behind AWS's
 * modelled latencies and limits applies every message exactly once (each scenario checks every
 * tally's count itself and throws otherwise), and a result reaches every subscriber, through
 * throttling too. Speed is not checked here: `pnpm bench:load` prints it against the model.
 */
import { describe, expect, it } from 'vitest';
import { commitItems, RateLimit } from '../../bench/load/modelledPorts.ts';
import { drainTime, fanOut, openLoop, sweepTime } from '../../bench/load/scenarios.ts';

describe('the load simulation, small', () => {
  it('drains a backlog over many actors and a hot one, each message applied once', async () => {
    const keys = [...Array.from({ length: 150 }, (_, i) => `t${i}`), ...Array(50).fill('hot')];
    const { counts } = await drainTime(3, keys);
    // A receive and a delete per batch, a commit per turn: the calls the model counts.
    expect(counts['queue.receive']).toBeLessThan(keys.length / 2);
    expect(counts['store.transact']).toBeGreaterThanOrEqual(150 + 5);
  });

  it('applies messages sent while the workers run, and times each commit', async () => {
    let n = 0;
    const random = () => {
      n = (n * 7 + 3) % 10;
      return (n + 0.5) / 10;
    };
    const { latencies } = await openLoop(2, 20, 200, 40, random);
    expect(latencies.length).toBeGreaterThanOrEqual(1);
    expect(Math.min(...latencies)).toBeGreaterThan(0);
  });

  it('pushes one result to every subscriber, retrying the calls the account throttles', async () => {
    const account = { perSecond: 2_000, burst: 100 };
    const { throttled } = await fanOut(1_000, { concurrency: 200, backoffMs: 5 }, account);
    expect(throttled).toBeGreaterThan(0);
  });

  it('retires idle actors’ held sends with the sweeper, each sent again once, a group’s in one call', async () => {
    const { counts } = await sweepTime(30, 2);
    // A load, an outbox read and a write per actor; one send per group of ten.
    expect(counts['store.load']).toBe(30);
    expect(counts['store.retireHeldOutbox']).toBe(30);
    expect(counts['queue.send']).toBe(3);
    // As the sweeper did before: a send per actor.
    expect((await sweepTime(30, undefined)).counts['queue.send']).toBe(30);
  });

  it('makes a call over the rate wait for its share, and refuses one it cannot take now', async () => {
    // Two a second: each call books 500 ms, far more than a loaded host stalls between two
    // lines (at 100 a second, a 10-ms stall let the second call through).
    const limit = new RateLimit(2, 0);
    expect(limit.tryTake()).toBe(true);
    expect(limit.tryTake()).toBe(false);
    // The first call booked the next 500 ms: this one waits for them on a timer, which no
    // immediate outruns. (Not timed: a timer may fire early against performance.now().)
    let taken = false;
    const taking = limit.take().then(() => {
      taken = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(taken).toBe(false);
    await taking;
    // It booked the 500 ms after those: a call now is refused again.
    expect(limit.tryTake()).toBe(false);
  });

  it('counts the items of a commit: the record, and each item beside it', () => {
    const record = { id: 'tally/a', ver: 1, state: {}, inboxOffset: '0', marks: {}, sentSeq: 0 };
    expect(commitItems({ expectedVer: 0, record, outbox: [], idempotency: [] })).toBe(1);
    expect(
      commitItems({
        expectedVer: 0,
        record,
        outbox: [],
        idempotency: [],
        outcomes: { page: 0, outcomes: [] } as never,
      }),
    ).toBe(2);
  });
});
