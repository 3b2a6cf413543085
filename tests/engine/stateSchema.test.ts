/**
 * What a turn commits obeys the actor's `state` schema: a handler that leaves state its schema
 * refuses fails its message like a handler error (terminal, the state unchanged), with an error
 * naming the actor, the handler and the path. `validateState: false` turns the check off for an
 * actor whose turns are too hot to pay for it.
 */
import { actor, type BatonError, ErrorCode } from '@baton/core';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { answered, setup } from './helpers.ts';

const handlers = {
  add: {
    payload: z.object({ by: z.number() }),
    handle: (ctx: { state: { count: number } }, { by }: { by: number }) => {
      ctx.state.count += by;
      return ctx.state.count;
    },
  },
};

const Counter = actor({
  name: 'counter',
  state: z.object({ count: z.number().int() }),
  initial: () => ({ count: 0 }),
  handlers,
});

const Loose = actor({
  name: 'loose',
  validateState: false,
  state: z.object({ count: z.number().int() }),
  initial: () => ({ count: 0 }),
  handlers,
});

describe('state schemas', () => {
  it('reject a message whose handler leaves state its schema refuses, naming actor, handler and path', async () => {
    const h = setup({ actors: [Counter] });
    const counter = Counter.ref('c');
    expect(await answered(h, h.client.ask(counter, 'add', { by: 2 }))).toBe(2);
    const error = (await answered(h, h.client.ask(counter, 'add', { by: 0.5 })).catch(
      (e) => e,
    )) as BatonError;
    expect(error.code).toBe(ErrorCode.INVALID_STATE);
    expect(error.message).toMatch(/counter\/c/);
    expect(error.message).toMatch(/"add"/);
    expect(error.message).toMatch(/state\.count/);
    // The state is unchanged and the actor goes on.
    expect(await h.state(counter.id)).toEqual({ count: 2 });
    expect(await answered(h, h.client.ask(counter, 'add', { by: 1 }))).toBe(3);
  });

  it('commit such state unchecked for an actor defined with validateState: false', async () => {
    const h = setup({ actors: [Loose] });
    const loose = Loose.ref('l');
    expect(await answered(h, h.client.ask(loose, 'add', { by: 0.5 }))).toBe(0.5);
    expect(await h.state(loose.id)).toEqual({ count: 0.5 });
  });
});
