import { actor, ErrorCode, silentLogger, TerminalError } from '@baton/core';
import { jsonSize } from '@baton/core/adapter';
import { Client } from '@baton/core/client';
import { createEngine, redriveDeadLetter, type TurnStats, Worker } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { commitsOf, recordingLogger, runUntilIdle, setup } from './helpers.ts';

const Notes = actor({
  name: 'notes',
  state: z.object({ items: z.array(z.string()) }),
  initial: () => ({ items: [] as string[] }),
  handlers: {
    append: {
      payload: z.object({ text: z.string() }),
      handle: (ctx, { text }) => {
        ctx.state.items.push(text);
        return ctx.state.items.length;
      },
    },
    /** Grows the state by `bytes` characters. */
    pad: {
      payload: z.object({ bytes: z.number().int() }),
      handle: (ctx, { bytes }) => {
        ctx.state.items.push('x'.repeat(bytes));
      },
    },
    /** Rejects with `bytes` characters of details. */
    refuse: {
      payload: z.object({ bytes: z.number().int() }),
      handle: (_ctx, { bytes }) => {
        throw new TerminalError('refused', { details: { reason: 'r'.repeat(bytes) } });
      },
    },
    /** Answers with `bytes` characters, leaving the state as it is. */
    echo: {
      payload: z.object({ bytes: z.number().int() }),
      handle: (_ctx, { bytes }) => 'y'.repeat(bytes),
    },
  },
});

const Sink = actor({
  name: 'sink',
  state: z.object({ got: z.array(z.string()) }),
  initial: () => ({ got: [] as string[] }),
  handlers: {
    note: {
      payload: z.object({ batch: z.number(), i: z.number() }),
      handle: (ctx, { batch, i }) => {
        ctx.state.got.push(`${batch}.${i}`);
      },
    },
  },
});

const Fan = actor({
  name: 'fan',
  state: z.object({ batches: z.number() }),
  initial: () => ({ batches: 0 }),
  handlers: {
    fanout: {
      payload: z.object({ batch: z.number(), count: z.number().int() }),
      handle: (ctx, { batch, count }) => {
        ctx.state.batches++;
        for (let i = 0; i < count; i++) ctx.send(Sink.ref('s'), 'note', { batch, i });
      },
    },
  },
});

/** How many characters `log`'s `pad` keeps: a handler fix caps it. */
let padCap = Number.POSITIVE_INFINITY;

const Log = actor({
  name: 'log',
  state: z.object({ items: z.array(z.string()) }),
  initial: () => ({ items: [] as string[] }),
  handlers: {
    append: {
      payload: z.object({ text: z.string() }),
      handle: (ctx, { text }) => {
        ctx.state.items.push(text);
      },
    },
    pad: {
      payload: z.object({ bytes: z.number().int() }),
      handle: (ctx, { bytes }) => {
        ctx.state.items.push('x'.repeat(Math.min(bytes, padCap)));
      },
    },
  },
});

/** Sends `log/l` an append, a pad, then two appends, in one turn. */
const Writer = actor({
  name: 'writer',
  state: z.object({}),
  initial: () => ({}),
  handlers: {
    write: {
      payload: z.object({ bytes: z.number().int() }),
      handle: (ctx, { bytes }) => {
        const log = Log.ref('l');
        ctx.send(log, 'append', { text: 'a' });
        ctx.send(log, 'pad', { bytes });
        ctx.send(log, 'append', { text: 'b' });
        ctx.send(log, 'append', { text: 'c' });
      },
    },
  },
});

describe('limits', () => {
  it('keeps a message that grows the state past the record limit as a dead letter (STATE_TOO_LARGE its cause) and keeps the actor going', async () => {
    const h = setup({ actors: [Notes], limits: { maxItemBytes: 2000 } });
    const notes = Notes.ref('n');
    const commits = commitsOf(h.backend, notes.id);
    await h.client.send(notes, 'append', { text: 'a' });
    const { messageId } = await h.client.send(notes, 'pad', { bytes: 3000 });
    await h.client.send(notes, 'append', { text: 'b' });
    await h.run();

    expect(await h.state(notes.id)).toEqual({ items: ['a', 'b'] });
    const cause = { code: ErrorCode.STATE_TOO_LARGE, details: { actorId: notes.id, limit: 2000 } };
    const outcome = await h.client.outcome(messageId);
    expect(outcome).toMatchObject({
      ok: false,
      error: { code: ErrorCode.DEAD_LETTERED, details: { cause } },
    });
    expect(await h.backend.store.listDeadLetters(notes.id)).toMatchObject([
      { messageId, redrivable: true, error: { details: { cause } } },
    ]);
    expect(commits).toHaveLength(1);

    // The actor keeps processing later messages.
    await h.client.send(notes, 'append', { text: 'c' });
    await h.run();
    expect(await h.state(notes.id)).toEqual({ items: ['a', 'b', 'c'] });
    expect(h.backend.queue.counts()).toMatchObject({ total: 0, deadLetters: 0 });
  });

  it("keeps an actor's send whose state would pass the record limit as one dead letter, goes on in order, and applies its redrive once after a fix", async () => {
    padCap = Number.POSITIVE_INFINITY;
    const turns: TurnStats[] = [];
    const { logger, lines } = recordingLogger();
    const h = setup({
      actors: [Log, Writer],
      limits: { maxItemBytes: 2000 },
      logger,
      onTurn: (stats) => turns.push(stats),
    });
    const log = Log.ref('l');
    await h.client.send(Writer.ref('w'), 'write', { bytes: 3000 });
    await h.run();

    expect(await h.state(log.id)).toEqual({ items: ['a', 'b', 'c'] });
    const letters = await h.backend.store.listDeadLetters(log.id);
    expect(letters).toHaveLength(1);
    const [letter] = letters;
    expect(letter).toMatchObject({
      redrivable: true,
      envelope: { name: 'pad', payload: { bytes: 3000 } },
      error: {
        code: ErrorCode.DEAD_LETTERED,
        message: expect.stringMatching(
          /record limit; the state is unchanged and the message was kept as a dead letter: keep large data elsewhere or split the actor, deploy, then redrive it$/,
        ),
        details: { cause: { code: ErrorCode.STATE_TOO_LARGE, details: { actorId: log.id } } },
      },
    });
    const counted = (key: 'deadLettered' | 'stateTooLarge' | 'rejected') =>
      turns.filter((t) => t.actorId === log.id).reduce((n, t) => n + t[key], 0);
    expect([counted('deadLettered'), counted('stateTooLarge'), counted('rejected')]).toEqual([
      1, 1, 0,
    ]);
    // The line StateTooLargeAlarm counts.
    expect(lines.filter((line) => line.level === 'error')).toMatchObject([
      {
        message: 'message dead-lettered at once: a retry would not apply it',
        fields: { actor: log.id, messageId: letter!.messageId, code: ErrorCode.STATE_TOO_LARGE },
      },
    ]);

    padCap = 100; // the fix, deployed
    await redriveDeadLetter(h.backend.store, h.backend.queue, log.id, letter!.messageId);
    await h.run();
    expect(await h.state(log.id)).toEqual({ items: ['a', 'b', 'c', 'x'.repeat(100)] });
    expect(await h.backend.store.listDeadLetters(log.id)).toEqual([]);
    // Applied once: nothing is left to redrive again.
    await expect(
      redriveDeadLetter(h.backend.store, h.backend.queue, log.id, letter!.messageId),
    ).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
    await h.run();
    expect(await h.state(log.id)).toEqual({ items: ['a', 'b', 'c', 'x'.repeat(100)] });
    expect(h.backend.queue.counts()).toMatchObject({ total: 0, deadLetters: 0 });
  });

  it('splits a batch whose sends pass the transaction item limit into several commits and delivers every send in order', async () => {
    const h = setup({
      actors: [Fan, Sink],
      limits: { maxTransactionItems: 5, maxItemBytes: 1000 },
    });
    const commits = commitsOf(h.backend, 'fan/f');
    for (let batch = 0; batch < 10; batch++) {
      await h.client.send(Fan.ref('f'), 'fanout', { batch, count: 3 });
    }
    const lastSeq = h.backend.queue.messages().at(-1)!.seq;

    // One receive takes all ten messages into one turn …
    expect(await h.worker.poll()).toBe(10);
    // … which needed several commits, the last one past the tenth message.
    expect(commits.length).toBeGreaterThan(1);
    expect(commits.map((c) => c.ver)).toEqual(commits.map((_, i) => i + 1));
    expect(commits.at(-1)).toMatchObject({ inboxOffset: lastSeq, state: { batches: 10 } });

    await h.run();
    const expected = Array.from({ length: 10 }, (_, b) => [0, 1, 2].map((i) => `${b}.${i}`)).flat();
    expect(await h.state('sink/s')).toEqual({ got: expected });
    expect(h.backend.store.outboxSize()).toBe(0);
  });

  it('keeps a message whose sends cannot fit in one commit as a dead letter (MESSAGE_TOO_LARGE its cause), sending none of them', async () => {
    const h = setup({
      actors: [Fan, Sink],
      limits: { maxTransactionItems: 5, maxItemBytes: 1000 },
    });
    const fan = Fan.ref('f');
    await h.client.send(fan, 'fanout', { batch: 0, count: 2 });
    const { messageId } = await h.client.send(fan, 'fanout', { batch: 1, count: 40 });
    await h.client.send(fan, 'fanout', { batch: 2, count: 2 });
    await h.run();

    // Its sender is told DEAD_LETTERED, as of any kept message: a redrive may apply it later.
    // (The store's small limits keep the gist of the error, its cause's code with it.)
    const told = {
      code: ErrorCode.DEAD_LETTERED,
      message: expect.stringMatching(/produces more than one commit can hold/),
      details: { truncated: true, cause: { code: ErrorCode.MESSAGE_TOO_LARGE } },
    };
    expect(await h.client.outcome(messageId)).toMatchObject({ ok: false, error: told });
    expect(await h.state(fan.id)).toEqual({ batches: 2 });
    expect(await h.state('sink/s')).toEqual({ got: ['0.0', '0.1', '2.0', '2.1'] });
    expect(await h.backend.store.listDeadLetters(fan.id)).toMatchObject([
      { messageId, redrivable: true, error: told },
    ]);
  });

  it('keeps a message from another actor whose commit cannot fit, and applies it once when redriven to code that sends less', async () => {
    const Relay = actor({
      name: 'relay',
      state: z.object({}),
      initial: () => ({}),
      handlers: {
        go: {
          payload: z.object({ count: z.number().int() }),
          handle: (ctx, { count }) => ctx.send(Fan.ref('f'), 'fanout', { batch: 1, count }),
        },
      },
    });
    const h = setup({
      actors: [Relay, Fan, Sink],
      limits: { maxTransactionItems: 5, maxItemBytes: 1000 },
    });
    await h.client.send(Relay.ref('r'), 'go', { count: 40 });
    await h.run();
    // No one waits on the relayed message: a rejection would have lost it for good.
    expect(await h.state('fan/f')).toEqual({ batches: 0 });
    const [letter] = await h.backend.store.listDeadLetters('fan/f');
    expect(letter).toMatchObject({
      redrivable: true,
      error: {
        code: ErrorCode.DEAD_LETTERED,
        details: { cause: { code: ErrorCode.MESSAGE_TOO_LARGE } },
      },
    });

    // The fixed code sends at most three notes per fan-out.
    const Fixed = actor({
      ...Fan,
      handlers: {
        fanout: {
          payload: z.object({ batch: z.number(), count: z.number().int() }),
          handle: (ctx, { batch, count }) => {
            ctx.state.batches++;
            for (let i = 0; i < Math.min(count, 3); i++) {
              ctx.send(Sink.ref('s'), 'note', { batch, i });
            }
          },
        },
      },
    });
    const fixed = new Worker(
      createEngine({
        actors: [Relay, Fixed, Sink],
        store: h.backend.store,
        queue: h.backend.queue,
        clock: h.clock,
        logger: silentLogger,
      }),
    );
    await redriveDeadLetter(h.backend.store, h.backend.queue, 'fan/f', letter!.messageId);
    await runUntilIdle(fixed, h.backend, h.clock);
    expect(await h.state('fan/f')).toEqual({ batches: 1 });
    expect(await h.state('sink/s')).toEqual({ got: ['1.0', '1.1', '1.2'] });
    expect(await h.backend.store.listDeadLetters('fan/f')).toEqual([]);
  });

  it('refuses a send whose payload passes half the item limit, keeping the message of the handler that made it', async () => {
    const Big = actor({
      name: 'big',
      state: z.object({ sent: z.number() }),
      initial: () => ({ sent: 0 }),
      handlers: {
        send: {
          payload: z.object({ bytes: z.number() }),
          handle: (ctx, { bytes }) => {
            ctx.state.sent++;
            ctx.send(Notes.ref('n'), 'append', { text: 'z'.repeat(bytes) });
          },
        },
      },
    });
    const h = setup({ actors: [Big, Notes], limits: { maxItemBytes: 2000 } });
    const { messageId } = await h.client.send(Big.ref('b'), 'send', { bytes: 1200 });
    await h.client.send(Big.ref('b'), 'send', { bytes: 10 });
    await h.run();

    expect(await h.client.outcome(messageId)).toMatchObject({
      ok: false,
      error: {
        code: ErrorCode.DEAD_LETTERED,
        details: {
          cause: { code: ErrorCode.MESSAGE_TOO_LARGE, details: { to: 'notes/n', name: 'append' } },
        },
      },
    });
    expect(await h.backend.store.listDeadLetters('big/b')).toMatchObject([{ messageId }]);
    expect(await h.state('big/b')).toEqual({ sent: 1 });
    expect(await h.state('notes/n')).toEqual({ items: ['z'.repeat(10)] });
  });

  it("refuses a client's payload over half the item limit before enqueueing it, as a handler's send is: what a handler may take, it may send on, park or keep", async () => {
    const h = setup({ actors: [Notes], limits: { maxItemBytes: 2000 } });
    const notes = Notes.ref('n');
    const refused = await h.client.send(notes, 'append', { text: 'z'.repeat(1200) }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toMatchObject({
      code: ErrorCode.MESSAGE_TOO_LARGE,
      message: expect.stringMatching(
        /^payload of "append" to notes\/n is \d+ bytes; the limit is 1000: store large data elsewhere/,
      ),
      details: { to: 'notes/n', name: 'append', limit: 1000 },
    });
    expect(h.backend.queue.counts().total).toBe(0);
    await h.client.send(notes, 'append', { text: 'z'.repeat(900) });
    await h.run();
    expect(await h.state(notes.id)).toEqual({ items: ['z'.repeat(900)] });
  });

  it('answers the keyed retry of a message an earlier release took over the limit, and refuses a new one', async () => {
    const h = setup({ actors: [Notes], limits: { maxItemBytes: 2000 } });
    // An earlier release's door: the same store, which it read as taking up to 1 MB payloads.
    const store = h.backend.store;
    const earlier = new Client({
      actors: [Notes],
      store: new Proxy(store, {
        get: (target, prop) => {
          if (prop === 'limits') return { ...target.limits, maxItemBytes: 2_000_000 };
          const value = Reflect.get(target, prop, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      }),
      queue: h.backend.queue,
      clock: h.clock,
    }).asSystem();
    const notes = Notes.ref('n');
    const text = 'z'.repeat(1200);
    const first = await earlier.send(notes, 'append', { text }, { idempotencyKey: 'k1' });
    await h.run();
    // Retried through this release's door, across the deploy: the same message, answered.
    expect(await h.client.send(notes, 'append', { text }, { idempotencyKey: 'k1' })).toEqual(first);
    expect(await h.client.ask(notes, 'append', { text }, { idempotencyKey: 'k1' })).toBe(1);
    await h.run();
    expect(await h.state(notes.id)).toEqual({ items: [text] });
    // Another key, or the same key with another payload, is a new message: refused.
    for (const [key, body] of [
      ['k2', text],
      ['k1', `${text}!`],
    ] as const) {
      const refused = await h.client
        .send(notes, 'append', { text: body }, { idempotencyKey: key })
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(refused).toMatchObject({ code: ErrorCode.MESSAGE_TOO_LARGE });
    }
  });

  it('refuses a payload nested too deep for JSON to copy, saying so rather than what ran out of stack', async () => {
    const h = setup({ actors: [Notes] });
    let deep: unknown = 'bottom';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const refused = await h.client
      .send(Notes.ref('n'), 'append', { text: 'x', deep } as never)
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(refused).toMatchObject({
      code: ErrorCode.INVALID_PAYLOAD,
      message:
        'the payload of "append" to notes/n must be JSON, as it is stored: it nests too deeply',
    });
    expect(h.backend.queue.counts().total).toBe(0);
  });

  it('rejects a message whose reply passes the record limit, rather than blocking the actor', async () => {
    const h = setup({ actors: [Notes], limits: { maxItemBytes: 2000 } });
    const notes = Notes.ref('n');
    await h.client.send(notes, 'append', { text: 'a' });
    const { messageId } = await h.client.send(notes, 'echo', { bytes: 3000 });
    await h.client.send(notes, 'append', { text: 'b' });
    await h.run();

    expect(await h.client.outcome(messageId)).toMatchObject({
      ok: false,
      error: {
        code: ErrorCode.MESSAGE_TOO_LARGE,
        message: expect.stringContaining(`the reply to ${messageId}`),
      },
    });
    expect(await h.state(notes.id)).toEqual({ items: ['a', 'b'] });
    expect(h.backend.queue.counts()).toMatchObject({ total: 0, deadLetters: 0 });
    // Rejected, not kept: a redrive would only fail again.
    expect(await h.backend.store.listDeadLetters(notes.id)).toEqual([]);
  });

  it('keeps the gist of a rejection whose details pass the record limit, rather than blocking the actor', async () => {
    const h = setup({ actors: [Notes], limits: { maxItemBytes: 2000 } });
    const notes = Notes.ref('n');
    const { messageId } = await h.client.send(notes, 'refuse', { bytes: 3000 });
    await h.client.send(notes, 'append', { text: 'after' });
    await h.run();

    expect(await h.client.outcome(messageId)).toEqual({
      ok: false,
      error: { code: ErrorCode.REJECTED, message: 'refused', details: { truncated: true } },
    });
    expect(await h.state(notes.id)).toEqual({ items: ['after'] });
    expect(h.backend.queue.counts()).toMatchObject({ total: 0, deadLetters: 0 });
  });

  it('moves marks out in commits of their own first when a message needs more moved than its commit holds, and applies it', async () => {
    const Poker = actor({
      name: 'poker',
      state: z.object({}),
      initial: () => ({}),
      handlers: {
        poke: {
          payload: z.object({}),
          handle: (ctx) => ctx.send(Notes.ref('n'), 'append', { text: ctx.self.id }),
        },
      },
    });
    const limits = { maxTransactionItems: 4, maxItemBytes: 2000 };
    const turns: TurnStats[] = [];
    const h = setup({ actors: [Notes, Poker], limits, onTurn: (turn) => turns.push(turn) });
    const pokers = Array.from({ length: 12 }, (_, i) => `poker/p${i}`);
    for (const id of pokers) await h.client.send(Poker.ref(id.slice(6)), 'poke', {});
    await h.run();
    const before = (await h.record('notes/n'))!;
    expect(Object.keys(before.marks)).toHaveLength(12);

    // State that leaves room for four of the twelve marks: eight must move, and a commit with
    // the record and the outcome holds two.
    const mark = jsonSize(before.marks) / 12;
    const bytes = limits.maxItemBytes - jsonSize(before) + Math.ceil(8 * mark);
    const commits = commitsOf(h.backend, 'notes/n');
    const { messageId } = await h.client.send(Notes.ref('n'), 'pad', { bytes });
    await h.run();

    expect(await h.client.outcome(messageId)).toMatchObject({ ok: true });
    const padded = commits.at(-1)!;
    expect((padded.state as { items: string[] }).items).toHaveLength(13);
    expect(Object.keys(padded.marks).length).toBeLessThanOrEqual(4);
    // Before it, commits that only moved marks out: the state as it was, fewer marks each.
    const rooms = commits.slice(0, -1);
    expect(rooms.length).toBeGreaterThanOrEqual(2);
    // The turn counts them (its metrics, the simulation's totals).
    expect(turns.at(-1)).toMatchObject({
      actorId: 'notes/n',
      applied: 1,
      roomCommits: rooms.length,
    });
    for (const [i, room] of rooms.entries()) {
      expect(room.state).toEqual(before.state);
      expect(room.inboxOffset).toBe(before.inboxOffset);
      const listed = Object.keys((rooms[i - 1] ?? before).marks).length;
      expect(Object.keys(room.marks).length).toBeLessThan(listed);
    }
    // Every sender's mark is kept: in the record or moved out.
    const moved = pokers.filter((peer) => !(peer in padded.marks));
    const overflow = await h.backend.store.readOverflow(
      'notes/n',
      moved.map((peer) => ({ kind: 'sender' as const, peer })),
    );
    expect(overflow.map((m) => [m.peer, m.kind === 'page' ? m.mark : m.mark.seq]).sort()).toEqual(
      moved.map((peer) => [peer, 1]).sort(),
    );
    expect(await h.backend.store.listDeadLetters('notes/n')).toEqual([]);
  });

  it('moves channel marks out in commits of their own first when a message needs more moved than its commit holds', async () => {
    // The channels of an actor that sent to many: its counters per receiver, in its record.
    const Hub = actor({
      name: 'hub',
      state: z.object({ pad: z.string() }),
      initial: () => ({ pad: '' }),
      handlers: {
        spread: {
          payload: z.object({ count: z.number().int() }),
          handle: (ctx, { count }) => {
            for (let i = 0; i < count; i++) ctx.send(Notes.ref(`n${i}`), 'append', { text: 'x' });
          },
        },
        pad: {
          payload: z.object({ bytes: z.number().int() }),
          handle: (ctx, { bytes }) => {
            ctx.state.pad = 'x'.repeat(bytes);
          },
        },
      },
    });
    const limits = { maxTransactionItems: 4, maxItemBytes: 2000 };
    const h = setup({ actors: [Notes, Hub], limits });
    await h.client.send(Hub.ref('h'), 'spread', { count: 12 });
    await h.run();
    const before = (await h.record('hub/h'))!;
    expect(Object.keys(before.channels ?? {})).toHaveLength(12);

    // Room for four of the twelve channels: eight must move, two per commit.
    const channel = jsonSize(before.channels) / 12;
    const bytes = limits.maxItemBytes - jsonSize(before) + Math.ceil(8 * channel);
    const commits = commitsOf(h.backend, 'hub/h');
    const { messageId } = await h.client.send(Hub.ref('h'), 'pad', { bytes });
    await h.run();

    expect(await h.client.outcome(messageId)).toMatchObject({ ok: true });
    expect(commits.length).toBeGreaterThanOrEqual(3);
    expect(Object.keys(commits.at(-1)!.channels ?? {}).length).toBeLessThanOrEqual(4);
    expect(await h.backend.store.listDeadLetters('hub/h')).toEqual([]);
  });

  it('applies a message in one commit, moving no mark, when the marks the peer count asks to move crowd its commit', async () => {
    const Poker = actor({
      name: 'poker',
      state: z.object({}),
      initial: () => ({}),
      handlers: {
        poke: {
          payload: z.object({}),
          handle: (ctx) => ctx.send(Notes.ref('n'), 'append', { text: ctx.self.id }),
        },
      },
    });
    const limits = { maxTransactionItems: 6 };
    const h = setup({ actors: [Notes, Poker], limits });
    for (let i = 0; i < 9; i++) await h.client.send(Poker.ref(`p${i}`), 'poke', {});
    await h.run();
    expect(Object.keys((await h.record('notes/n'))!.marks)).toHaveLength(9);

    // Deployed again to list 2 peers: 7 marks would move, more than a commit with the record
    // and the outcome holds. The count limit gives slack: the message commits without moves.
    const turns: TurnStats[] = [];
    const worker = new Worker({
      actors: [Notes, Poker],
      store: h.backend.store,
      queue: h.backend.queue,
      clock: h.clock,
      logger: silentLogger,
      recordPeers: 2,
      onTurn: (turn) => turns.push(turn),
    });
    const commits = commitsOf(h.backend, 'notes/n');
    const { messageId } = await h.client.send(Notes.ref('n'), 'append', { text: 'late' });
    await runUntilIdle(worker, h.backend, h.clock);

    expect(await h.client.outcome(messageId)).toMatchObject({ ok: true, value: 10 });
    expect(turns).toMatchObject([{ actorId: 'notes/n', applied: 1, roomCommits: 0 }]);
    expect(commits).toHaveLength(1);
    expect(Object.keys(commits[0]!.marks)).toHaveLength(9);
  });

  it('never lets a record that fits before its commit outgrow the item limit when the commit appends its outcome page state', async () => {
    // A keyed message leaves its outcome in the actor's outcome page, whose state in the record
    // (page, bytes, times) the commit writes after the record was measured. Padded to every
    // size just under the limit, each message is applied or kept as a dead letter for
    // STATE_TOO_LARGE, and the actor goes on: no commit fails, nothing is retried.
    const limits = { maxItemBytes: 2000 };
    const probe = setup({ actors: [Notes], limits });
    await probe.client.send(Notes.ref('n'), 'append', { text: '' }, { idempotencyKey: 'k0' });
    await probe.run();
    const empty = jsonSize((await probe.record('notes/n'))!);
    for (let under = 0; under <= 120; under += 4) {
      const h = setup({ actors: [Notes], limits, maxAttempts: 2 });
      const notes = Notes.ref('n');
      await h.client.send(notes, 'append', { text: '' }, { idempotencyKey: 'k0' });
      await h.run();
      const bytes = limits.maxItemBytes - empty - under;
      const { messageId } = await h.client.send(notes, 'pad', { bytes }, { idempotencyKey: 'k1' });
      const after = await h.client.send(notes, 'echo', { bytes: 1 }, { idempotencyKey: 'k2' });
      await h.run();
      const outcome = await h.client.outcome(messageId);
      const letters = await h.backend.store.listDeadLetters(notes.id);
      if (outcome?.ok) expect(letters, `${under}`).toEqual([]);
      else {
        const cause = { code: ErrorCode.STATE_TOO_LARGE };
        expect(outcome?.error, `${under}`).toMatchObject({ details: { cause } });
        expect(letters, `${under}`).toMatchObject([{ messageId, attempts: 1 }]);
      }
      expect(await h.client.outcome(after.messageId), `${under}`).toEqual({ ok: true, value: 'y' });
      expect(h.backend.queue.counts()).toMatchObject({ total: 0, deadLetters: 0 });
    }
  });
});
