/**
 * A channel's bookkeeping over weeks: a sender forgets an idle channel after half the mark
 * retention, a receiver forgets an idle sender's mark after the whole of it, and a message may
 * wait in the queue's dead-letter queue longer than either (SQS restarts its retention on each
 * move). A copy of a message applied before the receiver forgot its mark must not be applied
 * again; a message sent before the sender forgot its channel, and redriven after, must not be
 * skipped as a duplicate.
 */
import { type Clock, decodeEnvelope } from '@baton/core/adapter';
import { pauseActor, redriveDeadLetter, resumeActor } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import { runUntilIdle } from './helpers.ts';
import { DAY, lineOf, Tally, tallyApp } from './tallyChannel.ts';

/** A redrive of a letter kept as too old to tell: by an operator who knows it never applied. */
const FORCE = { force: true };

const HOUR = 60 * 60 * 1000;

/**
 * 'a', which never reached the tally before its two copies in the dead-letter queue (a worker
 * that timed out on it, and a send again past the dedupe window), redriven once 29 days on: with
 * no mark to tell it by, it is kept, too old to tell. The other copy still waits in `t.dlq[1]`.
 */
async function keptTooOld() {
  const t = tallyApp((line) => (line === 'a' ? 'only' : undefined));
  await t.emit('a');
  await t.run();
  t.dlq.push(t.dlq[0]!);
  t.h.clock.advance(29 * DAY);
  await t.redrive(t.dlq.slice(0, 1));
  await t.run();
  const [letter] = await t.h.backend.store.listDeadLetters('tally/t');
  return { t, letter: letter! };
}

describe('a channel over weeks', () => {
  it('applies no copy twice of a message applied before the receiver forgot its mark, however often it is redriven', async () => {
    // 'a' is applied, and a copy of it (committed, never acked) moves to the dead-letter queue;
    // 'b' moves there undelivered.
    const t = tallyApp((line) => (line === 'a' ? 'copy' : line === 'b' ? 'only' : undefined));
    await t.emit('a'); // seq 1, prev 0
    await t.run();
    t.h.clock.advance(13 * DAY); // the sender's channel stays open (under 14 days idle)
    await t.emit('b'); // seq 2, prev 1
    await t.run();
    expect(t.dlq.map(lineOf)).toEqual(['a', 'b']);

    // 29 days after 'a' the tally's mark for the sender (at 'a') is gone. The operator redrives
    // the dead-letter queue, and later (past SQS's dedupe window) does so again: 'b' opens a gap
    // from no mark, which spans 'a'.
    t.h.clock.advance(16 * DAY);
    await t.redrive(t.dlq);
    await t.run();
    t.h.clock.advance(10 * 60_000);
    await t.redrive(t.dlq);
    await t.run();
    // 'a' is as old as the mark's retention: kept, as one that may have been applied, not
    // applied again.
    expect(await t.tally()).toEqual({ lines: ['a', 'b'], letters: [{ line: 'a' }] });
  });

  it('applies a message sent before its sender forgot the channel, redriven after the sender opened it anew', async () => {
    const t = tallyApp((line) => (line === 'a2' ? 'only' : undefined));
    await t.emit('a1'); // seq 1, prev 0: applied
    await t.run();
    await t.emit('a2'); // seq 2, prev 1: to the dead-letter queue
    await t.run();
    // 15 days on the sender has forgotten its channel: 'b' says prev 0, and the tally, whose
    // mark (at 1) stayed, takes what lies between as missing.
    t.h.clock.advance(15 * DAY);
    await t.emit('b'); // seq 3, prev 0
    await t.run();
    expect(t.dlq.map((m) => [lineOf(m), decodeEnvelope(m.body)?.prev])).toEqual([['a2', 1]]);

    await t.redrive(t.dlq); // 15 days old: younger than any retention
    await t.run();
    expect(await t.tally()).toEqual({ lines: ['a1', 'b', 'a2'], letters: [] });
    // A copy of it once more is a duplicate now.
    t.h.clock.advance(10 * 60_000);
    await t.redrive(t.dlq);
    await t.run();
    expect(await t.tally()).toEqual({ lines: ['a1', 'b', 'a2'], letters: [] });
  });

  it('applies a message sent before its sender forgot the channel, redriven after the sender opened it anew to a receiver with no mark', async () => {
    // 'a' goes to the dead-letter queue undelivered: the tally never heard from the sender.
    const t = tallyApp((line) => (line === 'a' ? 'only' : undefined));
    await t.emit('a'); // seq 1, prev 0
    await t.run();
    // 15 days on the sender has forgotten its channel: 'b' says prev 0 again, and the tally,
    // with no mark, takes what lies below it as missing.
    t.h.clock.advance(15 * DAY);
    await t.emit('b'); // seq 2, prev 0
    await t.run();
    await t.redrive(t.dlq);
    await t.run();
    expect(await t.tally()).toEqual({ lines: ['b', 'a'], letters: [] });
    // A copy of it once more is a duplicate now.
    t.h.clock.advance(10 * 60_000);
    await t.redrive(t.dlq);
    await t.run();
    expect(await t.tally()).toEqual({ lines: ['b', 'a'], letters: [] });
  });

  it('keeps no second letter of a message that a redrive applied once it was too old to tell, when another copy of it comes', async () => {
    const { t, letter } = await keptTooOld();
    expect(await t.tally()).toEqual({ lines: [], letters: [{ line: 'a' }] });
    expect(letter.unmarked).toBe(true);
    // The operator knows it was never applied, and redrives it: applied.
    await redriveDeadLetter(
      t.h.backend.store,
      t.h.backend.queue,
      'tally/t',
      letter.messageId,
      FORCE,
    );
    await t.run();
    expect(await t.tally()).toEqual({ lines: ['a'], letters: [] });

    // The other copy comes: the proof the redrive left tells it, so it is neither applied nor
    // kept again as a letter an operator would take for the one redriven.
    t.h.clock.advance(10 * 60_000);
    await t.redrive(t.dlq.slice(1));
    await t.run();
    expect(await t.tally()).toEqual({ lines: ['a'], letters: [] });
  });

  it('applies a message sent before its sender forgot the channel when the message that reopened it came late, and it later still', async () => {
    const t = tallyApp((line) => (line === 'a1' || line === 'b' ? 'only' : undefined));
    await t.emit('a0'); // seq 1, prev 0: applied
    await t.run();
    await t.emit('a1'); // seq 2, prev 1: to the dead-letter queue
    await t.run();
    t.h.clock.advance(15 * DAY); // the sender forgets its idle channel
    await t.emit('b'); // seq 3, prev 0: to the dead-letter queue
    await t.run();
    await t.emit('c'); // seq 4, prev 3: applied, (1, 3] missing
    await t.run();
    // The redrive applies 'b' late; 'a1' failed its receives again and is back in the
    // dead-letter queue. 'b' opened the channel anew: it says nothing of what lies below it.
    await t.redrive(t.dlq.filter((m) => lineOf(m) === 'b'));
    await t.run();
    t.h.clock.advance(10 * 60_000);
    await t.redrive(t.dlq.filter((m) => lineOf(m) === 'a1'));
    await t.run();
    expect(await t.tally()).toEqual({ lines: ['a0', 'c', 'b', 'a1'], letters: [] });
  });

  it('applies a message once whose letter, too old to tell, was redriven after a mark appeared, when another copy of it comes', async () => {
    const t = tallyApp((line) => (line === 'x' || line === 'm' ? 'only' : undefined));
    await t.emit('x'); // seq 1, prev 0
    await t.run();
    // The sender's next turn runs on a worker whose clock is 20 hours behind: within the day's
    // margin the engine allows a sender's clock, 'm' (seq 2) says it was sent before 'x'.
    const behind: Clock = { now: () => t.h.clock.now() - 20 * HOUR };
    t.h.clock.advance(60_000);
    await t.emit('m');
    await runUntilIdle(t.worker(behind), t.h.backend, t.h.clock);
    const [x, m] = t.dlq;
    t.h.clock.advance(26.5 * DAY); // 'm' is 27.3 days old by its clock, 'x' 26.5
    await t.redrive([m!]);
    await t.run();
    expect(await t.tally()).toEqual({ lines: [], letters: [{ line: 'm' }] });
    // 'x', young enough, makes a mark; the operator, who knows 'm' never was applied, redrives it.
    await t.redrive([x!]);
    await t.run();
    const [letter] = await t.h.backend.store.listDeadLetters('tally/t');
    await redriveDeadLetter(
      t.h.backend.store,
      t.h.backend.queue,
      'tally/t',
      letter!.messageId,
      FORCE,
    );
    await t.run();
    expect(await t.tally()).toEqual({ lines: ['x', 'm'], letters: [] });
    // Another copy of 'm': the mark (at 'x') would take it for the next message; its proof tells it.
    t.h.clock.advance(10 * 60_000);
    await t.redrive([m!]);
    await t.run();
    expect(await t.tally()).toEqual({ lines: ['x', 'm'], letters: [] });
  });

  describe('while the receiver is paused', () => {
    /** The operator pauses, and later resumes, the tally of `t`. */
    const operator = (t: ReturnType<typeof tallyApp>) => {
      const { store, queue } = t.h.backend;
      const by = { by: 'ops', now: t.h.clock.now() };
      return {
        pause: () => pauseActor(store, queue, 'tally/t', by),
        resume: () => resumeActor(store, queue, 'tally/t', { ...by, now: t.h.clock.now() }),
      };
    };

    it('keeps a copy too old to tell as a dead letter, rather than park it to be applied on resume', async () => {
      const t = tallyApp((line) => (line === 'a' ? 'copy' : undefined));
      await t.emit('a'); // applied; a copy, committed and never acknowledged, to the DLQ
      await t.run();
      t.h.clock.advance(29 * DAY); // the tally's mark for the sender is gone
      const ops = operator(t);
      await ops.pause();
      await t.run();
      await t.redrive(t.dlq);
      await t.run();
      await ops.resume();
      await t.run();
      expect(await t.tally()).toEqual({ lines: ['a'], letters: [{ line: 'a' }] });
    });

    it("keeps a client's copy older than its outcome as a dead letter, rather than park it", async () => {
      const t = tallyApp(() => undefined);
      const { queue } = t.h.backend;
      await t.h.client.send(Tally.ref('t'), 'add', { line: 'i' });
      const [got] = await queue.receive({ max: 10, visibilityTimeoutMs: 30_000 });
      const copy = { group: got!.group, dedupeId: got!.dedupeId, body: got!.body };
      await queue.release([got!.receipt], 0);
      await t.run();
      t.h.clock.advance(15 * DAY); // past the 14 days its outcome is kept
      const ops = operator(t);
      await ops.pause();
      await t.run();
      await t.redrive([copy]);
      await t.run();
      await ops.resume();
      await t.run();
      expect(await t.tally()).toEqual({ lines: ['i'], letters: [{ line: 'i' }] });
    });

    it('leaves the proof of a letter too old to tell that was parked by its redrive and applied on resume', async () => {
      const { t, letter } = await keptTooOld();
      const { store, queue } = t.h.backend;
      const ops = operator(t);
      await ops.pause();
      await t.run();
      await redriveDeadLetter(store, queue, 'tally/t', letter.messageId, FORCE);
      await t.run();
      await ops.resume();
      await t.run();
      expect(await t.tally()).toEqual({ lines: ['a'], letters: [] });
      // The other copy: the proof tells it, where a fresh letter just like the first would not.
      t.h.clock.advance(10 * 60_000);
      await t.redrive(t.dlq.slice(1));
      await t.run();
      expect(await t.tally()).toEqual({ lines: ['a'], letters: [] });
    });
  });
});
