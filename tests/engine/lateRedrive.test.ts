/**
 * A copy of a message that comes back after the proof of its having been applied expired — an
 * ingress message's outcome, an actor message's sender mark on the receiver — such as one moved
 * to the queue's dead-letter queue and redriven late, or a held send a sweeper re-sends after a
 * long outage: the engine must not apply it again. Every message is counted in the committed
 * state (a handler may run again before its commit is refused as a duplicate; only what commits
 * counts).
 */
import { actor, ErrorCode, RetryableError } from '@baton/core';
import { redriveDeadLetter, redriveNeedsForce } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { setup } from './helpers.ts';

/** A redrive of a letter kept as too old to tell: by an operator who knows it never applied. */
const FORCE = { force: true };

const DAY = 24 * 60 * 60 * 1000;

/** `faults.failing`: `put` fails, as a deploy's fault would until its fix is out. */
function counted(faults = { failing: false }) {
  const Box = actor({
    name: 'box',
    state: z.object({ items: z.array(z.string()) }),
    initial: () => ({ items: [] }),
    handlers: {
      put: {
        public: true,
        payload: z.object({ item: z.string() }),
        handle: (ctx, { item }) => {
          if (faults.failing) throw new RetryableError('the fix is not deployed yet');
          ctx.state.items.push(item);
        },
      },
    },
  });
  const Relay = actor({
    name: 'relay',
    state: z.object({}),
    initial: () => ({}),
    handlers: {
      pass: {
        payload: z.object({ item: z.string() }),
        handle: (ctx, { item }) => ctx.send(Box.ref('a'), 'put', { item }),
      },
    },
  });
  return { Box, Relay };
}

describe('an ingress message redriven from the queue’s dead-letter queue after its outcome expired', () => {
  it('is kept as a dead letter, not applied a second time, and a redrive of that dead letter applies it', async () => {
    const { Box } = counted();
    const h = setup({ actors: [Box] });
    const applied = async () => ((await h.state('box/a')) as { items: string[] }).items;
    const queue = h.backend.queue;
    // The worker commits, drains and then crashes before every ack, until the queue gives up.
    const ack = queue.ack.bind(queue);
    let crashing = true;
    queue.ack = async (receipts) => {
      if (crashing) throw new Error('the worker crashed before it acknowledged');
      return ack(receipts);
    };
    await h.client.send(Box.ref('a'), 'put', { item: 'x' }, { idempotencyKey: 'k' });
    await h.client.send(Box.ref('a'), 'put', { item: 'y' }, { idempotencyKey: 'j' });
    for (let i = 0; i < 50 && queue.counts().deadLetters < 2; i++) {
      await h.worker.poll().catch(() => {});
      h.clock.advance(60_000);
    }
    crashing = false;
    expect(queue.counts().deadLetters).toBe(2);
    expect(await applied()).toEqual(['x', 'y']);

    // 'y' comes back while its outcome is kept: skipped. 'x' after the outcome expired: the
    // dead-letter queue keeps it 14 days from its move, minutes after the outcome's 14 days
    // began (SQS FIFO restarts a message's retention as it moves it), and is redriven then.
    const [x, y] = queue.deadLetters();
    expect(queue.redrive([y!.seq])).toBe(1);
    await h.run();
    h.clock.advance(x!.deadAt + 14 * DAY - 1 - h.clock.now());
    h.backend.store.purgeExpired();
    expect(queue.redrive()).toBe(1);
    await h.run();

    expect(await applied()).toEqual(['x', 'y']);
    const [kept] = await h.backend.store.listDeadLetters('box/a');
    expect(kept?.error).toMatchObject({
      code: ErrorCode.DEAD_LETTERED,
      message: expect.stringMatching(/redrive it only if you know it was never applied/),
    });
    // The operator's decision: a redrive of the engine's dead letter applies it, once.
    await redriveDeadLetter(h.backend.store, queue, 'box/a', kept!.messageId, FORCE);
    await redriveDeadLetter(h.backend.store, queue, 'box/a', kept!.messageId, FORCE);
    await h.run();
    expect(await applied()).toEqual(['x', 'y', 'x']);
    expect(await h.backend.store.listDeadLetters('box/a')).toEqual([]);
  });
});

describe('an actor’s message that comes back after the receiver forgot its sender’s mark', () => {
  it('is kept as a dead letter, not applied a second time, while a fresh message on the channel is applied', async () => {
    const { Box, Relay } = counted();
    const h = setup({ actors: [Box, Relay] });
    const applied = async () => ((await h.state('box/a')) as { items: string[] }).items;
    await h.client.send(Relay.ref('r'), 'pass', { item: 'x' });
    // The relay's message as it went to the box's inbox, to send again later.
    await h.worker.poll();
    const copy = h.backend.queue.messages().find((m) => m.group === 'box/a');
    expect(copy).toBeDefined();
    await h.run();
    expect(await applied()).toEqual(['x']);

    // 29 idle days: the box's next commit prunes the relay's mark (kept 28 days by default).
    h.clock.advance(29 * DAY);
    await h.client.send(Box.ref('a'), 'put', { item: 'y' }, { idempotencyKey: 'y' });
    await h.run();
    // A late copy of the relay's message (a sweeper's re-send after a long outage).
    await h.backend.queue.send([{ ...copy!, dedupeId: 'late-copy' }]);
    await h.run();
    expect(await applied()).toEqual(['x', 'y']);
    const [kept] = await h.backend.store.listDeadLetters('box/a');
    expect(kept?.error).toMatchObject({
      code: ErrorCode.DEAD_LETTERED,
      message: expect.stringMatching(/as long as its sender's mark is kept/),
    });

    // The relay's channel goes on: its next message is applied.
    await h.client.send(Relay.ref('r'), 'pass', { item: 'z' });
    await h.run();
    expect(await applied()).toEqual(['x', 'y', 'z']);
  });
});

describe('a client’s retry of a keyed send, after its outcome expired, that meets a dead letter of the send', () => {
  it('leaves the letter as it was, redriven without force, and the send is applied once', async () => {
    const faults = { failing: true };
    const { Box } = counted(faults);
    const h = setup({ actors: [Box], maxAttempts: 2 });
    const applied = async () =>
      ((await h.state('box/a')) as { items: string[] } | undefined)?.items;
    const put = () => h.client.send(Box.ref('a'), 'put', { item: 'x' }, { idempotencyKey: 'k' });
    const { messageId } = await put();
    await h.run();
    const [letter] = await h.backend.store.listDeadLetters('box/a');
    expect(letter).toMatchObject({ messageId });
    expect(redriveNeedsForce(letter!)).toBe(false);

    // 16 days on, past the outcome's 14 and within the key's claim: the same message again.
    h.clock.advance(16 * DAY);
    h.backend.store.purgeExpired();
    expect(await put()).toMatchObject({ messageId });
    await h.run();
    const [still] = await h.backend.store.listDeadLetters('box/a');
    expect(still).toEqual(letter);

    faults.failing = false;
    await redriveDeadLetter(h.backend.store, h.backend.queue, 'box/a', messageId);
    await h.run();
    expect(await applied()).toEqual(['x']);
    // And a copy after the redrive finds the proof it left: not kept as too old again.
    await put();
    await h.run();
    expect(await applied()).toEqual(['x']);
    expect(await h.backend.store.listDeadLetters('box/a')).toEqual([]);
  });

  it('reads no letter for a copy younger than its outcome, which tells it alone', async () => {
    const { Box } = counted();
    const h = setup({ actors: [Box] });
    const store = h.backend.store;
    const read = store.readDeadLetter.bind(store);
    let letterReads = 0;
    store.readDeadLetter = async (...args) => {
      letterReads++;
      return read(...args);
    };
    // The first delivery commits, then its ack fails: the queue hands the message over again.
    const queue = h.backend.queue;
    const ack = queue.ack.bind(queue);
    let acks = 0;
    queue.ack = async (receipts) => {
      if (acks++ === 0) throw new Error('the worker crashed before it acknowledged');
      return ack(receipts);
    };
    await h.client.send(Box.ref('a'), 'put', { item: 'x' }, { idempotencyKey: 'k' });
    await h.worker.poll().catch(() => {});
    h.clock.advance(60_000);
    await h.run();
    expect(((await h.state('box/a')) as { items: string[] }).items).toEqual(['x']);
    expect(acks).toBeGreaterThan(1);
    expect(letterReads).toBe(0);
  });
});
