/**
 * An actor's lifecycle: it exists from its first message; `ctx.halt()` ends it — its timers
 * are cancelled, its state is the initial one again, its record expires after the mark
 * retention — and a later message finds a new actor whose messages are still exactly-once.
 */
import { actor, silentLogger } from '@baton/core';
import { createEngine, fireDueTimers } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { answered, type Harness, setup } from './helpers.ts';

const Log = actor({
  name: 'log',
  state: z.object({ lines: z.array(z.string()) }),
  initial: () => ({ lines: [] as string[] }),
  handlers: {
    write: {
      payload: z.object({ line: z.string() }),
      handle: (ctx, { line }) => {
        ctx.state.lines.push(line);
      },
    },
  },
});

const Session = actor({
  name: 'session',
  state: z.object({ items: z.array(z.string()) }),
  initial: () => ({ items: [] as string[] }),
  handlers: {
    add: {
      payload: z.object({ item: z.string() }),
      handle: (ctx, { item }) => {
        ctx.state.items.push(item);
        ctx.send(Log.ref('audit'), 'write', { line: `${ctx.self.key} +${item}` });
        return ctx.state.items.length;
      },
    },
    remind: {
      payload: z.object({ inMs: z.number() }),
      handle: (ctx, { inMs }) => {
        ctx.schedule(inMs, 'add', { item: 'reminder' });
      },
    },
    end: {
      payload: z.object({}),
      handle: (ctx) => {
        ctx.state.items.push('discarded with the halt');
        ctx.send(Log.ref('audit'), 'write', { line: `${ctx.self.key} ended` });
        ctx.halt();
        return 'bye';
      },
    },
  },
});

const s1 = Session.ref('s1');
// Longer than the queue's 5-minute dedupe window, which a new life's message ids must outlast too.
const RETENTION = 10 * 60_000;

/** The harness, its engine's retentions short and consistent (keys kept twice the marks). */
function harness() {
  const h = setup({ actors: [Session, Log] });
  const engine = createEngine({
    actors: [Session, Log],
    store: h.backend.store,
    queue: h.backend.queue,
    clock: h.clock,
    logger: silentLogger,
    markRetentionMs: RETENTION,
    idempotencyRetentionMs: 2 * RETENTION,
  });
  return { ...h, engine };
}

const lines = async (h: Pick<Harness, 'state'>) =>
  ((await h.state('log/audit')) as { lines: string[] } | undefined)?.lines ?? [];

describe('ctx.halt()', () => {
  it('resets the state, cancels every timer, keeps the sends, and sets the record to expire', async () => {
    const h = setup({ actors: [Session, Log] });
    await answered(h, h.client.ask(s1, 'add', { item: 'a' }));
    await answered(h, h.client.ask(s1, 'remind', { inMs: 1_000 }));
    await answered(h, h.client.ask(s1, 'remind', { inMs: 2_000 }));
    expect(await h.backend.store.listTimers(s1.id)).toHaveLength(2);

    expect(await answered(h, h.client.ask(s1, 'end', {}))).toBe('bye');
    const record = await h.record(s1.id);
    expect(record?.state).toEqual({ items: [] });
    expect(record?.expiresAt).toBe(h.clock.now() + 2 * h.engine.markRetentionMs);
    expect(await h.backend.store.listTimers(s1.id)).toEqual([]);
    expect(await lines(h)).toEqual(['s1 +a', 's1 ended']);

    // The cancelled reminders never fire.
    h.clock.advance(5_000);
    expect(await fireDueTimers(h.engine, h.clock.now())).toBe(0);
    await h.run();
    expect((await h.record(s1.id))?.state).toEqual({ items: [] });
  });

  it('also removes timers that earlier messages of the same batch scheduled', async () => {
    const h = setup({ actors: [Session, Log], batchSize: 10 });
    await h.client.send(s1, 'remind', { inMs: 1_000 });
    await h.client.send(s1, 'end', {});
    await h.run();
    expect(await h.backend.store.listTimers(s1.id)).toEqual([]);
  });

  it('lets a later message find a new actor, whose sends are not mistaken for old ones', async () => {
    const h = setup({ actors: [Session, Log] });
    await answered(h, h.client.ask(s1, 'add', { item: 'a' }));
    await answered(h, h.client.ask(s1, 'end', {}));
    const halted = await h.record(s1.id);
    expect(await answered(h, h.client.ask(s1, 'add', { item: 'b' }))).toBe(1);
    const revived = await h.record(s1.id);
    expect(revived?.state).toEqual({ items: ['b'] });
    expect(revived?.expiresAt).toBeUndefined();
    // Its sequence numbers go on, so the log applies its next message instead of skipping it.
    expect(revived!.sentSeq).toBe(halted!.sentSeq + 1);
    expect(await lines(h)).toEqual(['s1 +a', 's1 ended', 's1 +b']);
  });

  it('lets the store delete the record once it expires; the actor then starts from nothing', async () => {
    const h = harness();
    const { Worker } = await import('@baton/core/engine');
    const worker = new Worker(h.engine);
    const run = async () => {
      while ((await worker.poll()) > 0);
    };
    await h.client.send(s1, 'add', { item: 'a' });
    await h.client.send(s1, 'end', {});
    await run();
    const expiresAt = (await h.record(s1.id))?.expiresAt;
    expect(expiresAt).toBe(h.clock.now() + 2 * RETENTION);

    h.clock.set(expiresAt! - 1);
    h.backend.store.purgeExpired();
    expect(await h.record(s1.id)).toBeDefined();
    h.clock.set(expiresAt!);
    h.backend.store.purgeExpired();
    expect(await h.record(s1.id)).toBeUndefined();

    // A cold worker: the record is gone. The new actor's sequence numbers start over, which the
    // log has forgotten by now, so its message is applied, not skipped as a duplicate.
    h.engine.cache.delete(s1.id);
    await h.client.send(s1, 'add', { item: 'c' });
    await run();
    expect(await h.record(s1.id)).toMatchObject({ ver: 1, state: { items: ['c'] } });
    expect(await lines(h)).toEqual(['s1 +a', 's1 ended', 's1 +c']);
  });
});
