/**
 * What a turn commits obeys the actor's `state` schema: a handler that leaves state its schema
 * refuses fails its message (the state unchanged), with an error naming the actor, the handler
 * and the path, and keeps it as a dead letter to redrive once the code is fixed. `validateState: false` turns the check off for an
 * actor whose turns are too hot to pay for it.
 */
import { actor, type BatonError, ErrorCode } from '@baton/core';
import { redriveDeadLetter } from '@baton/core/engine';
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
  it('fail a message whose handler leaves state its schema refuses, naming actor, handler and path', async () => {
    const h = setup({ actors: [Counter] });
    const counter = Counter.ref('c');
    expect(await answered(h, h.client.ask(counter, 'add', { by: 2 }))).toBe(2);
    const error = (await answered(h, h.client.ask(counter, 'add', { by: 0.5 })).catch(
      (e) => e,
    )) as BatonError;
    // Kept as a dead letter, as the code's fault: a redrive may apply it once the code is fixed.
    expect(error.code).toBe(ErrorCode.DEAD_LETTERED);
    expect(error.details?.cause).toMatchObject({ code: ErrorCode.INVALID_STATE });
    expect(error.message).toMatch(/counter\/c/);
    expect(error.message).toMatch(/"add"/);
    expect(error.message).toMatch(/state\.count/);
    // The state is unchanged and the actor goes on.
    expect(await h.state(counter.id)).toEqual({ count: 2 });
    expect(await answered(h, h.client.ask(counter, 'add', { by: 1 }))).toBe(3);
  });

  it('blame initial(), not the handler, when the state refused is what initial() returns, left as it was', async () => {
    const Profile = actor({
      name: 'profile',
      state: z.object({ name: z.string(), age: z.number() }),
      // A looser return type than the schema's, as after the schema changed.
      initial: () => ({ name: '', age: '0' }) as unknown as { name: string; age: number },
      handlers: {
        touch: { payload: z.object({}), handle: () => 'ok' },
        rename: {
          payload: z.object({ name: z.string() }),
          handle: (ctx, { name }) => {
            ctx.state.name = name;
          },
        },
      },
    });
    const h = setup({ actors: [Profile] });
    const refused = (call: Promise<unknown>) =>
      answered(h, call).catch((e) => e) as Promise<BatonError>;
    const untouched = await refused(h.client.ask(Profile.ref('a'), 'touch', {}));
    expect(untouched.code).toBe(ErrorCode.DEAD_LETTERED);
    expect(untouched.details?.cause).toMatchObject({ code: ErrorCode.INVALID_STATE });
    expect(untouched.message).toMatch(
      /^initial\(\) of profile returns state its schema refuses \(state\.age: /,
    );
    expect(untouched.message).toMatch(/handler "touch" of profile\/a left it so/);
    // A handler that changed it is named, as for any state it leaves.
    const changed = await refused(h.client.ask(Profile.ref('b'), 'rename', { name: 'ada' }));
    expect(changed.message).toMatch(
      /^handler "rename" of profile\/b left state its schema refuses/,
    );
  });

  it('blame the handler when initial() throws on being asked again, rather than fail the turn', async () => {
    // initial() builds the first state, then throws (a dependency it reads went away, say).
    let initialCalls = 0;
    const Badge = actor({
      name: 'badge',
      state: z.object({ label: z.string() }),
      initial: () => {
        if (++initialCalls > 1) throw new Error('initial() is unavailable');
        return { label: 'new' };
      },
      handlers: {
        blank: {
          payload: z.object({}),
          handle: (ctx) => {
            (ctx.state as { label: unknown }).label = 7;
          },
        },
      },
    });
    const h = setup({ actors: [Badge] });
    const refused = (await answered(h, h.client.ask(Badge.ref('b'), 'blank', {})).catch(
      (e) => e,
    )) as BatonError;
    expect(refused.code).toBe(ErrorCode.DEAD_LETTERED);
    expect(refused.message).toMatch(/^handler "blank" of badge\/b left state its schema refuses/);
    expect(initialCalls).toBeGreaterThan(1);
  });

  it('keep such a message as a dead letter, which a redrive applies once the fix is deployed', async () => {
    let strict = true;
    const integer = (n: number) => !strict || Number.isInteger(n);
    const Fixable = actor({
      name: 'fixable',
      state: z.object({ count: z.number().refine(integer, 'expected an integer') }),
      initial: () => ({ count: 0 }),
      handlers,
    });
    const h = setup({ actors: [Fixable] });
    const ref = Fixable.ref('f');
    const error = (await answered(h, h.client.ask(ref, 'add', { by: 0.5 })).catch(
      (e) => e,
    )) as BatonError;
    expect(error.code).toBe(ErrorCode.DEAD_LETTERED);
    expect(error.message).toMatch(/kept as a dead letter: fix the handler or the schema/);
    const [letter] = await h.backend.store.listDeadLetters(ref.id);
    expect(letter).toMatchObject({
      redrivable: true,
      error: {
        code: ErrorCode.DEAD_LETTERED,
        details: { cause: { code: ErrorCode.INVALID_STATE } },
      },
      envelope: { name: 'add', payload: { by: 0.5 } },
    });
    expect(await h.state(ref.id)).toEqual({ count: 0 });

    strict = false; // the fix, deployed
    // A client's ask, told DEAD_LETTERED: nobody acted on that answer here.
    await redriveDeadLetter(h.backend.store, h.backend.queue, ref.id, letter!.messageId, {
      force: true,
    });
    await h.run();
    expect(await h.state(ref.id)).toEqual({ count: 0.5 });
    expect(await h.backend.store.listDeadLetters(ref.id)).toEqual([]);
  });

  it('keep a message whose reply is not JSON (a BigInt) as a dead letter, naming the reply', async () => {
    const Replier = actor({
      name: 'replier',
      state: z.object({ count: z.number() }),
      initial: () => ({ count: 0 }),
      handlers: {
        index: {
          payload: z.object({}),
          handle: (ctx) => {
            ctx.state.count++;
            return { big: 10n };
          },
        },
        forward: {
          payload: z.object({ to: z.string() }),
          handle: (ctx, { to }) => {
            ctx.send(Replier.ref(to), 'index', {});
          },
        },
      },
    });
    const h = setup({ actors: [Replier] });
    const ref = Replier.ref('m');
    const error = (await answered(h, h.client.ask(ref, 'index', {})).catch((e) => e)) as BatonError;
    expect(error).toMatchObject({
      code: ErrorCode.DEAD_LETTERED,
      details: { cause: { code: ErrorCode.INVALID_STATE, details: { reply: 'not JSON' } } },
      message: expect.stringMatching(
        /^handler "index" of replier\/m returned a reply that is not JSON \(Do not know how to serialize a BigInt/,
      ),
    });
    expect(await h.state(ref.id)).toEqual({ count: 0 });
    expect(await h.backend.store.listDeadLetters(ref.id)).toHaveLength(1);

    // A reply nobody reads (of a send from an actor) is dropped, whatever it is.
    await h.client.send(ref, 'forward', { to: 'n' });
    await h.run();
    expect(await h.state(Replier.ref('n').id)).toEqual({ count: 1 });
    expect(await h.backend.store.listDeadLetters(Replier.ref('n').id)).toEqual([]);
  });

  it('commit such state unchecked for an actor defined with validateState: false', async () => {
    const h = setup({ actors: [Loose] });
    const loose = Loose.ref('l');
    expect(await answered(h, h.client.ask(loose, 'add', { by: 0.5 }))).toBe(0.5);
    expect(await h.state(loose.id)).toEqual({ count: 0.5 });
  });
});
