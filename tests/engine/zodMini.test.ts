/**
 * Actors and queries with zod/mini schemas (the tree-shaking flavour of zod 4, for smaller
 * Lambda bundles): payloads and args are checked and typed as with classic zod.
 */
import { actor, type PayloadOf, query, type StateOf } from '@baton/core';
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as z from 'zod/mini';
import { settled, setup } from './helpers.ts';

const Counter = actor({
  name: 'counter',
  state: z.object({ count: z.number() }),
  initial: () => ({ count: 0 }),
  handlers: {
    add: {
      payload: z.object({ by: z.number().check(z.positive()) }),
      handle: (ctx, { by }) => {
        ctx.state.count += by;
        return ctx.state.count;
      },
    },
  },
});

const count = query({
  name: 'count',
  args: z.object({ key: z.string() }),
  handler: async (ctx, { key }) => (await ctx.get(Counter.ref(key))).count,
});

describe('zod/mini schemas', () => {
  it('type payloads, state and args as classic zod does', () => {
    expectTypeOf<PayloadOf<typeof Counter, 'add'>>().toEqualTypeOf<{ by: number }>();
    expectTypeOf<StateOf<typeof Counter>>().toEqualTypeOf<{ count: number }>();
    expect(count.name).toBe('count');
  });

  it('apply valid payloads and refuse invalid ones with INVALID_PAYLOAD', async () => {
    const h = setup({ actors: [Counter] });
    const ref = Counter.ref('a');
    const added = h.client.ask(ref, 'add', { by: 2 });
    await h.run();
    expect(await added).toBe(2);
    const refused = await settled(h.client.ask(ref, 'add', { by: -1 }));
    expect(refused).toMatchObject({
      ok: false,
      error: { code: 'INVALID_PAYLOAD', message: expect.stringContaining('payload.by') },
    });
    expect(await h.state('counter/a')).toEqual({ count: 2 });
  });
});
