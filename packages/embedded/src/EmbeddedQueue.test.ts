import { ErrorCode, isBatonError, MAX_MESSAGE_BYTES, MAX_VISIBILITY_TIMEOUT_MS } from '@baton/core';
import type { QueueMessage } from '@baton/core/adapter';
import { compareSeq } from '@baton/core/adapter';
import { describe, expect, it, vi } from 'vitest';
import { EmbeddedQueue, type EmbeddedQueueOptions } from './EmbeddedQueue.ts';
import { type JournalEntry, MemoryJournal } from './Journal.ts';

function setup(options: EmbeddedQueueOptions = {}) {
  const clock = { t: 1_000_000, now: () => clock.t };
  return { clock, queue: new EmbeddedQueue({ clock, ...options }) };
}

function msg(group: string, body: string, dedupeId = `${group}:${body}`): QueueMessage {
  return { group, dedupeId, body };
}

const VT = { visibilityTimeoutMs: 1_000 };

describe('EmbeddedQueue', () => {
  it('delivers the messages of a group in send order', async () => {
    const { queue } = setup();
    await queue.send([msg('g', '1'), msg('g', '2')]);
    await queue.send([msg('g', '3')]);
    const got = await queue.receive({ max: 10, ...VT });
    expect(got.map((m) => m.body)).toEqual(['1', '2', '3']);
    expect(got.every((m) => m.receiveCount === 1 && m.group === 'g')).toBe(true);
  });

  it('blocks a whole group while one of its messages is in flight', async () => {
    const { queue } = setup();
    await queue.send([msg('a', '1'), msg('a', '2'), msg('b', '1')]);
    const first = await queue.receive({ max: 1, ...VT });
    expect(first.map((m) => `${m.group}${m.body}`)).toEqual(['a1']);
    expect(queue.counts()).toMatchObject({ total: 3, visible: 2, receivable: 1, inFlight: 1 });
    const second = await queue.receive({ max: 10, ...VT });
    expect(second.map((m) => `${m.group}${m.body}`)).toEqual(['b1']);
    expect(await queue.receive({ max: 10, ...VT })).toEqual([]);
    await queue.ack([first[0]!.receipt]);
    expect((await queue.receive({ max: 10, ...VT })).map((m) => `${m.group}${m.body}`)).toEqual([
      'a2',
    ]);
  });

  it('serves groups round-robin, oldest first', async () => {
    const { queue } = setup();
    await queue.send([msg('a', '1'), msg('a', '2'), msg('a', '3'), msg('b', '1'), msg('c', '1')]);
    const got = await queue.receive({ max: 4, ...VT });
    expect(got.map((m) => `${m.group}${m.body}`)).toEqual(['a1', 'b1', 'c1', 'a2']);
  });

  it('redelivers an unacknowledged message after its visibility timeout', async () => {
    const { queue, clock } = setup();
    await queue.send([msg('g', '1')]);
    const [first] = await queue.receive({ max: 1, ...VT });
    clock.t += 999;
    expect(await queue.receive({ max: 1, ...VT })).toEqual([]);
    expect(queue.nextVisibleAt()).toBe(clock.t + 1);
    clock.t += 1;
    const [again] = await queue.receive({ max: 1, ...VT });
    expect(again).toMatchObject({ body: '1', receiveCount: 2, seq: first!.seq });
    expect(again!.receipt).not.toBe(first!.receipt);
  });

  it('ignores a stale receipt from an earlier delivery', async () => {
    const { queue, clock } = setup();
    await queue.send([msg('g', '1')]);
    const [first] = await queue.receive({ max: 1, ...VT });
    clock.t += 1_000;
    const [second] = await queue.receive({ max: 1, ...VT });
    await queue.ack([first!.receipt]);
    await queue.release([first!.receipt], 0);
    expect(queue.counts()).toEqual({
      total: 1,
      visible: 0,
      receivable: 0,
      inFlight: 1,
      deadLetters: 0,
    });
    await queue.ack([second!.receipt]);
    expect(queue.counts().total).toBe(0);
  });

  it("refuses another queue's receipt for a message of the same seq, and malformed receipts", async () => {
    const { queue: ours, clock } = setup();
    const { queue: theirs } = setup();
    await ours.send([msg('g', '1')]);
    await theirs.send([msg('g', '1')]);
    const [mine] = await ours.receive({ max: 1, ...VT });
    const [other] = await theirs.receive({ max: 1, ...VT });
    expect(mine!.seq).toBe(other!.seq);
    expect(mine!.receipt).not.toBe(other!.receipt);
    const malformed = ['', '.', '..', 'x', `${mine!.seq}`, `.${mine!.seq}.`, '1.1', 42, null];
    await ours.ack([other!.receipt, ...(malformed as string[])]);
    await ours.release([other!.receipt, ...(malformed as string[])], 0);
    expect(ours.counts()).toMatchObject({ total: 1, inFlight: 1 });
    clock.t += 1_000;
    const [again] = await ours.receive({ max: 1, ...VT });
    await ours.ack([mine!.receipt]); // stale: from the delivery before
    expect(ours.counts()).toMatchObject({ total: 1, inFlight: 1 });
    await ours.ack([again!.receipt, again!.receipt]);
    expect(ours.counts().total).toBe(0);
    expect(theirs.counts()).toMatchObject({ total: 1, inFlight: 1 });
  });

  it('refuses the receipt of a message that went to the dead-letter queue, also once redriven', async () => {
    const { queue, clock } = setup({ maxReceives: 1 });
    await queue.send([msg('g', 'poison')]);
    const [m] = await queue.receive({ max: 1, ...VT });
    clock.t += 1_000;
    expect(await queue.receive({ max: 1, ...VT })).toEqual([]);
    await queue.ack([m!.receipt]);
    expect(queue.deadLetters()).toHaveLength(1);
    expect(queue.redrive()).toBe(1);
    await queue.ack([m!.receipt]);
    await queue.release([m!.receipt], 5_000);
    expect(queue.counts()).toMatchObject({ total: 1, receivable: 1 });
  });

  it('makes released messages visible again after the delay', async () => {
    const { queue, clock } = setup();
    await queue.send([msg('g', '1'), msg('g', '2')]);
    const got = await queue.receive({ max: 10, visibilityTimeoutMs: 60_000 });
    await queue.release(
      got.map((m) => m.receipt),
      500,
    );
    expect(queue.nextVisibleAt()).toBe(clock.t + 500);
    clock.t += 499;
    expect(await queue.receive({ max: 10, ...VT })).toEqual([]);
    clock.t += 1;
    const again = await queue.receive({ max: 10, ...VT });
    expect(again.map((m) => [m.body, m.receiveCount])).toEqual([
      ['1', 2],
      ['2', 2],
    ]);
  });

  it("hides a released message for at most SQS's 12 hours, and refuses a longer visibility timeout", async () => {
    const { queue, clock } = setup();
    await queue.send([msg('g', '1')]);
    const [m] = await queue.receive({ max: 1, visibilityTimeoutMs: 60_000 });
    await queue.release([m!.receipt], 2 * MAX_VISIBILITY_TIMEOUT_MS);
    expect(queue.nextVisibleAt()).toBe(clock.t + MAX_VISIBILITY_TIMEOUT_MS);
    clock.t += MAX_VISIBILITY_TIMEOUT_MS;
    expect(await queue.receive({ max: 1, ...VT })).toHaveLength(1);
    const over = { max: 1, visibilityTimeoutMs: MAX_VISIBILITY_TIMEOUT_MS + 1 };
    await expect(queue.receive(over)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(() => new EmbeddedQueue({ visibilityTimeoutMs: MAX_VISIBILITY_TIMEOUT_MS + 1 })).toThrow(
      /visibilityTimeoutMs must be at most/,
    );
  });

  it('makes released messages visible at once with delay 0', async () => {
    const { queue } = setup();
    await queue.send([msg('g', '1')]);
    const [m] = await queue.receive({ max: 1, visibilityTimeoutMs: 60_000 });
    await queue.release([m!.receipt], 0);
    expect(await queue.receive({ max: 1, ...VT })).toHaveLength(1);
  });

  it('drops a duplicate within the dedupe window and accepts it after', async () => {
    const { queue, clock } = setup();
    await queue.send([msg('g', 'first', 'd1')]);
    const [m] = await queue.receive({ max: 1, ...VT });
    await queue.ack([m!.receipt]);
    clock.t += 5 * 60_000 - 1;
    await queue.send([msg('g', 'within', 'd1'), msg('g', 'same batch', 'd2'), msg('g', 'x', 'd2')]);
    expect(queue.messages().map((q) => q.body)).toEqual(['same batch']);
    clock.t += 1;
    await queue.send([msg('g', 'after', 'd1')]);
    expect(queue.messages().map((q) => q.body)).toEqual(['same batch', 'after']);
  });

  it('gives every accepted message a strictly increasing sequence number', async () => {
    const { queue } = setup();
    for (let i = 0; i < 10; i++) await queue.send([msg(`g${i % 3}`, String(i))]);
    const seqs = queue.messages().map((m) => m.seq);
    expect(seqs).toHaveLength(10);
    for (let i = 1; i < seqs.length; i++)
      expect(compareSeq(seqs[i - 1]!, seqs[i]!)).toBeLessThan(0);
    const received = await queue.receive({ max: 10, ...VT });
    expect(new Set(received.map((m) => m.seq))).toEqual(new Set(seqs));
  });

  it('moves a message to the dead-letter queue instead of its maxReceives+1-th receive', async () => {
    const { queue, clock } = setup({ maxReceives: 3 });
    await queue.send([msg('g', 'poison'), msg('g', 'next')]);
    for (let i = 1; i <= 3; i++) {
      const got = await queue.receive({ max: 1, ...VT });
      expect(got.map((m) => [m.body, m.receiveCount])).toEqual([['poison', i]]);
      clock.t += 1_000;
    }
    const got = await queue.receive({ max: 1, ...VT });
    expect(got.map((m) => m.body)).toEqual(['next']);
    expect(queue.deadLetters()).toMatchObject([
      { group: 'g', body: 'poison', receiveCount: 3, deadAt: clock.t },
    ]);
    expect(queue.counts()).toEqual({
      total: 1,
      visible: 0,
      receivable: 0,
      inFlight: 1,
      deadLetters: 1,
    });
  });

  it('redrives dead letters as new messages at the end of their group', async () => {
    const { queue, clock } = setup({ maxReceives: 1 });
    await queue.send([msg('g', 'poison')]);
    await queue.receive({ max: 1, ...VT });
    clock.t += 1_000;
    expect(await queue.receive({ max: 1, ...VT })).toEqual([]);
    const [letter] = queue.deadLetters();
    await queue.send([msg('g', 'later')]);
    expect(queue.redrive([letter!.seq])).toBe(1);
    expect(queue.redrive()).toBe(0);
    const got = await queue.receive({ max: 10, ...VT });
    expect(got.map((m) => [m.body, m.receiveCount])).toEqual([
      ['later', 1],
      ['poison', 1],
    ]);
    expect(compareSeq(got[1]!.seq, letter!.seq)).toBeGreaterThan(0);
    expect(queue.deadLetters()).toEqual([]);
  });

  it('tells a host loop when messages arrive or come back', async () => {
    const { queue } = setup();
    let wakes = 0;
    const stop = queue.onAvailable(() => wakes++);
    expect(queue.nextVisibleAt()).toBeUndefined();
    await queue.send([msg('g', '1')]);
    expect(wakes).toBe(1);
    const [m] = await queue.receive({ max: 1, ...VT });
    await queue.release([m!.receipt], 0);
    expect(wakes).toBe(2);
    stop();
    await queue.send([msg('g', '2')]);
    expect(wakes).toBe(2);
  });

  it('rejects malformed messages and options with INVALID_ARGUMENT', async () => {
    const { queue } = setup();
    await expect(queue.send([{ group: '', dedupeId: 'd', body: 'x' }])).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    await expect(queue.receive({ max: 0, ...VT })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    expect(() => new EmbeddedQueue({ maxReceives: 0 })).toThrow(/maxReceives/);
  });
});

describe('EmbeddedQueue options and listeners', () => {
  it("uses SQS's defaults: 30 s visibility, 5 receives, a 5-minute dedupe window, the inbox name", async () => {
    const { queue, clock } = setup();
    expect(queue.name).toBe('inbox');
    expect(queue.identity).toBeUndefined();
    expect(await queue.redrivePolicy()).toEqual({ maxReceives: 5 });
    await queue.send([msg('g', '1', 'd')]);
    for (let i = 1; i <= 5; i++) {
      const got = await queue.receive();
      expect(got.map((m) => m.receiveCount)).toEqual([i]);
      clock.t += 29_999;
      expect(await queue.receive()).toEqual([]);
      clock.t += 1;
    }
    expect(await queue.receive()).toEqual([]);
    expect(queue.deadLetters()).toHaveLength(1);
    await queue.send([msg('g', 'again', 'd')]); // 5 × 30 s after the first: within 5 minutes
    expect(queue.counts().total).toBe(0);
    clock.t += 150_000;
    await queue.send([msg('g', 'again', 'd')]);
    expect(queue.counts().total).toBe(1);
  });

  it('receives at most 10 messages when given no max', async () => {
    const { queue } = setup();
    await queue.send(Array.from({ length: 12 }, (_, i) => msg(`g${i}`, String(i))));
    expect(await queue.receive()).toHaveLength(10);
  });

  it('takes its name and identity from the options, and refuses an empty name', async () => {
    const queue = new EmbeddedQueue({ name: 'timers', identity: 'q-2' });
    expect(queue.name).toBe('timers');
    expect(await queue.identity?.()).toBe('q-2');
    expect(() => new EmbeddedQueue({ name: '' })).toThrow(/queue name must be a non-empty string/);
    expect(() => new EmbeddedQueue({ name: 7 as never })).toThrow(/non-empty string/);
    for (const [bad, name] of [
      [{ visibilityTimeoutMs: -1 }, 'queue.visibilityTimeoutMs'],
      [{ dedupeWindowMs: Number.POSITIVE_INFINITY }, 'queue.dedupeWindowMs'],
      [{ maxReceives: 1.5 }, 'queue.maxReceives'],
    ] as const) {
      expect(() => new EmbeddedQueue(bad)).toThrow(`${name} must be`);
    }
    const fresh = new EmbeddedQueue();
    for (const [refused, name] of [
      [fresh.receive({ visibilityTimeoutMs: -1 }), 'receive visibilityTimeoutMs'],
      [fresh.receive({ max: 0 }), 'receive max'],
      [fresh.receive({ max: 11 }), 'receive max'],
      [fresh.release([], -1), 'release delayMs'],
    ] as const) {
      await expect(refused).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        message: expect.stringContaining(`${name} must be`),
      });
    }
  });

  it('wakes its listeners only when something changed, past a listener that throws', async () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const journal = new MemoryJournal();
      const { queue } = setup({ journal });
      queue.onAvailable(() => {
        throw new Error('boom');
      });
      let wakes = 0;
      queue.onAvailable(() => wakes++);
      await queue.send([msg('g', '1', 'd1')]);
      expect(wakes).toBe(1);
      expect(error).toHaveBeenCalledWith(
        expect.stringMatching(/an onAvailable listener threw/),
        expect.objectContaining({ message: 'boom' }),
      );
      const written = journal.length;
      await queue.send([msg('g', 'dup', 'd1')]); // dropped whole: a duplicate
      await queue.ack(['no-such-receipt']);
      expect(queue.redrive(['1', 'x'])).toBe(0);
      expect(wakes).toBe(1);
      expect(journal.length).toBe(written);
      queue.close();
      await expect(queue.send([msg('g', '2')])).rejects.toMatchObject({ code: 'UNAVAILABLE' });
      expect(() => queue.redrive()).toThrow('the embedded queue is closed');
      expect(wakes).toBe(1);
    } finally {
      error.mockRestore();
    }
  });

  it('redrives each dead letter once when its seq is named twice', async () => {
    const { queue, clock } = setup({ maxReceives: 1 });
    await queue.send([msg('a', '1'), msg('b', '1')]);
    await queue.receive({ max: 2, ...VT });
    clock.t += 1_000;
    await queue.receive({ max: 2, ...VT });
    expect(queue.counts().deadLetters).toBe(2);
    expect(queue.redrive(['1', '1'])).toBe(1);
    expect(queue.messages()).toMatchObject([{ seq: '3', group: 'a', receiveCount: 0 }]);
    expect(queue.deadLetters()).toMatchObject([{ seq: '2', group: 'b' }]);
  });
});

describe('EmbeddedQueue with a journal that fails', () => {
  it('keeps a group receivable when the journal refused its dead letter, and journals no delivery', async () => {
    const journal = new MemoryJournal();
    let refuse = false;
    const failing = {
      append: (entries: readonly JournalEntry[]) => {
        if (refuse) throw new Error('disk full');
        journal.append(entries);
      },
      replay: () => journal.replay(),
      replace: () => {},
      close: () => {},
    };
    const { queue, clock } = setup({ journal: failing, maxReceives: 1 });
    await queue.send([msg('g', 'poison'), msg('g', 'next')]);
    const written = journal.length;
    const [m] = await queue.receive({ max: 1, ...VT });
    await queue.release([m!.receipt], 0);
    expect(journal.length).toBe(written); // receives and releases are not durable
    refuse = true;
    await expect(queue.receive({ max: 1, ...VT })).rejects.toThrow(/disk full/);
    refuse = false;
    clock.t += 1_000;
    const got = await queue.receive({ max: 1, ...VT });
    expect(got.map((x) => x.body)).toEqual(['next']);
    expect(queue.deadLetters().map((x) => x.body)).toEqual(['poison']);
  });
});

describe('EmbeddedQueue message checks', () => {
  it('refuses a message without a string group, dedupe id or body, naming the field', async () => {
    const { queue } = setup();
    const bad: [unknown, RegExp][] = [
      [undefined, /needs a non-empty string group/],
      [{ group: 7, dedupeId: 'd', body: 'x' }, /needs a non-empty string group/],
      [{ group: 'g', dedupeId: '', body: 'x' }, /needs a non-empty string dedupeId/],
      [{ group: 'g', dedupeId: 'd', body: 7 }, /a queue message body must be a string/],
    ];
    for (const [message, error] of bad) {
      await expect(queue.send([message as QueueMessage])).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        message: expect.stringMatching(error),
      });
    }
    expect(queue.counts().total).toBe(0);
  });

  it('accepts an id again once its window passed, even when the clock stepped back meanwhile', async () => {
    const { queue, clock } = setup({ dedupeWindowMs: 1_000 });
    await queue.send([msg('g', '1', 'later')]);
    clock.t -= 500; // the clock steps back: 'earlier' is remembered after 'later', at an older time
    await queue.send([msg('g', '2', 'earlier')]);
    clock.t += 1_000; // past the window of 'earlier', within that of 'later'
    await queue.send([msg('g', '3', 'earlier'), msg('g', '4', 'later')]);
    expect(queue.messages().map((m) => m.body)).toEqual(['1', '2', '3']);
  });
});

describe('EmbeddedQueue message size', () => {
  it('refuses a send holding a message over MAX_MESSAGE_BYTES as SQS does, and enqueues nothing of it', async () => {
    const { queue } = setup();
    expect(queue.maxMessageBytes).toBe(MAX_MESSAGE_BYTES);
    expect(MAX_MESSAGE_BYTES).toBe(1_048_576); // SQS's limit since 2025: 1 MiB
    const big = 'x'.repeat(MAX_MESSAGE_BYTES + 1);
    const error = await queue.send([msg('g', 'small'), msg('g', big, 'big')]).catch((e) => e);
    expect(isBatonError(error)).toBe(true);
    expect(error).toMatchObject({
      code: ErrorCode.MESSAGE_TOO_LARGE,
      terminal: true,
      details: {
        dedupeId: 'big',
        group: 'g',
        limit: MAX_MESSAGE_BYTES,
        actual: MAX_MESSAGE_BYTES + 1,
      },
    });
    // The SQS adapter's wording, word for word.
    expect(error.message).toBe(
      `message big to g is ${MAX_MESSAGE_BYTES + 1} bytes, more than SQS's ${MAX_MESSAGE_BYTES}-byte limit; nothing was sent`,
    );
    expect(queue.counts().total).toBe(0);
    expect(queue.messages()).toEqual([]);
    // Neither the sequence counter nor the dedupe window saw the refused send.
    await queue.send([msg('g', 'small')]);
    expect(queue.messages()).toMatchObject([{ seq: '1', body: 'small' }]);
  });

  it('counts UTF-8 bytes, not characters, and takes a message of exactly the limit', async () => {
    const { queue } = setup();
    const twoByte = 'é'.repeat(MAX_MESSAGE_BYTES / 2);
    await queue.send([msg('g', twoByte, 'fits')]);
    await expect(queue.send([msg('g', `${twoByte}x`, 'over')])).rejects.toMatchObject({
      code: ErrorCode.MESSAGE_TOO_LARGE,
      details: { actual: MAX_MESSAGE_BYTES + 1 },
    });
    expect(queue.messages().map((m) => m.dedupeId)).toEqual(['fits']);
  });

  it('counts the bytes of a body whose length alone cannot tell: up to 6 bytes a UTF-16 unit, as SQS counts it', async () => {
    const { queue } = setup({ maxMessageBytes: 9 });
    const fits = ['€€€', '😀😀', 'x'.repeat(9), '\ud83dx']; // 9, 8, 9, 7 (the lone surrogate escaped)
    for (const [i, body] of fits.entries()) await queue.send([msg('g', body, `fits${i}`)]);
    const over: [string, number][] = [
      ['€€€€', 12],
      ['€€😀', 10],
      ['é'.repeat(5), 10],
      // Characters SQS refuses go as six-byte escapes: a lone surrogate, U+FFFF, a control.
      ['\ud800\ud800', 12],
      ['\uffff\uffff', 12],
      ['\u0001\u0001', 12],
    ];
    for (const [body, actual] of over) {
      await expect(queue.send([msg('g', body, 'over')])).rejects.toMatchObject({
        code: ErrorCode.MESSAGE_TOO_LARGE,
        details: { limit: 9, actual },
      });
    }
    expect(queue.counts().total).toBe(fits.length);
  });

  it('counts the attribute that carries an id SQS cannot take as it is', async () => {
    const { queue } = setup({ maxMessageBytes: 40 });
    // 20 bytes of body, and BatonGroup, String and "zoë" (6 bytes): 42.
    await expect(queue.send([msg('zoë', 'x'.repeat(20), 'd1')])).rejects.toMatchObject({
      code: ErrorCode.MESSAGE_TOO_LARGE,
      details: { limit: 40, actual: 42 },
    });
    await queue.send([msg('zoë', 'x'.repeat(18), 'd2')]);
    expect(queue.counts().total).toBe(1);
  });

  it('applies a smaller maxMessageBytes when given one, and refuses a bad one', async () => {
    const { queue } = setup({ maxMessageBytes: 10 });
    await queue.send([msg('g', '0123456789')]);
    await expect(queue.send([msg('g', '0123456789a', 'eleven')])).rejects.toMatchObject({
      code: ErrorCode.MESSAGE_TOO_LARGE,
      details: { limit: 10, actual: 11 },
    });
    expect(queue.counts().total).toBe(1);
    expect(() => new EmbeddedQueue({ maxMessageBytes: 0 })).toThrow(/maxMessageBytes/);
  });
});
