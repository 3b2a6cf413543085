/**
 * A timer's fire (or an ask's reply) parked at a paused actor keeps the rules it has unparked:
 * applied on resume only while its timer is stored for it still, so a cancel, a new scheduling
 * of its id or a halt parked before it means it never runs — as in one batch without a pause,
 * and as for a dead-lettered fire's redrive.
 */
import { type AskReply, actor } from '@baton/core';
import {
  cancelTimer,
  fireDueTimers,
  pauseActor,
  redriveDeadLetter,
  resumeActor,
} from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { type Harness, setup } from './helpers.ts';

const DAY = 86_400_000;

function alarmModel() {
  const log: string[] = [];
  const Sink = actor({
    name: 'sink',
    state: z.object({ n: z.number() }),
    initial: () => ({ n: 0 }),
    handlers: {
      echo: {
        payload: z.object({ tag: z.string() }),
        handle: (ctx, { tag }) => {
          log.push(`sink:${tag}`);
          ctx.state.n++;
          return tag;
        },
      },
    },
  });
  const Alarm = actor({
    name: 'alarm',
    state: z.object({ rang: z.array(z.string()) }),
    initial: () => ({ rang: [] as string[] }),
    handlers: {
      arm: {
        payload: z.object({ tag: z.string(), inMs: z.number() }),
        handle: (ctx, { tag, inMs }) => {
          ctx.schedule(inMs, 'ring', { tag }, { id: 'the-alarm' });
        },
      },
      disarm: {
        payload: z.object({}),
        handle: (ctx) => {
          log.push('disarm');
          ctx.cancel('the-alarm');
        },
      },
      ring: {
        payload: z.object({ tag: z.string() }),
        handle: (ctx, { tag }) => {
          log.push(`ring:${tag}`);
          ctx.state.rang.push(tag);
        },
      },
      askSink: {
        payload: z.object({ tag: z.string() }),
        handle: (ctx, { tag }) => {
          ctx.ask(Sink.ref('s'), 'echo', { tag }, { onReply: 'replied', context: { tag } });
        },
      },
      replied: {
        payload: z.custom<AskReply<string, { tag: string }>>(),
        handle: (ctx, reply) => {
          log.push(`replied:${reply.context.tag}`);
          ctx.state.rang.push(`reply-${reply.context.tag}`);
        },
      },
      halt: {
        payload: z.object({}),
        handle: (ctx) => {
          log.push('halt');
          ctx.halt();
        },
      },
    },
  });
  return { Sink, Alarm, log };
}

type AlarmRef = ReturnType<ReturnType<typeof alarmModel>['Alarm']['ref']>;

const pause = (h: Harness, id: string) =>
  pauseActor(h.backend.store, h.backend.queue, id, { by: 'ops', now: h.clock.now() });

/** The names of the messages parked at `id`, in the order they arrived. */
async function parkedNames(h: Harness, id: string): Promise<string[]> {
  const letters = await h.backend.store.listDeadLetters(id);
  return letters
    .filter((letter) => letter.parked !== undefined)
    .sort((a, b) => a.parked! - b.parked!)
    .map((letter) => letter.envelope.name);
}

/** Resumes `id`, runs its parked messages, then lets any timer left fire. */
async function resumeAndSettle(h: Harness, id: string): Promise<void> {
  await resumeActor(h.backend.store, h.backend.queue, id, { by: 'ops', now: h.clock.now() });
  await h.run();
  h.clock.advance(2 * DAY);
  await fireDueTimers(h.engine, h.clock.now());
  await h.run();
  expect(await parkedNames(h, id)).toEqual([]);
}

/**
 * An alarm armed as `tag`, its actor paused, then `before` (what is parked ahead of the fire)
 * and the fire, parked behind it.
 */
async function fireParkedBehind(
  tag: string,
  before?: (h: Harness, a: AlarmRef) => Promise<unknown>,
) {
  const { Alarm, Sink, log } = alarmModel();
  const h = setup({ actors: [Alarm, Sink] });
  await h.client.send(Alarm.ref('a'), 'arm', { tag, inMs: 10_000 });
  await h.run();
  await pause(h, 'alarm/a');
  await before?.(h, Alarm.ref('a'));
  h.clock.advance(10_000);
  await fireDueTimers(h.engine, h.clock.now());
  await h.run();
  return { h, log };
}

describe('a timer’s fire parked at a paused actor, behind a message parked before it', () => {
  it('never runs once a cancel parked before it applies', async () => {
    const { h, log } = await fireParkedBehind('x', (h, a) => h.client.send(a, 'disarm', {}));
    expect(await parkedNames(h, 'alarm/a')).toEqual(['disarm', 'ring']);

    await resumeAndSettle(h, 'alarm/a');
    expect(log).toEqual(['disarm']);
    expect(await h.state('alarm/a')).toEqual({ rang: [] });
    expect(await h.backend.store.listTimers('alarm/a')).toEqual([]);
  });

  it('runs once, as the new scheduling, when a new scheduling of its id was parked before it', async () => {
    const { h, log } = await fireParkedBehind('old', (h, a) =>
      h.client.send(a, 'arm', { tag: 'new', inMs: 60_000 }),
    );
    expect(await parkedNames(h, 'alarm/a')).toEqual(['arm', 'ring']);

    await resumeAndSettle(h, 'alarm/a');
    expect(log).toEqual(['ring:new']);
    expect(await h.state('alarm/a')).toEqual({ rang: ['new'] });
  });

  it('never runs once a halt parked before it applies, and leaves the next life as new', async () => {
    const { h, log } = await fireParkedBehind('x', (h, a) => h.client.send(a, 'halt', {}));
    expect(await parkedNames(h, 'alarm/a')).toEqual(['halt', 'ring']);

    await resumeAndSettle(h, 'alarm/a');
    expect(log).toEqual(['halt']);
    expect(await h.state('alarm/a')).toEqual({ rang: [] });
  });

  it('runs once when nothing parked before it changed its timer', async () => {
    const { h, log } = await fireParkedBehind('x');
    // A copy of the fire, delivered again while it is parked, is not parked twice.
    await fireDueTimers(h.engine, h.clock.now());
    await h.run();
    expect(await parkedNames(h, 'alarm/a')).toEqual(['ring']);

    await resumeAndSettle(h, 'alarm/a');
    expect(log).toEqual(['ring:x']);
    expect(await h.backend.store.listTimers('alarm/a')).toEqual([]);
  });
});

describe('an ask’s reply parked at a paused actor', () => {
  /** Alarm `a` asks the sink, and is paused while its ask waits in the sink's inbox. */
  async function askedThenPaused() {
    const { Alarm, Sink, log } = alarmModel();
    const h = setup({ actors: [Alarm, Sink] });
    const a = Alarm.ref('a');
    await h.client.send(a, 'askSink', { tag: 'q' });
    // The asker's turn alone.
    const asker = await h.backend.queue.receive({ max: 10, visibilityTimeoutMs: 30_000 });
    await h.worker.process(asker);
    await h.backend.queue.ack(asker.map((r) => r.receipt));
    await pause(h, 'alarm/a');
    return { h, log, a };
  }

  it('runs no continuation once a halt parked before it applies: halting dropped the ask', async () => {
    const { h, log, a } = await askedThenPaused();
    await h.client.send(a, 'halt', {});
    await h.run();
    expect(await parkedNames(h, 'alarm/a')).toEqual(['halt', 'replied']);

    await resumeAndSettle(h, 'alarm/a');
    expect(log).toEqual(['sink:q', 'halt']);
    expect(await h.state('alarm/a')).toEqual({ rang: [] });
  });

  it('runs its continuation once when it was parked before the halt', async () => {
    const { h, log, a } = await askedThenPaused();
    await h.run();
    await h.client.send(a, 'halt', {});
    await h.run();
    expect(await parkedNames(h, 'alarm/a')).toEqual(['replied', 'halt']);
    // Its timeout is kept, marked: an operator is told the reply is held, not to wait for it.
    const [timeout] = await h.backend.store.listTimers('alarm/a');
    await expect(
      cancelTimer(h.backend.store, 'alarm/a', timeout!.id, { by: 'ops' }),
    ).rejects.toThrow(
      /Its reply \(or its timeout's fire\) is held at alarm\/a, parked while it is paused/,
    );

    await resumeAndSettle(h, 'alarm/a');
    expect(log).toEqual(['sink:q', 'replied:q', 'halt']);
  });
});

describe('a dead-lettered fire redriven while its actor is paused', () => {
  it('applies nothing once a cancel parked before the redrive applies', async () => {
    const log: string[] = [];
    let broken = true;
    const Bell = actor({
      name: 'bell',
      state: z.object({ rang: z.number() }),
      initial: () => ({ rang: 0 }),
      handlers: {
        arm: {
          payload: z.object({}),
          handle: (ctx) => {
            ctx.schedule(10_000, 'ring', {}, { id: 'b' });
          },
        },
        disarm: {
          payload: z.object({}),
          handle: (ctx) => {
            log.push('disarm');
            ctx.cancel('b');
          },
        },
        ring: {
          payload: z.object({}),
          handle: (ctx) => {
            if (broken) throw new Error('bell broken');
            log.push('ring');
            ctx.state.rang++;
          },
        },
      },
    });
    const h = setup({ actors: [Bell], maxAttempts: 2 });
    const b = Bell.ref('b');
    await h.client.send(b, 'arm', {});
    await h.run();
    h.clock.advance(10_000);
    await fireDueTimers(h.engine, h.clock.now());
    await h.run();
    const [letter] = await h.backend.store.listDeadLetters('bell/b');
    expect(letter?.timer).toBeDefined();
    broken = false;
    await pause(h, 'bell/b');
    await h.client.send(b, 'disarm', {});
    await h.run();
    await redriveDeadLetter(h.backend.store, h.backend.queue, 'bell/b', letter!.messageId);
    await h.run();
    expect(await parkedNames(h, 'bell/b')).toEqual(['disarm', 'ring']);

    await resumeAndSettle(h, 'bell/b');
    expect(log).toEqual(['disarm']);
    expect(await h.state('bell/b')).toEqual({ rang: 0 });
  });
});
