/**
 * A channel's bookkeeping over weeks: a sender forgets an idle channel after half the mark
 * retention, a receiver forgets an idle sender's mark after the whole of it, and a message may
 * wait in the queue's dead-letter queue longer than either (SQS restarts its retention on each
 * move). A copy of a message applied before the receiver forgot its mark must not be applied
 * again; a message sent before the sender forgot its channel, and redriven after, must not be
 * skipped as a duplicate.
 */
import { actor, silentLogger } from '@baton/core';
import { decodeEnvelope, type Queue, type QueueMessage } from '@baton/core/adapter';
import { Worker } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { runUntilIdle, setup } from './helpers.ts';

const DAY = 24 * 60 * 60 * 1000;

const Tally = actor({
  name: 'tally',
  state: z.object({ lines: z.array(z.string()) }),
  initial: () => ({ lines: [] as string[] }),
  handlers: {
    add: {
      payload: z.object({ line: z.string() }),
      handle: (ctx, { line }) => {
        ctx.state.lines.push(line);
      },
    },
  },
});

const Sender = actor({
  name: 'sender',
  state: z.object({}),
  initial: () => ({}),
  handlers: {
    emit: {
      payload: z.object({ line: z.string() }),
      handle: (ctx, { line }) => ctx.send(Tally.ref('t'), 'add', { line }),
    },
  },
});

const lineOf = (m: QueueMessage) =>
  (decodeEnvelope(m.body)?.payload as { line?: string } | undefined)?.line;

/**
 * The app on the default 28-day retention, whose inbox moves to `dlq` the messages `divert`
 * names: a copy too (`keep`: delivered as well), or the message alone.
 */
function app(divert: (line: string | undefined) => 'copy' | 'only' | undefined) {
  const actors = [Sender, Tally];
  const h = setup({ actors });
  const inner = h.backend.queue;
  const dlq: QueueMessage[] = [];
  const queue: Queue = {
    send: async (messages) => {
      const kept = messages.filter((m) => {
        const how = divert(lineOf(m));
        if (how !== undefined) dlq.push(m);
        return how !== 'only';
      });
      if (kept.length > 0) await inner.send(kept);
    },
    receive: (o) => inner.receive(o),
    ack: (r) => inner.ack(r),
    release: (r, d) => inner.release(r, d),
  };
  const worker = new Worker({
    actors,
    store: h.backend.store,
    queue,
    clock: h.clock,
    logger: silentLogger,
  });
  return {
    h,
    dlq,
    run: () => runUntilIdle(worker, h.backend, h.clock),
    emit: (line: string) => h.client.send(Sender.ref('s'), 'emit', { line }),
    /** The operator redrives the dead-letter queue's messages, as the CLI does. */
    redrive: (messages: readonly QueueMessage[]) =>
      inner.send(messages.map((m) => ({ ...m, dedupeId: `redrive-${m.dedupeId}` }))),
    tally: async () => {
      const lines = ((await h.state('tally/t')) as { lines: string[] }).lines;
      const letters = await h.backend.store.listDeadLetters('tally/t');
      return { lines, letters: letters.map((l) => l.envelope.payload) };
    },
  };
}

describe('a channel over weeks', () => {
  it('applies no copy twice of a message applied before the receiver forgot its mark, however often it is redriven', async () => {
    // 'a' is applied, and a copy of it (committed, never acked) moves to the dead-letter queue;
    // 'b' moves there undelivered.
    const t = app((line) => (line === 'a' ? 'copy' : line === 'b' ? 'only' : undefined));
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
    const t = app((line) => (line === 'a2' ? 'only' : undefined));
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
});
