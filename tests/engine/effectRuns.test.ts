/**
 * How a worker runs an effect group's requests, with the store's done-marks: what it skips, what
 * it retries, and what it logs when an effect or the marks fail.
 */
import { actor, effect, TerminalError } from '@baton/core';
import type { Store } from '@baton/core/adapter';
import { Worker } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { recordingLogger, runUntilIdle, sentId, setup } from './helpers.ts';

/** Runs of `note`, by note; notes listed in `failing` throw instead (a TerminalError for 'bad'). */
const runs: string[] = [];
const failing = new Set<string>();

const Note = effect({
  name: 'note',
  payload: z.object({ text: z.string() }),
  run: async ({ text }) => {
    if (failing.has(text)) {
      throw text === 'bad' ? new TerminalError('refused outright') : new Error(`${text} is down`);
    }
    runs.push(text);
  },
});

const Writer = actor({
  name: 'writer',
  state: z.object({}),
  initial: () => ({}),
  handlers: {
    write: {
      payload: z.object({ texts: z.array(z.string()) }),
      handle: (ctx, { texts }) => {
        for (const text of texts) ctx.effect(Note, { text });
      },
    },
  },
});

const writer = Writer.ref('w');

/** A harness whose store's done-marks can be made to fail, and whose logger records. */
function harness(faults: { read?: boolean; mark?: boolean } = {}) {
  runs.length = 0;
  failing.clear();
  const { logger, lines } = recordingLogger();
  const h = setup({ actors: [Writer], effects: [Note], logger });
  const store = new Proxy(h.backend.store, {
    get: (target, name) => {
      if (name === 'readEffectsDone' && faults.read) {
        return async () => Promise.reject(new Error('marks unreadable'));
      }
      if (name === 'markEffectsDone' && faults.mark) {
        return async () => Promise.reject(new Error('marks unwritable'));
      }
      const value: unknown = Reflect.get(target, name);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as Store;
  const worker = new Worker({ ...h.engine, store });
  return { ...h, lines, worker, run: () => runUntilIdle(worker, h.backend, h.clock) };
}

describe('running effects', () => {
  it('skips a request whose run is marked done, and acks it', async () => {
    const h = harness();
    await h.client.send(writer, 'write', { texts: ['a', 'b'] });
    await h.worker.poll(); // the writer's turn: the requests wait in the effect's group
    const first = await sentId(h, 'writer/w', 1);
    await h.backend.store.markEffectsDone!([first], h.clock.now() + 60_000);
    await h.run();
    expect(runs).toEqual(['b']);
    expect(h.backend.queue.messages()).toEqual([]);
    expect(h.backend.queue.deadLetters()).toEqual([]);
  });

  it('runs nothing of a group while the marks cannot be read, and runs it all once they can', async () => {
    const faults = { read: true };
    const h = harness(faults);
    await h.client.send(writer, 'write', { texts: ['a', 'b'] });
    await h.worker.poll();
    await h.worker.poll();
    expect(runs).toEqual([]);
    faults.read = false;
    await h.run();
    expect(runs).toEqual(['a', 'b']);
  });

  it('stops a group at a failing run, logs it, and retries it and what follows, even after a terminal error', async () => {
    const h = harness();
    failing.add('bad');
    await h.client.send(writer, 'write', { texts: ['a', 'bad', 'c'] });
    await h.worker.poll();
    await h.worker.poll();
    expect(runs).toEqual(['a']);
    const bad = await sentId(h, 'writer/w', 2);
    expect(h.lines).toEqual([
      {
        level: 'warn',
        message: 'effect failed; it will be retried until the queue dead-letters it',
        fields: {
          effect: 'note',
          messageId: bad,
          actor: 'writer/w',
          attempt: 1,
          error: 'refused outright',
        },
      },
    ]);
    failing.clear();
    await h.run();
    expect(runs).toEqual(['a', 'bad', 'c']);
  });

  it('acks runs it could not mark done, warning that a late copy would run them again', async () => {
    const h = harness({ mark: true });
    await h.client.send(writer, 'write', { texts: ['a', 'b'] });
    await h.run();
    expect(runs).toEqual(['a', 'b']);
    expect(h.backend.queue.messages()).toEqual([]);
    expect(h.lines).toEqual([
      {
        level: 'warn',
        message: 'could not mark effects done; a late copy of their request would run them again',
        fields: { keys: 2, error: 'unexpected error: marks unwritable' },
      },
    ]);
  });

  it('retries a body in an effect group that is not an effect request, running nothing', async () => {
    const h = harness();
    await h.backend.queue.send([{ group: '$effect/note', dedupeId: 'junk', body: 'junk' }]);
    expect(await h.worker.poll()).toBe(1);
    expect(runs).toEqual([]);
    expect(h.lines).toEqual([
      expect.objectContaining({
        level: 'warn',
        fields: expect.objectContaining({ error: 'unexpected error: not a Baton effect envelope' }),
      }),
    ]);
  });
});
