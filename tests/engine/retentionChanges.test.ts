/**
 * What docs/deploys.md says of a deploy that lowers a retention: the messages committed before
 * it are still applied exactly once. A keyed client message, committed under a 14-day outcome
 * retention and left unacknowledged until the inbox's dead-letter queue took it, is redriven
 * on day 10, after a deploy that lowered the retention to 7 days: its outcome, written to live
 * 14 days, tells the copy, which is skipped.
 */
import { actor, silentLogger } from '@baton/core';
import { Client } from '@baton/core/client';
import { createEngine, Worker } from '@baton/core/engine';
import { createEmbeddedBackend } from '@baton/embedded';
import { expect, it } from 'vitest';
import * as z from 'zod';
import { runUntilIdle, virtualClock } from './helpers.ts';

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

it('applies a keyed message once when a deploy lowered the outcome retention before its copy came back', async () => {
  const clock = virtualClock();
  const backend = createEmbeddedBackend({ clock, queue: { maxReceives: 5 } });
  const release = (idempotencyRetentionMs: number) => {
    const engine = createEngine({
      actors: [Box],
      ...{ store: backend.store, queue: backend.queue, clock, logger: silentLogger },
      idempotencyRetentionMs,
    });
    return new Worker(engine);
  };
  const before = release(14 * DAY);
  const { queue, store } = backend;
  // The worker applies it, then dies before each acknowledgement, until the queue gives up.
  const ack = queue.ack.bind(queue);
  let dying = true;
  queue.ack = async (receipts) => {
    if (dying) throw new Error('the worker died before it acknowledged');
    return ack(receipts);
  };
  const client = new Client({ actors: [Box], store, queue, clock }).asSystem();
  await client.send(Box.ref('a'), 'put', { item: 'x' }, { idempotencyKey: 'k' });
  for (let i = 0; i < 50 && queue.counts().deadLetters < 1; i++) {
    await before.poll().catch(() => {});
    clock.advance(60_000);
  }
  dying = false;
  expect(queue.counts().deadLetters).toBe(1);

  const after = release(7 * DAY);
  clock.advance(10 * DAY);
  store.purgeExpired();
  expect(queue.redrive()).toBe(1);
  await runUntilIdle(after, backend, clock);
  expect((await store.load('box/a'))?.state).toEqual({ items: ['x'] });
  expect(queue.counts()).toMatchObject({ total: 0, deadLetters: 0 });
});
