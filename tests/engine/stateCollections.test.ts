/**
 * A Map or a Set in the state a handler leaves is not committed as the `{}` JSON would make of
 * it, its entries lost without a word: the message is kept as a dead letter, its cause an
 * `INVALID_STATE` naming the path and what to keep instead, and the state is unchanged — as for
 * any state JSON cannot hold. Whatever the schema says: one that takes `{}` (a record, an
 * unknown) would let the loss through, and `validateState: false` does not check at all.
 */
import { actor, type BatonError, ErrorCode } from '@baton/core';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { answered, setup } from './helpers.ts';

const Tagger = actor({
  name: 'tagger',
  state: z.object({
    count: z.number(),
    tags: z.unknown(),
    byDay: z.record(z.string(), z.unknown()),
  }),
  initial: () => ({ count: 0, tags: [] as unknown, byDay: {} as Record<string, unknown> }),
  handlers: {
    add: {
      payload: z.object({}),
      handle: (ctx) => ++ctx.state.count,
    },
    tag: {
      payload: z.object({ tag: z.string() }),
      handle: (ctx, { tag }) => {
        ctx.state.count++;
        ctx.state.tags = new Set([tag]);
      },
    },
    visit: {
      payload: z.object({ day: z.string(), site: z.string().optional() }),
      handle: (ctx, { day, site }) => {
        ctx.state.count++;
        ctx.state.byDay.at = new Date(0);
        // A URL (its toJSON) sends the state down JSON's own round trip: the path is found there too.
        if (site !== undefined) ctx.state.byDay.site = new URL(site);
        ctx.state.byDay[day] = [{ seen: 1 }, { seen: new Map([['ada', 1]]) }];
      },
    },
  },
});

const Loose = actor({
  name: 'loose',
  validateState: false,
  state: z.object({ tags: z.array(z.string()) }),
  initial: () => ({ tags: [] as string[] }),
  handlers: {
    tag: {
      payload: z.object({ tag: z.string() }),
      handle: (ctx, { tag }) => {
        ctx.state.tags = new Set([tag]) as never;
      },
    },
  },
});

/** An actor whose `initial()` holds a Map: a handler that replaces it commits, one that halts does not. */
const Visits = actor({
  name: 'visits',
  state: z.object({ seen: z.unknown() }),
  initial: () => ({ seen: new Map<string, number>() as unknown }),
  handlers: {
    list: {
      payload: z.object({}),
      handle: (ctx) => {
        ctx.state.seen = [];
      },
    },
    stop: { payload: z.object({}), handle: (ctx) => ctx.halt() },
  },
});

/** The error an ask is answered with (an answer that is not one fails the test). */
async function refused(h: ReturnType<typeof setup>, call: Promise<unknown>): Promise<BatonError> {
  return (await answered(h, call).then(
    () => {
      throw new Error('the ask was answered, not refused');
    },
    (error: unknown) => error,
  )) as BatonError;
}

describe('a Map or a Set in state', () => {
  it('keeps the message as a dead letter naming the path, the state unchanged, instead of committing {}', async () => {
    const h = setup({ actors: [Tagger] });
    const ref = Tagger.ref('t');
    expect(await answered(h, h.client.ask(ref, 'add', {}))).toBe(1);
    const error = await refused(h, h.client.ask(ref, 'tag', { tag: 'a' }));
    expect(error).toMatchObject({
      code: ErrorCode.DEAD_LETTERED,
      details: {
        cause: {
          code: ErrorCode.INVALID_STATE,
          details: { actorId: 'tagger/t', handler: 'tag', path: 'state.tags' },
        },
      },
    });
    expect(error.message).toMatch(
      /^handler "tag" of tagger\/t left state that is not JSON \(state\.tags is a Set: JSON stores it as \{\}, its entries lost; keep an array \(z\.array\) or a record \(z\.record\) instead\); the state is unchanged and the message was kept as a dead letter/,
    );
    expect(await h.state(ref.id)).toEqual({ count: 1, tags: [], byDay: {} });
    const [letter] = await h.backend.store.listDeadLetters(ref.id);
    expect(letter).toMatchObject({ redrivable: true, envelope: { name: 'tag' } });
    // The actor goes on.
    expect(await answered(h, h.client.ask(ref, 'add', {}))).toBe(2);
  });

  it('names a Map deep inside, whether the state is copied by the walk or by the round trip', async () => {
    const h = setup({ actors: [Tagger] });
    const ref = Tagger.ref('v');
    for (const payload of [{ day: 'mon' }, { day: 'tue', site: 'https://example.com/' }]) {
      const error = await refused(h, h.client.ask(ref, 'visit', payload));
      expect(error.details?.cause).toMatchObject({
        code: ErrorCode.INVALID_STATE,
        details: { path: `state.byDay.${payload.day}.1.seen` },
      });
      expect(error.message).toContain(`(state.byDay.${payload.day}.1.seen is a Map: JSON stores`);
    }
    expect(await h.state(ref.id)).toEqual({ count: 0, tags: [], byDay: {} });
    expect(await h.backend.store.listDeadLetters(ref.id)).toHaveLength(2);
  });

  it('refuses it for an actor defined with validateState: false too', async () => {
    const h = setup({ actors: [Loose] });
    const ref = Loose.ref('l');
    const error = await refused(h, h.client.ask(ref, 'tag', { tag: 'a' }));
    expect(error.code).toBe(ErrorCode.DEAD_LETTERED);
    expect(error.message).toContain('(state.tags is a Set: JSON stores it as {}');
    expect(await h.state(ref.id)).toEqual({ tags: [] });
  });

  it('blames initial() for the Map in the state a halt starts over from, not the handler', async () => {
    const h = setup({ actors: [Visits] });
    const ref = Visits.ref('v');
    await answered(h, h.client.ask(ref, 'list', {}));
    const error = await refused(h, h.client.ask(ref, 'stop', {}));
    expect(error.details?.cause).toMatchObject({
      code: ErrorCode.INVALID_STATE,
      details: { handler: 'stop', initial: 'not JSON', path: 'state.seen' },
    });
    expect(error.message).toMatch(
      /^handler "stop" of visits\/v halted, and initial\(\) returned state that is not JSON \(state\.seen is a Map: /,
    );
    // Not halted: the actor is as the first message left it.
    expect(await h.state(ref.id)).toEqual({ seen: [] });
  });
});
