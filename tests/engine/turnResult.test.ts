/**
 * What `runTurn` tells its caller, which acks, drains and arms from it: how many of the batch's
 * messages are done (a resumed actor's parked messages are not the batch's), what the commits
 * sent and scheduled, the sends left to drain, and why the batch stopped.
 */
import { actor, ErrorCode, RetryableError } from '@baton/core';
import { decodeEnvelope, type Envelope, INGRESS, ingressMessageId } from '@baton/core/adapter';
import { type Inbound, pauseActor, resumeActor, runTurn, timerFire } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { START, setup } from './helpers.ts';

const desk = { busy: true };

const Desk = actor({
  name: 'desk',
  state: z.object({ done: z.array(z.string()) }),
  initial: () => ({ done: [] as string[] }),
  handlers: {
    work: {
      payload: z.object({ task: z.string() }),
      handle: (ctx, { task }) => {
        ctx.state.done.push(task);
      },
    },
    /** Hands `count` tasks on to the desk `to`. */
    delegate: {
      payload: z.object({ to: z.string(), count: z.number().int() }),
      handle: (ctx, { to, count }) => {
        for (let i = 0; i < count; i++) ctx.send(Desk.ref(to), 'work', { task: `t${i}` });
      },
    },
    /** Schedules `work` in `inMs`, or `busy` when asked (a fire that fails while the desk is). */
    remind: {
      payload: z.object({ inMs: z.number(), busy: z.boolean().optional() }),
      handle: (ctx, { inMs, busy }) => {
        if (busy) ctx.schedule(inMs, 'busy', {}, { id: 'reminder' });
        else ctx.schedule(inMs, 'work', { task: 'reminded' }, { id: 'reminder' });
      },
    },
    /** Fails retryably while `desk.busy`: the batch stops before it. */
    busy: {
      payload: z.object({}),
      handle: (ctx) => {
        if (desk.busy) throw new RetryableError('busy, try later');
        ctx.state.done.push('not busy');
      },
    },
  },
});

let seq = 0;
/** A client's message to `desk/<key>`, as the worker hands it to `runTurn`. */
function inbound(key: string, name: string, payload: unknown): Inbound {
  seq++;
  const to = `desk/${key}`;
  const envelope: Envelope = {
    id: ingressMessageId(to, `m${seq}`),
    from: INGRESS,
    seq: 0,
    to,
    name,
    payload,
    sentAt: START,
  };
  return { envelope, queueSeq: String(seq), receiveCount: 1 };
}

const done = async (h: ReturnType<typeof setup>, id: string) =>
  ((await h.state(id)) as { done: string[] } | undefined)?.done;

describe('a turn’s result', () => {
  it('counts the sends and timers of its commits, leaves their sends to drain, and stops at a retryable failure', async () => {
    const h = setup({ actors: [Desk] });
    const result = await runTurn(h.engine, 'desk/a', [
      inbound('a', 'delegate', { to: 'b', count: 2 }),
      inbound('a', 'remind', { inMs: 5_000 }),
      inbound('a', 'work', { task: 'x' }),
      inbound('a', 'busy', {}),
      inbound('a', 'work', { task: 'y' }),
    ]);

    expect(result).toMatchObject({
      done: 3,
      sent: 2,
      ver: 1,
      retry: { code: ErrorCode.RETRYABLE, message: 'busy, try later' },
      counts: { applied: 3, rejected: 0, deadLettered: 0, parked: 0, skipped: 0 },
    });
    expect(result.timers).toEqual([
      expect.objectContaining({ id: 'reminder', at: START + 5_000, name: 'work' }),
    ]);
    // The commit's sends are the caller's to drain before it acks.
    expect(result.undrained).toMatchObject({ actorId: 'desk/a', ver: 1 });
    expect(await done(h, 'desk/a')).toEqual(['x']);
  });

  it('has nothing to drain or arm after a turn that sent and scheduled nothing', async () => {
    const h = setup({ actors: [Desk] });
    const result = await runTurn(h.engine, 'desk/a', [inbound('a', 'work', { task: 'x' })]);
    expect(result).toMatchObject({ done: 1, sent: 0, ver: 1, timers: [] });
    expect(result).not.toHaveProperty('undrained');
    expect(result).not.toHaveProperty('retry');
  });

  it('arms no timer whose fire it dead-lettered: that fire waits for a redrive', async () => {
    const h = setup({ actors: [Desk], maxAttempts: 1 });
    const scheduled = await runTurn(h.engine, 'desk/a', [
      inbound('a', 'remind', { inMs: 0, busy: true }),
    ]);
    const [timer] = scheduled.timers;
    expect(timer).toMatchObject({ id: 'reminder', name: 'busy' });
    const fire = decodeEnvelope(timerFire(timer!).body)!;
    const wasBusy = desk.busy;
    desk.busy = true;
    try {
      const result = await runTurn(
        h.engine,
        'desk/a',
        [{ envelope: fire, queueSeq: String(++seq), receiveCount: 1 }],
        { drainedAt: { ver: scheduled.ver, life: scheduled.life } },
      );
      // Dead-lettered for its failures, not its state's size.
      expect(result).toMatchObject({
        done: 1,
        counts: { deadLettered: 1, stateTooLarge: 0 },
        timers: [],
      });
    } finally {
      desk.busy = wasBusy;
    }
    expect(await h.backend.store.listTimers('desk/a')).toMatchObject([
      { id: 'reminder', deadLettered: true },
    ]);
  });

  it('counts a resumed actor’s parked messages as applied but not as done: only the batch’s are acked', async () => {
    const h = setup({ actors: [Desk] });
    await pauseActor(h.backend.store, h.backend.queue, 'desk/p', { by: 'test' });
    const parked = await runTurn(h.engine, 'desk/p', [
      inbound('p', 'work', { task: 'p1' }),
      inbound('p', 'work', { task: 'p2' }),
    ]);
    expect(parked).toMatchObject({ done: 2, counts: { parked: 2, applied: 0 } });
    expect((await h.record('desk/p'))?.parked).toBe(2);

    await resumeActor(h.backend.store, h.backend.queue, 'desk/p', { by: 'test' });
    const resumed = await runTurn(h.engine, 'desk/p', [
      inbound('p', 'work', { task: 'b1' }),
      inbound('p', 'busy', {}),
    ]);
    // Two parked messages and b1 applied; of the batch, only b1 is done: `busy` is retried.
    expect(resumed).toMatchObject({
      done: 1,
      counts: { applied: 3 },
      retry: { code: 'RETRYABLE' },
    });
    expect(await done(h, 'desk/p')).toEqual(['p1', 'p2', 'b1']);
    const record = await h.record('desk/p');
    expect(record?.parked).toBeUndefined();
    expect(await h.backend.store.listDeadLetters('desk/p')).toEqual([]);
  });

  it('leaves a resumed actor’s record counting no parked message once its one parked message is applied', async () => {
    const h = setup({ actors: [Desk] });
    await pauseActor(h.backend.store, h.backend.queue, 'desk/q', { by: 'test' });
    await runTurn(h.engine, 'desk/q', [inbound('q', 'work', { task: 'q1' })]);
    expect((await h.record('desk/q'))?.parked).toBe(1);
    await resumeActor(h.backend.store, h.backend.queue, 'desk/q', { by: 'test' });
    const resumed = await runTurn(h.engine, 'desk/q', [inbound('q', 'work', { task: 'q2' })]);
    expect(resumed).toMatchObject({ done: 1, counts: { applied: 2 } });
    expect(await done(h, 'desk/q')).toEqual(['q1', 'q2']);
    expect((await h.record('desk/q'))?.parked).toBeUndefined();
  });

  it('keeps counting the parked messages a resumed actor has not applied yet when its turn stops early', async () => {
    const h = setup({ actors: [Desk] });
    desk.busy = true;
    await pauseActor(h.backend.store, h.backend.queue, 'desk/r', { by: 'test' });
    await runTurn(h.engine, 'desk/r', [
      inbound('r', 'work', { task: 'r1' }),
      inbound('r', 'busy', {}),
    ]);
    await resumeActor(h.backend.store, h.backend.queue, 'desk/r', { by: 'test' });
    const stopped = await runTurn(h.engine, 'desk/r', [inbound('r', 'work', { task: 'r2' })]);
    expect(stopped).toMatchObject({
      done: 0,
      retry: { code: 'RETRYABLE' },
      counts: { applied: 1 },
    });
    expect((await h.record('desk/r'))?.parked).toBeGreaterThan(0);

    desk.busy = false;
    const next = await runTurn(h.engine, 'desk/r', [inbound('r', 'work', { task: 'r3' })]);
    expect(next).toMatchObject({ done: 1, counts: { applied: 2 } });
    expect(await done(h, 'desk/r')).toEqual(['r1', 'not busy', 'r3']);
    expect((await h.record('desk/r'))?.parked).toBeUndefined();
  });

  it('skips a second copy of a message a paused actor parked already', async () => {
    const h = setup({ actors: [Desk] });
    await pauseActor(h.backend.store, h.backend.queue, 'desk/s', { by: 'test' });
    const message = inbound('s', 'work', { task: 's1' });
    await runTurn(h.engine, 'desk/s', [message]);
    const copy = await runTurn(h.engine, 'desk/s', [{ ...message, queueSeq: String(++seq) }]);
    expect(copy).toMatchObject({ done: 1, counts: { skipped: 1, parked: 0 } });
    expect((await h.record('desk/s'))?.parked).toBe(1);
    expect(await h.backend.store.listDeadLetters('desk/s')).toHaveLength(1);
  });
});
