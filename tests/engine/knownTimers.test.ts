/**
 * A warm worker knows the timers its own commits stored, so the reply to an ask — or a timer's
 * fire — that reaches it finds the ask's continuation (the timer) without reading the store.
 * What it knows is taken on trust only where a commit checks it: a copy of a fire that another
 * worker handled meanwhile is still applied once.
 */
import { type AskReply, actor, RetryableError, silentLogger } from '@baton/core';
import { createEngine, fireDueTimers, timerFire, Worker } from '@baton/core/engine';
import { describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import { answered, setup } from './helpers.ts';

const Clerk = actor({
  name: 'clerk',
  state: z.object({ seen: z.array(z.string()) }),
  initial: () => ({ seen: [] as string[] }),
  handlers: {
    check: {
      payload: z.object({ item: z.string() }),
      handle: (_ctx, { item }) => `${item} ok`,
    },
  },
});

/** While set, the desk's continuation spoils the context it was given, then fails. */
const clumsy = { times: 0 };

const Desk = actor({
  name: 'desk',
  state: z.object({ seen: z.array(z.string()) }),
  initial: () => ({ seen: [] as string[] }),
  handlers: {
    ask: {
      payload: z.object({ item: z.string() }),
      handle: (ctx, { item }) => {
        ctx.ask(Clerk.ref('c'), 'check', { item }, { onReply: 'checked', context: { item } });
      },
    },
    checked: {
      payload: z.custom<AskReply<string, { item: string }>>(),
      handle: (ctx, reply) => {
        if (clumsy.times > 0) {
          clumsy.times--;
          reply.context.item = 'spoiled';
          throw new RetryableError('dropped the reply');
        }
        ctx.state.seen.push(reply.ok ? `${reply.context.item}: ${reply.value}` : 'failed');
      },
    },
    remind: {
      payload: z.object({ note: z.string(), delay: z.number() }),
      handle: (ctx, { note, delay }) => ctx.schedule(delay, 'ring', { note }),
    },
    ring: {
      payload: z.object({ note: z.string() }),
      handle: (ctx, { note }) => {
        ctx.state.seen.push(note);
      },
    },
  },
});

const desk = Desk.ref('d');
const seen = async (h: ReturnType<typeof setup>) =>
  ((await h.state(desk.id)) as { seen: string[] } | undefined)?.seen ?? [];

/** A second worker on the harness's store and queue: another Lambda container. */
function anotherWorker(h: ReturnType<typeof setup>): Worker {
  const { store, queue } = h.backend;
  return new Worker(
    createEngine({ actors: [Desk, Clerk], store, queue, clock: h.clock, logger: silentLogger }),
  );
}

describe('timers a warm worker knows', () => {
  it('an ask’s reply and a timer’s fire find their timer without a read', async () => {
    const h = setup({ actors: [Desk, Clerk] });
    const reads = vi.spyOn(h.backend.store, 'readTimer');
    for (const item of ['pen', 'ink', 'nib']) {
      await answered(h, h.client.ask(desk, 'ask', { item }));
    }
    await answered(h, h.client.ask(desk, 'remind', { note: 'tea', delay: 1_000 }));
    h.clock.advance(1_000);
    expect(await fireDueTimers(h.engine, h.clock.now())).toBe(1);
    await h.run();

    expect(await seen(h)).toEqual(['pen: pen ok', 'ink: ink ok', 'nib: nib ok', 'tea']);
    expect(reads).not.toHaveBeenCalled();
    expect(await h.backend.store.listTimers(desk.id)).toEqual([]);
  });

  it('a worker that did not store the timer reads it', async () => {
    const h = setup({ actors: [Desk, Clerk] });
    const other = anotherWorker(h);
    const reads = vi.spyOn(h.backend.store, 'readTimer');
    await h.client.send(desk, 'ask', { item: 'pen' });
    expect(await h.worker.poll()).toBe(1); // the desk asks
    expect(await h.worker.poll()).toBe(1); // the clerk replies
    expect(await other.poll()).toBe(1); // the reply reaches another worker
    expect(reads).toHaveBeenCalledTimes(1);
    expect(await seen(h)).toEqual(['pen: pen ok']);
  });

  it('hands each handling a copy: a retried continuation gets its context as the ask kept it', async () => {
    // Commits not frozen, as outside Baton's tests: the stored timer could be changed in place.
    vi.stubEnv('BATON_FREEZE_COMMITS', '0');
    const h = setup({ actors: [Desk, Clerk] });
    vi.unstubAllEnvs();
    clumsy.times = 1;
    await answered(h, h.client.ask(desk, 'ask', { item: 'pen' }));
    await h.run();
    expect(clumsy.times).toBe(0);
    expect(await seen(h)).toEqual(['pen: pen ok']);
  });

  it('a copy of a fire that another worker applied meanwhile is applied once', async () => {
    const h = setup({ actors: [Desk, Clerk] });
    const other = anotherWorker(h);
    await h.client.send(desk, 'remind', { note: 'tea', delay: 1_000 });
    expect(await h.worker.poll()).toBe(1); // this worker stored the timer, and knows it
    const [timer] = await h.backend.store.listTimers(desk.id);
    h.clock.advance(1_000);
    expect(await fireDueTimers(h.engine, h.clock.now())).toBe(1);
    expect(await other.poll()).toBe(1); // the other worker rings, and removes the timer
    expect(await seen(h)).toEqual(['tea']);

    // A copy of the fire, as after the queue's dedupe window, reaches the worker that knew the
    // timer: its warm record is a version behind, so its commit fails and the redo reads.
    const copy = timerFire(timer!);
    await h.backend.queue.send([{ ...copy, dedupeId: `${copy.dedupeId}-late` }]);
    const reads = vi.spyOn(h.backend.store, 'readTimer');
    expect(await h.worker.poll()).toBe(1);
    expect(reads).toHaveBeenCalledTimes(1);
    expect(await seen(h)).toEqual(['tea']);
    expect(h.backend.queue.messages()).toEqual([]);
  });
});
