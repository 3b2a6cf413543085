/**
 * A keyed send's claim outlives every outcome of its key: the engine's own outcome for a copy it
 * judged too old to tell (a queue's dead letter redriven 20 days after the send, kept as a dead
 * letter) ends with the claim, not a retention after it was written. Otherwise a new message
 * under the key, accepted at the door once the claim ended (day 29), is skipped as a duplicate.
 */
import { actor } from '@baton/core';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { setup } from '../engine/helpers.ts';

const DAY = 24 * 60 * 60 * 1000;

const Box = actor({
  name: 'box',
  state: z.object({ items: z.array(z.string()) }),
  initial: () => ({ items: [] as string[] }),
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

describe('a key freed when its claim ends', () => {
  it('is free indeed: a new message under it is applied, even after a late copy of the old one', async () => {
    const h = setup({ actors: [Box] });
    const box = Box.ref('a');
    const items = async () => ((await h.state(box.id)) as { items: string[] }).items;
    await h.client.send(box, 'put', { item: 'x' }, { idempotencyKey: 'k' });
    const copy = h.backend.queue.messages().find((m) => m.group === box.id)!;
    await h.run();
    expect(await items()).toEqual(['x']);

    // Day 20: a copy of the message comes back from the queue's dead-letter queue. Too old to
    // tell, it is kept as an engine dead letter, not applied (as the docs say).
    h.clock.advance(20 * DAY);
    await h.backend.queue.send([{ ...copy, dedupeId: 'redrive-k' }]);
    await h.run();
    expect(await items()).toEqual(['x']);
    expect(await h.backend.store.listDeadLetters(box.id)).toHaveLength(1);

    // Day 29: the key's claim (28 days) is over, so the key is free: the app reuses it.
    h.clock.advance(9 * DAY);
    const sent = await h.client.send(box, 'put', { item: 'y' }, { idempotencyKey: 'k' });
    expect(sent.messageId).toBeDefined(); // accepted at the door
    await h.run();
    expect(await items()).toEqual(['x', 'y']);
  });
});
