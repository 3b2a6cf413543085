import { actor, ErrorCode, query } from '@baton/core';
import { Registry } from '@baton/core/adapter';
import { EmbeddedStore } from '@baton/embedded';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { evaluateQuery, MAX_QUERY_READ_ID_BYTES, MAX_QUERY_READS } from './evaluateQuery.ts';

const Item = actor({
  name: 'item',
  state: z.object({ n: z.number() }),
  initial: () => ({ n: 1 }),
  handlers: {},
});

/** Sums the items whose keys it is given. */
const total = query({
  name: 'total',
  args: z.object({ keys: z.array(z.string()) }),
  handler: async (ctx, { keys }) => {
    const items = await Promise.all(keys.map((key) => ctx.get(Item.ref(key))));
    return items.reduce((sum, item) => sum + item.n, 0);
  },
});

const env = { registry: new Registry([Item]), store: new EmbeddedStore() };
const keys = (count: number, length = 4) =>
  Array.from({ length: count }, (_, n) => String(n).padStart(length, '0'));

describe('evaluateQuery', () => {
  it('reads up to MAX_QUERY_READS actors, and refuses one more with LIMIT_EXCEEDED', async () => {
    const most = await evaluateQuery(total, { keys: keys(MAX_QUERY_READS) }, undefined, env);
    expect(most.outcome).toEqual({ ok: true, text: String(MAX_QUERY_READS) });
    expect(most.reads.size).toBe(MAX_QUERY_READS);

    const over = await evaluateQuery(total, { keys: keys(MAX_QUERY_READS + 1) }, undefined, env);
    expect(over.outcome).toMatchObject({
      ok: false,
      unexpected: false,
      error: {
        code: ErrorCode.LIMIT_EXCEEDED,
        message: expect.stringMatching(/query "total" read 4000 actors, the most a run may read/),
      },
    });
    // What it read is kept as its dependencies: at most the limit.
    expect(over.reads.size).toBeLessThanOrEqual(MAX_QUERY_READS);
  });

  it('refuses a run whose actor ids pass MAX_QUERY_READ_ID_BYTES, however few', async () => {
    const length = 200;
    const count = Math.ceil(MAX_QUERY_READ_ID_BYTES / length);
    expect(count).toBeLessThan(MAX_QUERY_READS);
    const { outcome } = await evaluateQuery(total, { keys: keys(count, length) }, undefined, env);
    expect(outcome).toMatchObject({ ok: false, error: { code: ErrorCode.LIMIT_EXCEEDED } });
  });

  it('refuses a read of a type the app does not register, naming that type and no other', async () => {
    const Unregistered = actor({
      name: 'ledger',
      state: z.object({ n: z.number() }),
      initial: () => ({ n: 0 }),
      handlers: {},
    });
    const misread = query({
      name: 'misread',
      args: z.object({}),
      handler: async (ctx) => (await ctx.get(Unregistered.ref('a'))).n,
    });
    const { outcome, reads } = await evaluateQuery(misread, {}, undefined, env);
    expect(outcome).toMatchObject({
      ok: false,
      unexpected: false,
      error: {
        code: ErrorCode.UNKNOWN_ACTOR,
        message: expect.stringMatching(
          /^query "misread" reads actor type "ledger", which the app does not register: add that actor to defineApp's actors/,
        ),
        details: { query: 'misread', type: 'ledger' },
      },
    });
    // Every subscriber reads the error: the app's own types stay unnamed.
    expect(outcome.ok ? '' : outcome.error.message).not.toMatch(/item|known/);
    expect(reads.size).toBe(0);
  });
});
