import { actor, ErrorCode, type QueryContext, query } from '@baton/core';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { noFaults } from './faults.ts';
import { Simulation } from './Simulation.ts';

const Counter = actor({
  name: 'counter',
  state: z.object({ count: z.number() }),
  initial: () => ({ count: 0 }),
  handlers: {
    add: {
      payload: z.object({ by: z.number() }),
      handle: (ctx, { by }) => {
        ctx.state.count += by;
      },
    },
  },
});

const total = query({
  name: 'total',
  public: true,
  args: z.object({ keys: z.array(z.string()).min(1) }),
  handler: async (ctx: QueryContext<{ user: string }>, { keys }) => {
    const states = await Promise.all(keys.map((key) => ctx.get(Counter.ref(key))));
    const sum = states.reduce((n, state) => n + state.count, 0);
    return { sum, for: ctx.identity?.user ?? null, at: new Date(sum) };
  },
});

describe('sim.query', () => {
  it('runs a query against the committed state, with the identity given, as JSON', async () => {
    const sim = new Simulation({ actors: [Counter], seed: 3, faults: noFaults });
    sim.send(Counter.ref('a'), 'add', { by: 2 });
    sim.send(Counter.ref('b'), 'add', { by: 5 });
    expect(await sim.query(total, { keys: ['a', 'b'] })).toMatchObject({ sum: 0 });
    await sim.run();
    // An actor with no record reads as its initial state; a Date arrives as its ISO string.
    expect(await sim.query(total, { keys: ['a', 'b', 'none'] }, { user: 'ada' })).toEqual({
      sum: 7,
      for: 'ada',
      at: new Date(7).toISOString(),
    });
  });

  it('gives the result as the servers send it: canonical JSON, null for nothing', async () => {
    const sim = new Simulation({ actors: [Counter], seed: 3, faults: noFaults });
    const shaped = query({
      name: 'shaped',
      args: z.object({ none: z.boolean() }),
      handler: (_ctx, { none }) => (none ? undefined : { z: 1, a: 2 }),
    });
    expect(await sim.query(shaped, { none: true })).toBeNull();
    expect(Object.keys((await sim.query(shaped, { none: false })) as object)).toEqual(['a', 'z']);
  });

  it('refuses args its schema refuses, and throws what the query throws', async () => {
    const sim = new Simulation({ actors: [Counter], seed: 3, faults: noFaults });
    await expect(sim.query(total, { keys: [] })).rejects.toMatchObject({
      code: ErrorCode.INVALID_PAYLOAD,
      message: expect.stringMatching(/^invalid args for query "total": args\.keys: /),
    });
    const unknown = query({
      name: 'unknown',
      args: z.object({}),
      handler: (ctx) => ctx.get({ id: 'ghost/a', type: 'ghost', key: 'a' } as never),
    });
    await expect(sim.query(unknown, {})).rejects.toMatchObject({
      code: ErrorCode.UNKNOWN_ACTOR,
    });
  });
});
