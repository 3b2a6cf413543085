/**
 * Live queries across an actor's lives on the local host: after `ctx.halt()` and the deletion of
 * the record, a new life counts its versions from 1 again. A query that read the old life at a
 * higher version must still see the new life's commits.
 */
import { actor, query, silentLogger } from '@baton/core';
import type { ActorRecord } from '@baton/core/adapter';
import { QueryEngine } from '@baton/server';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { setup } from './helpers.ts';

const Counter = actor({
  name: 'counter',
  state: z.object({ n: z.number() }),
  initial: () => ({ n: 0 }),
  handlers: {
    add: {
      payload: z.object({ by: z.number() }),
      handle: (ctx, { by }) => {
        ctx.state.n += by;
      },
    },
    end: { payload: z.object({}), handle: (ctx) => ctx.halt() },
  },
});

const count = query({
  name: 'count',
  public: true,
  args: z.object({ key: z.string() }),
  handler: async (ctx, { key }) => (await ctx.get(Counter.ref(key))).n,
});

describe('a live query over an actor that halts and starts a new life', () => {
  it('receives the new life’s result although the new life’s version is lower than the one it read', async () => {
    const h = setup({ actors: [Counter] });
    const ref = Counter.ref('c');
    const engine = new QueryEngine({
      queries: [count],
      actors: [Counter],
      store: h.backend.store,
      feed: h.backend.feed,
      clock: h.clock,
      logger: silentLogger,
      batchMs: 0,
    });
    const values: unknown[] = [];
    engine.subscribe({ query: 'count', args: { key: 'c' } }, (update) => {
      if (update.kind === 'result') values.push(update.value);
    });
    for (let i = 0; i < 5; i++) {
      await h.client.send(ref, 'add', { by: 1 });
      await h.run(); // one turn, one version each
    }
    await h.client.send(ref, 'end', {});
    await h.run();
    await engine.flush();
    const old = (await h.record(ref.id))!;
    expect(old.ver).toBe(6);
    expect(values.at(-1)).toBe(0);

    // The halted record expires and the store deletes it; the new life begins at version 1.
    h.clock.set(old.expiresAt!);
    h.backend.store.purgeExpired();
    const lives: ActorRecord[] = [];
    h.backend.feed.subscribe((record) => lives.push(record));
    await h.client.send(ref, 'add', { by: 7 });
    await h.run();
    await engine.flush();
    expect(lives.map(({ ver, life }) => [ver, life !== old.life])).toEqual([[1, true]]);
    expect(values.at(-1)).toBe(7);
    engine.close();
  });
});
