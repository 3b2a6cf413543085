/**
 * A receiver's mark for a sender is gone before the sender's next life counts its `seq` from 1
 * again: a halted record expires twice the mark retention after its last commit, and a mark
 * lives a retention from its time, which a copy applied late (a missing message redriven from
 * the queue's dead-letter queue, however old) moves to at most a retention after its send. Two
 * such copies, redriven 9 and 18 days after a 10-day retention began, would otherwise carry the
 * mark past the sender's expiry, and the new life's first messages would be skipped, also on a
 * worker whose clock is behind.
 */
import { actor, silentLogger } from '@baton/core';
import type { Clock } from '@baton/core/adapter';
import { decodeEnvelope, type Queue, type QueueMessage } from '@baton/core/adapter';
import { Worker } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { runUntilIdle, setup } from '../engine/helpers.ts';

const DAY = 24 * 60 * 60 * 1000;
const RETENTION = 10 * DAY;

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
    end: { payload: z.object({}), handle: (ctx) => ctx.halt() },
  },
});

describe("a receiver's mark renewed by late copies of missing messages", () => {
  it("never outlives the sender's record, so the sender's next life is not skipped", async () => {
    const actors = [Sender, Tally];
    const h = setup({ actors });
    const inner = h.backend.queue;
    // What the inbox gives up on (a worker that timed out on it, again and again) goes to the
    // queue's dead-letter queue: here, the old life's messages 'old2' and 'old4'.
    const dlq: QueueMessage[] = [];
    const queue: Queue = {
      send: async (messages) => {
        const kept = messages.filter((m) => {
          const line = (decodeEnvelope(m.body)?.payload as { line?: string })?.line;
          if (line === 'old2' || line === 'old4') {
            dlq.push(m);
            return false;
          }
          return true;
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
      markRetentionMs: RETENTION,
    });
    const run = () => runUntilIdle(worker, h.backend, h.clock);
    const s = Sender.ref('s');
    for (const n of [1, 2, 3, 4, 5]) {
      await h.client.send(s, 'emit', { line: `old${n}` });
      await run();
    }
    await h.client.send(s, 'end', {});
    await run();
    expect(dlq).toHaveLength(2);
    const expiresAt = (await h.record(s.id))!.expiresAt!;

    // The operator redrives the dead-letter queue: 'old2' after 9 days, 'old4' after 18 (it went
    // back to the dead-letter queue once more in between). Each is a missing message: applied.
    h.clock.advance(9 * DAY);
    await inner.send([{ ...dlq[0]!, dedupeId: 'redrive-1' }]);
    await run();
    h.clock.advance(9 * DAY);
    await inner.send([{ ...dlq[1]!, dedupeId: 'redrive-2' }]);
    await run();

    // The sender's record expires (twice the retention after its halt); a new life begins.
    h.clock.set(expiresAt + 60_000);
    h.backend.store.purgeExpired();
    expect(await h.record(s.id)).toBeUndefined();
    await h.client.send(s, 'emit', { line: 'new1' });
    await h.client.send(s, 'emit', { line: 'new2' });
    // The worker that runs the new life's first turns has a clock two minutes behind the one
    // that halted the old life: the mark's time leaves clocks a margin.
    const behind: Clock = { now: () => h.clock.now() - 120_000 };
    const lagging = new Worker({
      actors,
      store: h.backend.store,
      queue,
      clock: behind,
      logger: silentLogger,
      markRetentionMs: RETENTION,
    });
    await runUntilIdle(lagging, h.backend, h.clock);

    const lines = ((await h.state('tally/t')) as { lines: string[] }).lines;
    expect(lines).toEqual(['old1', 'old3', 'old5', 'old2', 'old4', 'new1', 'new2']);
  });
});
