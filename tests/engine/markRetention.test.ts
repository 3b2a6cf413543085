/**
 * A receiver's mark for a sender is gone before the sender's next life counts its `seq` from 1
 * again: a halted record expires twice the mark retention after its last commit, and a mark
 * lives a retention from its time, which a copy applied late (a missing message redriven from
 * the queue's dead-letter queue, however old) moves to at most a retention after its send. Two
 * such copies, redriven 9 and 18 days after a 10-day retention began, would otherwise carry the
 * mark past the sender's expiry, and the new life's first messages would be skipped, also on a
 * worker whose clock is behind.
 */
import type { Clock } from '@baton/core/adapter';
import { describe, expect, it } from 'vitest';
import { runUntilIdle } from './helpers.ts';
import { DAY, Sender, tallyApp } from './tallyChannel.ts';

const RETENTION = 10 * DAY;

describe("a receiver's mark renewed by late copies of missing messages", () => {
  it("never outlives the sender's record, so the sender's next life is not skipped", async () => {
    // What the inbox gives up on (a worker that timed out on it, again and again) goes to the
    // queue's dead-letter queue: here, the old life's messages 'old2' and 'old4'.
    const t = tallyApp((line) => (line === 'old2' || line === 'old4' ? 'only' : undefined), {
      markRetentionMs: RETENTION,
    });
    const { h, dlq } = t;
    const s = Sender.ref('s');
    for (const n of [1, 2, 3, 4, 5]) {
      await t.emit(`old${n}`);
      await t.run();
    }
    await h.client.send(s, 'end', {});
    await t.run();
    expect(dlq).toHaveLength(2);
    const expiresAt = (await h.record(s.id))!.expiresAt!;

    // The operator redrives the dead-letter queue: 'old2' after 9 days, 'old4' after 18 (it went
    // back to the dead-letter queue once more in between). Each is a missing message: applied.
    h.clock.advance(9 * DAY);
    await t.redrive([dlq[0]!]);
    await t.run();
    h.clock.advance(9 * DAY);
    await t.redrive([dlq[1]!]);
    await t.run();

    // The sender's record expires (twice the retention after its halt); a new life begins.
    h.clock.set(expiresAt + 60_000);
    h.backend.store.purgeExpired();
    expect(await h.record(s.id)).toBeUndefined();
    await t.emit('new1');
    await t.emit('new2');
    // The worker that runs the new life's first turns has a clock two minutes behind the one
    // that halted the old life: the mark's time leaves clocks a margin.
    const behind: Clock = { now: () => h.clock.now() - 120_000 };
    await runUntilIdle(t.worker(behind), h.backend, h.clock);

    expect((await t.tally()).lines).toEqual([
      'old1',
      'old3',
      'old5',
      'old2',
      'old4',
      'new1',
      'new2',
    ]);
  });
});
