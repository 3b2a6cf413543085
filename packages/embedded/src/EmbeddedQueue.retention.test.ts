import type { QueueMessage } from '@baton/core/adapter';
import { describe, expect, it } from 'vitest';
import { createEmbeddedBackend } from './createEmbeddedBackend.ts';
import { EmbeddedQueue, type EmbeddedQueueOptions } from './EmbeddedQueue.ts';
import { MemoryJournal } from './Journal.ts';

const DAY = 24 * 60 * 60 * 1000;
const VT = { visibilityTimeoutMs: 1_000 };

function setup(options: EmbeddedQueueOptions = {}) {
  const clock = { t: 1_000_000, now: () => clock.t };
  return { clock, queue: new EmbeddedQueue({ clock, ...options }) };
}

function msg(group: string, body: string): QueueMessage {
  return { group, dedupeId: `${group}:${body}`, body };
}

const bodies = (got: readonly { body: string }[]) => got.map((m) => m.body);

describe("EmbeddedQueue's message retention", () => {
  it('keeps a message 14 days by default, as the production queues, and drops it on the receive after', async () => {
    const { queue, clock } = setup();
    expect(queue.retentionMs).toBe(14 * DAY);
    await queue.send([msg('a', 'old')]);
    clock.t += 14 * DAY - VT.visibilityTimeoutMs;
    await queue.send([msg('a', 'young'), msg('b', 'young')]);
    expect(bodies(await queue.receive({ max: 10, ...VT }))).toEqual(['old', 'young', 'young']);
    // Received and never acked: its retention runs on.
    clock.t += VT.visibilityTimeoutMs;
    expect(bodies(await queue.receive({ max: 10, ...VT }))).toEqual(['young', 'young']);
    expect(queue.messages().map((m) => `${m.group}:${m.body}`)).toEqual(['a:young', 'b:young']);
    expect(queue.deadLetters()).toEqual([]);
  });

  it('takes a retention from 60 s to 14 days, and drops a message past it before it dead-letters', async () => {
    const { queue, clock } = setup({ retentionMs: 60_000, maxReceives: 1 });
    await queue.send([msg('a', '1')]);
    expect(bodies(await queue.receive({ max: 10, ...VT }))).toEqual(['1']);
    clock.t += 60_000;
    expect(await queue.receive({ max: 10, ...VT })).toEqual([]);
    expect(queue.counts()).toMatchObject({ total: 0, deadLetters: 0 });
    for (const retentionMs of [59_999, 14 * DAY + 1, Number.NaN]) {
      expect(() => new EmbeddedQueue({ retentionMs })).toThrow(
        /queue.retentionMs must be from 60000 ms \(60 s\) to 1209600000 ms \(14 days\)/,
      );
      expect(() => createEmbeddedBackend({ queue: { retentionMs } })).toThrow(/queue.retentionMs/);
    }
  });

  it('counts a redriven message from its redrive, and drops past it after a restart', async () => {
    const journal = new MemoryJournal();
    const clock = { t: 1_000_000, now: () => clock.t };
    const options = { clock, journal, retentionMs: DAY, maxReceives: 1 };
    const queue = new EmbeddedQueue(options);
    await queue.send([msg('a', 'redriven'), msg('b', 'kept')]);
    await queue.receive({ max: 10, ...VT });
    clock.t += DAY / 2;
    await queue.receive({ max: 10, ...VT }); // both dead-lettered
    expect(queue.redrive([queue.deadLetters()[0]!.seq])).toBe(1);
    await queue.send([msg('c', 'late')]);
    clock.t += DAY / 2;
    // The restarted queue drops what it replays past its retention, and journals the drop.
    const restarted = new EmbeddedQueue(options);
    expect(bodies(await restarted.receive({ max: 10, ...VT }))).toEqual(['redriven', 'late']);
    clock.t += DAY / 2;
    expect(await new EmbeddedQueue(options).receive({ max: 10, ...VT })).toEqual([]);
    expect(new EmbeddedQueue(options).messages()).toEqual([]);
  });

  it('keeps a dead letter retentionMs from its move to the dead-letter queue, as an SQS FIFO dead-letter queue does, then drops it for good: no longer listed, counted or redriven', async () => {
    const journal = new MemoryJournal();
    const clock = { t: 1_000_000, now: () => clock.t };
    const options = { clock, journal, retentionMs: DAY, maxReceives: 1 };
    const queue = new EmbeddedQueue(options);
    const t0 = clock.t;
    await queue.send([msg('a', 'first')]);
    await queue.receive({ max: 10, ...VT });
    clock.t = t0 + DAY / 2;
    await queue.receive({ max: 10, ...VT }); // 'first' dead-lettered, half a day after its send
    await queue.send([msg('b', 'second')]);
    await queue.receive({ max: 10, ...VT });
    clock.t = t0 + (3 * DAY) / 4;
    await queue.receive({ max: 10, ...VT }); // 'second' dead-lettered
    const [first, second] = queue.deadLetters();
    expect([first?.body, second?.body]).toEqual(['first', 'second']);
    // A day after its send, 'first' is still there: SQS restarts a FIFO message's retention as
    // it moves it to the dead-letter queue.
    clock.t = t0 + DAY;
    expect(bodies(queue.deadLetters())).toEqual(['first', 'second']);
    clock.t = t0 + DAY / 2 + DAY - 1;
    expect(queue.counts().deadLetters).toBe(2);
    // A day after its move, it is gone, whichever asks first.
    clock.t = t0 + DAY / 2 + DAY;
    expect(queue.counts()).toMatchObject({ total: 0, deadLetters: 1 });
    expect(bodies(queue.deadLetters())).toEqual(['second']);
    expect(queue.redrive([first!.seq])).toBe(0);
    // The drop is journaled: a queue restarted with a longer retention does not bring it back.
    expect(bodies(new EmbeddedQueue({ ...options, retentionMs: 14 * DAY }).deadLetters())).toEqual([
      'second',
    ]);
    clock.t = t0 + (3 * DAY) / 4 + DAY;
    expect(queue.redrive()).toBe(0);
    expect(queue.deadLetters()).toEqual([]);
    expect(queue.counts()).toMatchObject({ total: 0, deadLetters: 0 });
    expect(new EmbeddedQueue(options).deadLetters()).toEqual([]);
  });

  it('counts no message past the retention, whether or not a receive reached its group', async () => {
    const { queue, clock } = setup({ retentionMs: 60_000 });
    let notified = 0;
    queue.onAvailable(() => notified++);
    await queue.send([msg('a', '1')]);
    clock.t += 30_000;
    await queue.send([msg('b', '1'), msg('a', '2')]);
    // a:1 in flight, for longer than it is kept; a:2 waits behind it; b:1 is never received.
    expect(bodies(await queue.receive({ max: 1, visibilityTimeoutMs: 12 * 60 * 60_000 }))).toEqual([
      '1',
    ]);
    expect(queue.counts()).toEqual({
      total: 3,
      visible: 2,
      receivable: 1,
      inFlight: 1,
      deadLetters: 0,
    });
    clock.t += 30_000; // a:1 was sent 60 s ago: SQS deletes it, in flight or not
    notified = 0;
    expect(queue.counts()).toEqual({
      total: 2,
      visible: 2,
      receivable: 2,
      inFlight: 0,
      deadLetters: 0,
    });
    // Its group is free: a:2 may be received now, and a waiting host is told so.
    expect(notified).toBe(1);
    expect(queue.nextVisibleAt()).toBe(clock.t);
    expect(queue.messages().map((m) => `${m.group}:${m.body}`)).toEqual(['b:1', 'a:2']);
    clock.t += 30_000;
    expect(queue.counts()).toMatchObject({ total: 0, visible: 0, receivable: 0, inFlight: 0 });
    expect(queue.nextVisibleAt()).toBeUndefined();
    expect(queue.messages()).toEqual([]);
  });
});
