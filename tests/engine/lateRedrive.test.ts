/**
 * An ingress message committed but never acknowledged, moved to the queue's dead-letter queue and
 * redriven after its outcome (its only proof of having been applied) expired: the engine must
 * not apply it again. Every message is counted in the committed state (a handler may run again
 * before its commit is refused as a duplicate; only what commits counts).
 */
import { actor, ErrorCode } from '@baton/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { setup } from './helpers.ts';

const DAY = 24 * 60 * 60 * 1000;

function counted() {
  const Box = actor({
    name: 'box',
    state: z.object({ items: z.array(z.string()) }),
    initial: () => ({ items: [] }),
    handlers: {
      put: {
        public: true,
        payload: z.object({ item: z.string() }),
        handle: (ctx, { item }) => {
          ctx.state.items.push(item);
        },
      },
    },
  });
  return { Box };
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

    // 'y' comes back while its outcome is kept: skipped. 'x' after the outcome expired.
    expect(queue.redrive([queue.deadLetters()[1]!.seq])).toBe(1);
    await h.run();
    h.clock.advance(15 * DAY);
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
    const { redriveDeadLetter } = await import('@baton/core/engine');
    await redriveDeadLetter(h.backend.store, queue, 'box/a', kept!.messageId);
    await redriveDeadLetter(h.backend.store, queue, 'box/a', kept!.messageId);
    await h.run();
    expect(await applied()).toEqual(['x', 'y', 'x']);
    expect(await h.backend.store.listDeadLetters('box/a')).toEqual([]);
  });
});
