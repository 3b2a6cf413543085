/**
 * A message whose handler fails is counted in its actor's record (`failing`) before it is tried
 * again, and that count commits at the record's next version. On a store that keeps no outcome
 * pages (a backend without `readPagedOutcomes`), nothing else leaves room in the record: a count
 * that fit the item limit within a byte, at version 9, failed its commit at version 10, the
 * turn came back with the same count, and only the queue's own receive limit ended it.
 */
import { actor } from '@baton/core';
import { jsonSize, type Store } from '@baton/core/adapter';
import { Client } from '@baton/core/client';
import { createEngine, Worker } from '@baton/core/engine';
import { createEmbeddedBackend } from '@baton/embedded';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { recordingLogger, runUntilIdle, virtualClock } from './helpers.ts';

const Notes = actor({
  name: 'notes',
  state: z.object({ items: z.array(z.string()) }),
  initial: () => ({ items: [] as string[] }),
  handlers: {
    append: {
      payload: z.object({ text: z.string() }),
      handle: (ctx, { text }) => {
        ctx.state.items.push(text);
      },
    },
    flaky: {
      payload: z.object({}),
      handle: () => {
        throw new Error('the service is down');
      },
    },
    echo: { payload: z.object({}), handle: () => 'y' },
  },
});

const maxItemBytes = 2_000;

/** `store` as a backend without outcome pages sees it: each outcome is an item of its own. */
function withoutOutcomePages(store: Store): Store {
  return new Proxy(store, {
    get: (target, prop) => {
      if (prop === 'readPagedOutcomes') return undefined;
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** An actor at version 9, its record `under` bytes under the item limit. */
async function notesAtNine(under: number, empty = 0) {
  const clock = virtualClock();
  const backend = createEmbeddedBackend({ clock, limits: { maxItemBytes } });
  const store = withoutOutcomePages(backend.store);
  const { logger, lines } = recordingLogger();
  const actors = [Notes];
  const engine = createEngine({
    actors,
    store,
    queue: backend.queue,
    clock,
    logger,
    maxAttempts: 2,
  });
  const worker = new Worker(engine);
  const client = new Client({ actors, store, queue: backend.queue, clock }).asSystem();
  const run = () => runUntilIdle(worker, backend, clock, 200);
  const notes = Notes.ref('n');
  // The bytes that bring the record `under` the limit, in two appends: a payload may be half an
  // item at most.
  const fill = empty === 0 ? 0 : maxItemBytes - empty - under;
  for (let i = 0; i < 9; i++) {
    const text = i < 7 ? '' : 'x'.repeat(i === 7 ? Math.floor(fill / 2) : Math.ceil(fill / 2));
    await client.send(notes, 'append', { text });
    await run();
  }
  const record = (await store.load(notes.id))!;
  expect(record.ver).toBe(9);
  return { client, store, run, lines, notes, bytes: jsonSize(record) };
}

describe('a failed attempt counted in the record', () => {
  it('never makes a commit that passes the item limit, at any size under it, as the version gains a digit', async () => {
    const { bytes: empty } = await notesAtNine(0);
    for (let under = 100; under <= 200; under++) {
      const { client, store, run, lines, notes, bytes } = await notesAtNine(under, empty);
      expect(bytes).toBe(maxItemBytes - under);
      await client.send(notes, 'flaky', {});
      const after = await client.send(notes, 'echo', {});
      await run();
      // Tried twice (the count committed between), kept as a dead letter, and the next goes on.
      const turnsFailed = lines.filter((line) => line.message.startsWith('turn failed'));
      expect(turnsFailed, `${under}`).toEqual([]);
      const [letter, ...more] = await store.listDeadLetters(notes.id);
      expect(more, `${under}`).toEqual([]);
      expect(letter?.envelope.name, `${under}`).toBe('flaky');
      expect(await client.outcome(after.messageId), `${under}`).toEqual({ ok: true, value: 'y' });
    }
  }, 60_000);
});
