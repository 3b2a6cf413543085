import { actor, RetryableError } from '@baton/core';
import { decodeEnvelope, type Envelope, encodeEnvelope } from '@baton/core/adapter';
import { runTurn } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { sentId, setup } from './helpers.ts';

function model() {
  const runs = { burst: 0 };
  let failFirstBurst = false;

  const Sink = actor({
    name: 'sink',
    state: z.object({ got: z.record(z.string(), z.array(z.number())) }),
    initial: () => ({ got: {} as Record<string, number[]> }),
    handlers: {
      note: {
        payload: z.object({ from: z.string(), n: z.number() }),
        handle: (ctx, { from, n }) => {
          ctx.state.got[from] = [...(ctx.state.got[from] ?? []), n];
        },
      },
    },
  });

  const Sender = actor({
    name: 'sender',
    state: z.object({ sent: z.number() }),
    initial: () => ({ sent: 0 }),
    handlers: {
      /** Sends `count` numbered notes to the sink. */
      burst: {
        payload: z.object({ count: z.number().int() }),
        handle: (ctx, { count }) => {
          runs.burst++;
          for (let i = 0; i < count; i++) {
            ctx.state.sent++;
            ctx.send(Sink.ref('s'), 'note', { from: ctx.self.key, n: ctx.state.sent });
          }
          if (failFirstBurst) {
            failFirstBurst = false;
            throw new RetryableError('failed after sending');
          }
        },
      },
    },
  });

  return {
    Sink,
    Sender,
    runs,
    failFirstBurst: () => {
      failFirstBurst = true;
    },
  };
}

const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('actor-to-actor messages', () => {
  it('are delivered exactly once and in send order on each channel', async () => {
    const { Sink, Sender } = model();
    const h = setup({ actors: [Sink, Sender], batchSize: 4 });
    for (let round = 0; round < 4; round++) {
      for (const key of ['a', 'b', 'c']) {
        await h.client.send(Sender.ref(key), 'burst', { count: round + 1 });
      }
    }
    await h.run();

    expect(await h.state('sink/s')).toEqual({
      got: { a: range(1, 10), b: range(1, 10), c: range(1, 10) },
    });
    expect(h.backend.store.outboxSize()).toBe(0);
  });

  it('are not delivered from a handler run that failed, only from the run that committed', async () => {
    const { Sink, Sender, runs, failFirstBurst } = model();
    const h = setup({ actors: [Sink, Sender] });
    failFirstBurst();
    await h.client.send(Sender.ref('a'), 'burst', { count: 2 });
    await h.run();

    expect(runs.burst).toBe(2);
    expect(await h.state('sink/s')).toEqual({ got: { a: [1, 2] } });
  });

  it('skips a message already applied after a crash between commit and ack, and drains its outbox', async () => {
    const { Sink, Sender, runs } = model();
    const h = setup({ actors: [Sink, Sender] });
    await h.client.send(Sender.ref('a'), 'burst', { count: 3 });
    // A worker receives the message and commits its turn, then crashes before drain and ack.
    const received = await h.backend.queue.receive({ max: 10, visibilityTimeoutMs: 30_000 });
    await runTurn(
      h.engine,
      'sender/a',
      received.map((m) => ({ envelope: decodeEnvelope(m.body)!, queueSeq: m.seq })),
    );
    h.engine.cache.clear();
    expect(h.backend.store.outboxSize()).toBe(1);
    expect(await h.state('sink/s')).toBeUndefined();

    // The message comes back after its visibility timeout.
    await h.run();

    expect(runs.burst).toBe(1);
    expect(await h.state('sender/a')).toEqual({ sent: 3 });
    expect(await h.state('sink/s')).toEqual({ got: { a: [1, 2, 3] } });
    expect(h.backend.store.outboxSize()).toBe(0);
  });

  it('skips copies re-sent by a drain that crashed before deleting its outbox, after the dedupe window', async () => {
    const { Sink, Sender } = model();
    const h = setup({ actors: [Sink, Sender] });
    await h.client.send(Sender.ref('a'), 'burst', { count: 2 });
    const received = await h.backend.queue.receive({ max: 10, visibilityTimeoutMs: 30_000 });
    await runTurn(
      h.engine,
      'sender/a',
      received.map((m) => ({ envelope: decodeEnvelope(m.body)!, queueSeq: m.seq })),
    );
    // The drain sends the outbox, then the worker crashes before deleting it and acking.
    const outbox = await h.backend.store.readOutbox('sender/a');
    await h.backend.queue.send(
      outbox.flatMap((item) =>
        item.envelopes.map((e) => ({ group: e.to, dedupeId: e.id, body: encodeEnvelope(e) })),
      ),
    );
    const sinkCommits: unknown[] = [];
    h.backend.feed.subscribe((r) => {
      if (r.id === 'sink/s') sinkCommits.push(r.state);
    });
    const sendsToSink: string[] = [];
    const send = h.backend.queue.send.bind(h.backend.queue);
    h.backend.queue.send = (messages) => {
      for (const m of messages) if (m.group === 'sink/s') sendsToSink.push(m.dedupeId);
      return send(messages);
    };
    // Long enough for the queue to forget the dedupe ids: only the sink's marks catch the copies.
    h.clock.advance(6 * 60_000);
    await h.run();

    // The redelivered message drained the outbox again: the sink was sent both notes twice.
    const id = (seq: number) => sentId(h, 'sender/a', seq);
    expect(sendsToSink).toEqual([await id(1), await id(2)]);

    expect(await h.state('sink/s')).toEqual({ got: { a: [1, 2] } });
    expect(sinkCommits).toEqual([{ got: { a: [1, 2] } }]);
    expect(h.backend.store.outboxSize()).toBe(0);
    expect(h.backend.queue.counts().total).toBe(0);
  });

  it('skips an already-processed actor message re-enqueued under a fresh dedupe id', async () => {
    const { Sink, Sender } = model();
    const h = setup({ actors: [Sink, Sender] });
    await h.client.send(Sender.ref('a'), 'burst', { count: 2 });
    await h.run();
    const before = await h.record('sink/s');
    expect(before).toMatchObject({ ver: 1, marks: { 'sender/a': { seq: 2 } } });

    const replay: Envelope = {
      id: 'sender/a:2',
      from: 'sender/a',
      seq: 2,
      to: 'sink/s',
      name: 'note',
      payload: { from: 'a', n: 2 },
      // Recent: a copy far older than the mark retention is kept as too old to tell instead.
      sentAt: h.clock.now(),
    };
    await h.backend.queue.send([
      { group: 'sink/s', dedupeId: 'a-fresh-id', body: encodeEnvelope(replay) },
    ]);
    await h.run();

    expect(await h.record('sink/s')).toEqual(before);
    expect(h.backend.queue.counts()).toMatchObject({ total: 0, deadLetters: 0 });

    // The next real message from that sender is still applied.
    await h.client.send(Sender.ref('a'), 'burst', { count: 1 });
    await h.run();
    expect(await h.state('sink/s')).toEqual({ got: { a: [1, 2, 3] } });
  });

  it('carry their payload as it was when sent, whatever the handler changes afterwards', async () => {
    const { Sink } = model();
    const Relay = actor({
      name: 'relay',
      state: z.object({ n: z.number() }),
      initial: () => ({ n: 0 }),
      handlers: {
        go: {
          payload: z.object({}),
          handle: (ctx) => {
            const note = { from: 'relay', n: 1 };
            ctx.send(Sink.ref('s'), 'note', note);
            note.n = 2;
            ctx.send(Sink.ref('s'), 'note', note);
            note.n = 3;
          },
        },
      },
    });
    const h = setup({ actors: [Sink, Relay] });
    await h.client.send(Relay.ref('r'), 'go', {});
    await h.run();

    expect(await h.state('sink/s')).toEqual({ got: { relay: [1, 2] } });
  });
});
