import { actor, type Logger, silentLogger } from '@baton/core';
import { decodeEnvelope } from '@baton/core/adapter';
import { createEngine, runTurn, Sweeper, Worker } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { type Harness, keepingDrainedSends, setup } from './helpers.ts';

const Sink = actor({
  name: 'sink',
  state: z.object({ got: z.array(z.number()) }),
  initial: () => ({ got: [] as number[] }),
  handlers: {
    note: {
      payload: z.object({ n: z.number() }),
      handle: (ctx, { n }) => {
        ctx.state.got.push(n);
      },
    },
  },
});

const Sender = actor({
  name: 'sender',
  state: z.object({}),
  initial: () => ({}),
  handlers: {
    burst: {
      payload: z.object({ from: z.number(), count: z.number() }),
      handle: (ctx, { from, count }) => {
        for (let n = from; n < from + count; n++) ctx.send(Sink.ref('s'), 'note', { n });
      },
    },
  },
});

/** Commits a turn for the message in the inbox without draining: a worker that crashed. */
async function commitWithoutDrain(h: Harness): Promise<void> {
  const [message] = await h.backend.queue.receive({ max: 1, visibilityTimeoutMs: 30_000 });
  await runTurn(h.engine, message!.group, [
    { envelope: decodeEnvelope(message!.body)!, queueSeq: message!.seq },
  ]);
  // The message was acked (e.g. it went to the dead-letter queue): nothing will revisit the actor.
  await h.backend.queue.ack([message!.receipt]);
}

describe('Sweeper', () => {
  it('drains an outbox left behind once it is older than minAgeMs, and delivers it once', async () => {
    const h = setup({ actors: [Sink, Sender] });
    await h.client.send(Sender.ref('a'), 'burst', { from: 1, count: 3 });
    await commitWithoutDrain(h);
    expect(h.backend.store.outboxSize()).toBe(1);
    const sweeper = new Sweeper(h.engine, { minAgeMs: 60_000 });

    h.clock.advance(59_999);
    expect(await sweeper.sweep()).toEqual({
      drained: 0,
      sent: 0,
      failed: 0,
      timersFired: 0,
      timersArmed: 0,
      lagMs: 0,
    });
    expect(h.backend.queue.counts().total).toBe(0);

    h.clock.advance(2);
    expect(await sweeper.sweep()).toEqual({
      drained: 1,
      sent: 3,
      failed: 0,
      timersFired: 0,
      timersArmed: 0,
      lagMs: 60_001,
    });
    expect(h.backend.store.outboxSize()).toBe(0);
    // The record held the sends; it holds them no longer.
    expect(await h.record('sender/a')).not.toHaveProperty('outbox');
    expect(await sweeper.sweep()).toEqual({
      drained: 0,
      sent: 0,
      failed: 0,
      timersFired: 0,
      timersArmed: 0,
      lagMs: 0,
    });

    await h.run();
    expect(await h.state('sink/s')).toEqual({ got: [1, 2, 3] });
    // The worker's warm record is stale now: its next turn reloads, and sends nothing twice.
    await h.client.send(Sender.ref('a'), 'burst', { from: 4, count: 1 });
    await h.run();
    expect(await h.state('sink/s')).toEqual({ got: [1, 2, 3, 4] });
  });

  it('retires the sends an idle actor’s record still holds after its turn drained them', async () => {
    const h = setup({ actors: [Sink, Sender] });
    // A worker on a store that keeps drained sends in the record (as DynamoDB's does).
    const forgetful = { ...h.engine, store: keepingDrainedSends(h.backend.store) };
    const worker = new Worker(forgetful);
    await h.client.send(Sender.ref('a'), 'burst', { from: 1, count: 2 });
    while ((await worker.poll()) > 0);
    await h.run();
    expect(await h.state('sink/s')).toEqual({ got: [1, 2] });
    expect((await h.record('sender/a'))?.outbox).toHaveLength(1);
    const { life } = (await h.record('sender/a'))!;
    await h.backend.store.retireHeldOutbox('sender/a', 0, life); // not at that version: nothing
    expect((await h.record('sender/a'))?.ver).toBe(1);

    // A sweep 6 minutes after the drain: its lag says so, past the queue's 5-minute dedupe window.
    h.clock.advance(6 * 60_000);
    expect(await new Sweeper(forgetful).sweep()).toMatchObject({
      drained: 1,
      sent: 2,
      lagMs: 6 * 60_000,
    });
    expect(await h.record('sender/a')).toMatchObject({ ver: 2 });
    expect(await h.record('sender/a')).not.toHaveProperty('outbox');
    // The copies it sent again are dropped as duplicates.
    await h.run();
    expect(await h.state('sink/s')).toEqual({ got: [1, 2] });
  });

  it('drains the left-behind turns of several actors, each actor in send order', async () => {
    const h = setup({ actors: [Sink, Sender] });
    await h.client.send(Sender.ref('a'), 'burst', { from: 1, count: 2 });
    await commitWithoutDrain(h);
    await h.client.send(Sender.ref('b'), 'burst', { from: 100, count: 1 });
    await commitWithoutDrain(h);
    await h.client.send(Sender.ref('a'), 'burst', { from: 3, count: 2 });
    await commitWithoutDrain(h);
    // The second turn of sender/a sent the first one's before it committed over its record.
    expect(h.backend.store.outboxSize()).toBe(2);

    h.clock.advance(120_000);
    expect(await new Sweeper(h.engine).sweep()).toEqual({
      drained: 2,
      sent: 3,
      failed: 0,
      timersFired: 0,
      timersArmed: 0,
      lagMs: 120_000,
    });
    await h.run();
    const got = ((await h.state('sink/s')) as { got: number[] }).got;
    expect(got.filter((n) => n < 100)).toEqual([1, 2, 3, 4]);
    expect(got.filter((n) => n >= 100)).toEqual([100]);
  });

  it('logs an error for an outbox older than alarmAgeMs', async () => {
    const h = setup({ actors: [Sink, Sender] });
    const errors: Array<Record<string, unknown> | undefined> = [];
    const logger: Logger = { ...silentLogger, error: (_message, fields) => errors.push(fields) };
    const engine = createEngine({
      actors: [Sink, Sender],
      store: h.backend.store,
      queue: h.backend.queue,
      clock: h.clock,
      logger,
    });
    // Make the drain keep failing, as if the target queue were unreachable.
    h.backend.queue.send = async () => {
      throw new Error('queue unreachable');
    };
    await engine.store.commit({
      expectedVer: 0,
      record: { id: 'sender/a', ver: 1, state: {}, inboxOffset: '0', marks: {}, sentSeq: 1 },
      outbox: [
        {
          actorId: 'sender/a',
          seq: 1,
          createdAt: h.clock.now(),
          envelopes: [
            {
              id: 'sender/a:1',
              from: 'sender/a',
              seq: 1,
              to: 'sink/s',
              name: 'note',
              payload: { n: 1 },
              sentAt: h.clock.now(),
            },
          ],
        },
      ],
      idempotency: [],
    });
    const sweeper = new Sweeper(engine, { minAgeMs: 1_000, alarmAgeMs: 10_000 });

    h.clock.advance(5_000);
    expect(await sweeper.sweep()).toEqual({
      drained: 0,
      sent: 0,
      failed: 1,
      timersFired: 0,
      timersArmed: 0,
      lagMs: 0,
    });
    expect(errors).toEqual([]);

    h.clock.advance(5_001);
    expect(await sweeper.sweep()).toEqual({
      drained: 0,
      sent: 0,
      failed: 1,
      timersFired: 0,
      timersArmed: 0,
      lagMs: 0,
    });
    expect(errors).toEqual([{ actor: 'sender/a', alarmAgeMs: 10_000 }]);
    expect(h.backend.store.outboxSize()).toBe(1);
  });
});
