/**
 * What a handler's `ctx` refuses, and how it says so: each case runs inside a handler, catches
 * what `ctx` threw and answers with it, so a test sees the error a user's handler would (its
 * code, message and details), at the edges of each check.
 */
import { type ActorContext, actor, ErrorCode, effect, isBatonError, workflow } from '@baton/core';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { answered, setup } from './helpers.ts';

type Ctx = ActorContext<{ n: number }>;

const Noted = effect({
  name: 'noted',
  payload: z.object({ text: z.string() }),
  run: async () => {},
});

const Target = actor({
  name: 'target',
  state: z.object({}),
  initial: () => ({}),
  handlers: {
    take: { payload: z.object({ text: z.string() }), handle: () => {} },
  },
});

const to = Target.ref('t');

const Greet = workflow({
  name: 'greet',
  input: z.object({ name: z.string() }),
  run: async (_ctx, { name }) => `hello ${name}`,
});

/** A text payload whose JSON is exactly `bytes` long: `{"text":"…"}` is 11 bytes around it. */
const ofSize = (bytes: number) => ({ text: 'x'.repeat(bytes - 11) });

/** The cases, by name: each calls `ctx` as a handler might. */
const cases: Record<string, (ctx: Ctx) => unknown> = {
  'effect: not a definition': (ctx) => ctx.effect({} as never, {} as never),
  'effect: nothing': (ctx) => ctx.effect(undefined as never, {} as never),
  'start: not a definition': (ctx) => ctx.start({} as never, 'w1', {} as never),
  'start: nothing': (ctx) => ctx.start(undefined as never, 'w1', {} as never),
  'start: a workflow kind without ref': (ctx) =>
    ctx.start({ kind: 'workflow', ref: 'w' } as never, 'w1', {} as never),
  'start: a ref of another kind': (ctx) =>
    ctx.start({ kind: 'actor', ref: () => to } as never, 'w1', {} as never),
  'ask: no options': (ctx) => ctx.ask(to, 'take', { text: 'a' }, undefined as never),
  'ask: onReply not a handler': (ctx) =>
    ctx.ask(to, 'take', { text: 'a' }, { onReply: 'nope' } as never),
  'ask: onReply inherited': (ctx) =>
    ctx.ask(to, 'take', { text: 'a' }, { onReply: 'toString' } as never),
  'ask: timeout 0': (ctx) => askWithin(ctx, 0),
  'ask: timeout NaN': (ctx) => askWithin(ctx, Number.NaN),
  'ask: timeout Infinity': (ctx) => askWithin(ctx, Number.POSITIVE_INFINITY),
  'ask: timeout as text': (ctx) => askWithin(ctx, '5' as never),
  'ask: timeout 1': (ctx) => askWithin(ctx, 1),
  'ask: a context JSON cannot hold': (ctx) =>
    ctx.ask(to, 'take', { text: 'a' }, { onReply: 'answer', context: { n: 1n } } as never),
  'ask: a context over the limit': (ctx) =>
    ctx.ask(to, 'take', { text: 'a' }, { onReply: 'answer', context: 'c'.repeat(1000) } as never),
  'ask: two in one handling': (ctx) => [
    ctx.ask(to, 'take', { text: 'a' }, { onReply: 'answer' } as never).id,
    ctx.ask(to, 'take', { text: 'b' }, { onReply: 'answer' } as never).id,
  ],
  'send: at the limit': (ctx) => ctx.send(to, 'take', ofSize(1000)),
  'send: one byte over': (ctx) => ctx.send(to, 'take', ofSize(1001)),
  'ask: one byte over': (ctx) => ctx.ask(to, 'take', ofSize(1001), { onReply: 'answer' } as never),
  'effect: one byte over': (ctx) => ctx.effect(Noted, ofSize(1001)),
  'schedule: one byte over': (ctx) => ctx.schedule(1, 'tick', { pad: 'p'.repeat(1000) } as never),
  'schedule: a payload JSON cannot hold': (ctx) => ctx.schedule(1, 'answer', { pad: 1n } as never),
  'schedule: a Date its schema takes but JSON turns into text': (ctx) =>
    ctx.schedule(1, 'dated', { on: new Date(0) } as never),
  'send: a Date its schema takes but JSON turns into text': (ctx) =>
    ctx.send(Probe.ref('q'), 'dated', { on: new Date(0) }),
  'ask: a Date its schema takes but JSON turns into text': (ctx) =>
    ctx.ask(Probe.ref('q'), 'dated', { on: new Date(0) }, { onReply: 'answer' } as never),
  'send: a Map': (ctx) => ctx.send(Probe.ref('q'), 'answer', new Map([['a', 1]])),
  'send: a payload its schema refuses': (ctx) => ctx.send(to, 'take', { text: 5 } as never),
  'send: a message its target has no handler for': (ctx) => ctx.send(to, 'nope' as never, {}),
  'send: an actor type the app does not register': (ctx) =>
    ctx.send({ id: 'ghost/g', type: 'ghost', key: 'g' } as never, 'take', {}),
  'ask: a payload its schema refuses': (ctx) =>
    ctx.ask(to, 'take', { text: 5 } as never, { onReply: 'answer' } as never),
  'effect: a payload its schema refuses': (ctx) => ctx.effect(Noted, { text: 5 } as never),
  'schedule: a payload its schema refuses': (ctx) => ctx.schedule(1, 'tick', { pad: 5 } as never),
  'start: an input its schema refuses': (ctx) => ctx.start(Greet, 'g1', { name: 5 } as never),
  'schedule: in 0 ms': (ctx) => ctx.schedule(0, 'tick', { pad: '' } as never).at,
  'schedule: at a Date before now': (ctx) =>
    ctx.schedule(new Date(0), 'tick', { pad: '' } as never).at,
  'schedule: at an invalid Date': (ctx) =>
    ctx.schedule(new Date(Number.NaN), 'tick', { pad: '' } as never),
  'schedule: in NaN ms': (ctx) => ctx.schedule(Number.NaN, 'tick', { pad: '' } as never),
  'schedule: in -1 ms': (ctx) => ctx.schedule(-1, 'tick', { pad: '' } as never),
  // Past the latest time a Date holds: the timer could not be shown as a date.
  'schedule: in MAX_SAFE_INTEGER ms': (ctx) =>
    ctx.schedule(Number.MAX_SAFE_INTEGER, 'tick', { pad: '' } as never),
  'schedule: in "5" ms': (ctx) => ctx.schedule('5' as never, 'tick', { pad: '' } as never),
  'schedule: at nothing': (ctx) => ctx.schedule(undefined as never, 'tick', { pad: '' } as never),
  'schedule: two in one handling': (ctx) => [
    ctx.schedule(1, 'tick', { pad: '' } as never).id,
    ctx.schedule(1, 'tick', { pad: '' } as never).id,
  ],
  'cancel: nothing': (ctx) => ctx.cancel(undefined as never),
  'cancel: by handle': (ctx) => {
    const timer = ctx.schedule(5, 'tick', { pad: '' } as never);
    ctx.cancel(timer);
    return 'cancelled';
  },
  'taken apart': (ctx) => {
    const { send, schedule, cancel, now, uuid, log } = ctx;
    send(to, 'take', { text: 'a' });
    const timer = schedule(5, 'tick', { pad: '' } as never);
    cancel(timer);
    log.info('taken apart');
    return { in: timer.at - now(), uuid: uuid().length, same: ctx.send === send };
  },
  'own keys': (ctx) => Object.keys(ctx).sort(),
};

function askWithin(ctx: Ctx, timeoutMs: number) {
  return ctx.ask(to, 'take', { text: 'a' }, { onReply: 'answer', timeoutMs } as never).id;
}

const Probe = actor({
  name: 'probe',
  state: z.object({ n: z.number() }),
  initial: () => ({ n: 0 }),
  handlers: {
    run: {
      payload: z.object({ name: z.string() }),
      handle: (ctx, { name }) => {
        try {
          return { ok: cases[name]!(ctx as unknown as Ctx) ?? null };
        } catch (error) {
          if (!isBatonError(error)) return { thrown: String(error) };
          return { code: error.code, message: error.message, details: error.details };
        }
      },
    },
    answer: { payload: z.unknown(), handle: () => {} },
    tick: { payload: z.object({ pad: z.string() }), handle: () => {} },
    dated: { payload: z.object({ on: z.date() }), handle: () => {} },
  },
});

type Outcome =
  | { ok: unknown }
  | { code: string; message: string; details: Record<string, unknown> }
  | { thrown: string };

async function run(name: string): Promise<Outcome> {
  // maxItemBytes 2,000: a payload may take half of an item, 1,000 bytes.
  const h = setup({
    actors: [Probe, Target, Greet.actor],
    effects: [Noted],
    limits: { maxItemBytes: 2_000 },
  });
  return (await answered(h, h.client.ask(Probe.ref('p'), 'run', { name }))) as Outcome;
}

const refused = (code: string, message: string | RegExp) =>
  expect.objectContaining({
    code,
    message: typeof message === 'string' ? message : expect.stringMatching(message),
  });

/** Who made the call, as a refusal of it names them: the probe's `run` handler. */
const sentBy = { actor: 'probe/p', handler: 'run' };

describe("a handler's ctx", () => {
  it('refuses what is not a registered definition in ctx.effect and ctx.start, as INVALID_ARGUMENT', async () => {
    const effectMisuse = refused(
      ErrorCode.INVALID_ARGUMENT,
      'in handler "run" of probe/p: ctx.effect(effect, payload) takes an effect() or webhook() definition the app registers',
    );
    expect(await run('effect: not a definition')).toEqual(effectMisuse);
    expect(await run('effect: nothing')).toEqual(effectMisuse);
    expect(await run('effect: nothing')).toMatchObject({ details: { sentBy } });
    const startMisuse = refused(
      ErrorCode.INVALID_ARGUMENT,
      'in handler "run" of probe/p: ctx.start(workflow, id, input) takes a workflow() definition the app registers',
    );
    for (const name of [
      'start: not a definition',
      'start: nothing',
      'start: a workflow kind without ref',
      'start: a ref of another kind',
    ]) {
      expect(await run(name), name).toEqual(startMisuse);
    }
  });

  it("refuses an ask whose onReply is not one of the actor's own handlers", async () => {
    const handlers = 'it has: run, answer, tick, dated';
    expect(await run('ask: no options')).toEqual(
      refused(
        ErrorCode.INVALID_ARGUMENT,
        `in handler "run" of probe/p: ctx.ask(…, { onReply }) must name a handler of probe to receive the reply, got undefined (${handlers})`,
      ),
    );
    expect(await run('ask: onReply not a handler')).toEqual(
      refused(ErrorCode.INVALID_ARGUMENT, /got "nope" \(it has: run, answer, tick, dated\)$/),
    );
    expect(await run('ask: onReply inherited')).toEqual(
      refused(ErrorCode.INVALID_ARGUMENT, /got "toString"/),
    );
  });

  it('takes an ask timeout of any finite number of ms above 0, and refuses others', async () => {
    expect(await run('ask: timeout 1')).toEqual({ ok: expect.any(String) });
    for (const [name, shown] of [
      ['ask: timeout 0', '0'],
      ['ask: timeout NaN', 'NaN'],
      ['ask: timeout Infinity', 'Infinity'],
      ['ask: timeout as text', '5'],
    ]) {
      expect(await run(name!), name).toEqual(
        refused(
          ErrorCode.INVALID_ARGUMENT,
          `in handler "run" of probe/p: ctx.ask(…, { timeoutMs }) must be a number of ms > 0, got ${shown}`,
        ),
      );
    }
  });

  it("refuses an ask's context that JSON cannot hold, or that is over the payload limit", async () => {
    expect(await run('ask: a context JSON cannot hold')).toEqual(
      refused(
        ErrorCode.INVALID_PAYLOAD,
        /^in handler "run" of probe\/p: the context of an ask answered by "answer" must be JSON, as it is stored: /,
      ),
    );
    const over = await run('ask: a context over the limit');
    expect(over).toEqual(
      refused(
        ErrorCode.MESSAGE_TOO_LARGE,
        /^in handler "run" of probe\/p: payload of "answer" as the context of an ask is \d+ bytes; the limit is 1000: store large data elsewhere and send a reference$/,
      ),
    );
    expect((over as { details: object }).details).toEqual({
      name: 'answer',
      size: expect.any(Number),
      limit: 1000,
      sentBy,
    });
  });

  it('gives each ask and each timer of one handling an id of its own', async () => {
    const asks = (await run('ask: two in one handling')) as { ok: string[] };
    const timers = (await run('schedule: two in one handling')) as { ok: string[] };
    const ids = [...asks.ok, ...timers.ok];
    expect(new Set(ids).size).toBe(4);
  });

  it('takes a payload of exactly the limit and refuses one byte more, naming what, where and the handler that sent it', async () => {
    expect(await run('send: at the limit')).toEqual({ ok: null });
    const over = (size: number) =>
      `is ${size} bytes; the limit is 1000: store large data elsewhere and send a reference`;
    const inRun = 'in handler "run" of probe/p:';
    expect(await run('send: one byte over')).toEqual({
      code: ErrorCode.MESSAGE_TOO_LARGE,
      message: `${inRun} payload of "take" to target/t ${over(1001)}`,
      details: { to: 'target/t', name: 'take', size: 1001, limit: 1000, sentBy },
    });
    expect(await run('ask: one byte over')).toEqual(
      refused(ErrorCode.MESSAGE_TOO_LARGE, `${inRun} payload of "take" to target/t ${over(1001)}`),
    );
    expect(await run('effect: one byte over')).toEqual({
      code: ErrorCode.MESSAGE_TOO_LARGE,
      message: `${inRun} payload of "noted" for effect noted ${over(1001)}`,
      details: { name: 'noted', size: 1001, limit: 1000, sentBy },
    });
    expect(await run('schedule: one byte over')).toEqual(
      refused(
        ErrorCode.MESSAGE_TOO_LARGE,
        /^in handler "run" of probe\/p: payload of "tick" scheduled is 1010 bytes; the limit is 1000/,
      ),
    );
  });

  it('refuses a timer payload that JSON cannot hold, or that changes once stored, as INVALID_PAYLOAD', async () => {
    expect(await run('schedule: a payload JSON cannot hold')).toEqual(
      refused(
        ErrorCode.INVALID_PAYLOAD,
        /^in handler "run" of probe\/p: the payload of timer "answer" must be JSON, as it is stored: /,
      ),
    );
    const dated = await run('schedule: a Date its schema takes but JSON turns into text');
    expect(dated).toEqual(
      refused(
        ErrorCode.INVALID_PAYLOAD,
        /^in handler "run" of probe\/p: the payload of timer "dated" passes its schema but not once stored as JSON, as its receiver reads it \(a Date becomes an ISO string.*z\.coerce\.date\(\).* invalid payload for probe\/p "dated": payload\.on: /,
      ),
    );
    expect((dated as { details: object }).details).toMatchObject({
      name: 'dated',
      sentBy: { actor: 'probe/p', handler: 'run' },
    });
  });

  it('refuses at ctx.send, ctx.ask and the client what its receiver would refuse once stored as JSON', async () => {
    for (const name of [
      'send: a Date its schema takes but JSON turns into text',
      'ask: a Date its schema takes but JSON turns into text',
    ]) {
      expect(await run(name)).toEqual(
        refused(
          ErrorCode.INVALID_PAYLOAD,
          /^in handler "run" of probe\/p: the payload of "dated" to probe\/q passes its schema but not once stored as JSON, as its receiver reads it \(a Date becomes an ISO string.* invalid payload for probe\/q "dated": payload\.on: /,
        ),
      );
    }
    expect(await run('send: a Map')).toEqual(
      refused(
        ErrorCode.INVALID_PAYLOAD,
        /^in handler "run" of probe\/p: the payload of "answer" to probe\/q must be JSON, as it is stored: a Map is not JSON/,
      ),
    );
    const h = setup({ actors: [Probe, Target], effects: [Noted] });
    await expect(
      h.client.send(Probe.ref('c'), 'dated', { on: new Date(0) } as never),
    ).rejects.toMatchObject({
      code: ErrorCode.INVALID_PAYLOAD,
      message: expect.stringMatching(
        /^the payload of "dated" to probe\/c passes its schema but not/,
      ),
    });
    // As given, a payload that fails gets its own error.
    await expect(
      h.client.send(Probe.ref('c'), 'dated', { on: 'soon' } as never),
    ).rejects.toMatchObject({
      code: ErrorCode.INVALID_PAYLOAD,
      message: expect.stringMatching(/^invalid payload for probe\/c "dated": payload\.on: /),
    });
  });

  it('names the handler that sent a payload its schema refuses, in the message and in details.sentBy', async () => {
    const sentBy = { actor: 'probe/p', handler: 'run' };
    const wrong = 'Invalid input: expected string, received number';
    const issues = (path: string) => [{ path, message: wrong }];
    const refusedSend = {
      code: ErrorCode.INVALID_PAYLOAD,
      message: `in handler "run" of probe/p: invalid payload for target/t "take": payload.text: ${wrong}`,
      details: { to: 'target/t', name: 'take', sentBy, issues: issues('payload.text') },
    };
    expect(await run('send: a payload its schema refuses')).toEqual(refusedSend);
    expect(await run('ask: a payload its schema refuses')).toEqual(refusedSend);
    expect(await run('effect: a payload its schema refuses')).toEqual({
      code: ErrorCode.INVALID_PAYLOAD,
      message: `in handler "run" of probe/p: invalid payload for effect "noted": payload.text: ${wrong}`,
      details: { effect: 'noted', sentBy, issues: issues('payload.text') },
    });
    expect(await run('schedule: a payload its schema refuses')).toEqual({
      code: ErrorCode.INVALID_PAYLOAD,
      message: `in handler "run" of probe/p: invalid payload for probe/p "tick": payload.pad: ${wrong}`,
      details: { to: 'probe/p', name: 'tick', sentBy, issues: issues('payload.pad') },
    });
    expect(await run('start: an input its schema refuses')).toEqual({
      code: ErrorCode.INVALID_PAYLOAD,
      message: `in handler "run" of probe/p: invalid payload for wf-greet/g1 "start": payload.input.name: ${wrong}`,
      details: { to: 'wf-greet/g1', name: 'start', sentBy, issues: issues('payload.input.name') },
    });
    // What JSON cannot hold names the handler too, in its details as well.
    expect(await run('send: a Map')).toMatchObject({ details: { sentBy } });
    expect(await run('ask: a context JSON cannot hold')).toMatchObject({ details: { sentBy } });
  });

  it('names the handler that sent to a message or an actor type the app does not know', async () => {
    const sentBy = { actor: 'probe/p', handler: 'run' };
    expect(await run('send: a message its target has no handler for')).toMatchObject({
      code: ErrorCode.UNKNOWN_MESSAGE,
      message: expect.stringMatching(/^in handler "run" of probe\/p: .*"nope"/),
      details: { sentBy },
    });
    expect(await run('send: an actor type the app does not register')).toMatchObject({
      code: ErrorCode.UNKNOWN_ACTOR,
      message: expect.stringMatching(/^in handler "run" of probe\/p: .*ghost/),
      details: { sentBy },
    });
  });

  it("leaves a client's refused payload as it was: no handler sent it", async () => {
    const h = setup({ actors: [Probe, Target], effects: [Noted] });
    const error = await h.client
      .send(Target.ref('t'), 'take', { text: 5 } as never)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: ErrorCode.INVALID_PAYLOAD,
      message:
        'invalid payload for target/t "take": payload.text: Invalid input: expected string, received number',
    });
    expect(Object.keys((error as { details: object }).details)).toEqual(['to', 'name', 'issues']);
  });

  it('schedules in 0 ms or at a past Date, and refuses NaN, a negative delay, one past the latest Date, an invalid Date and what is neither a number nor a Date', async () => {
    expect(await run('schedule: in 0 ms')).toEqual({ ok: expect.any(Number) });
    expect(await run('schedule: at a Date before now')).toEqual({ ok: 0 });
    expect(await run('schedule: at an invalid Date')).toEqual(
      refused(
        ErrorCode.INVALID_ARGUMENT,
        'in handler "run" of probe/p: ctx.schedule(when, …) needs a delay ≥ 0 ms or a valid Date, got Invalid Date',
      ),
    );
    expect(await run('schedule: in NaN ms')).toEqual(
      refused(
        ErrorCode.INVALID_ARGUMENT,
        'in handler "run" of probe/p: ctx.schedule(when, …) needs a delay ≥ 0 ms or a valid Date, got NaN',
      ),
    );
    for (const [name, shown] of [
      ['schedule: in -1 ms', '-1'],
      ['schedule: in MAX_SAFE_INTEGER ms', String(Number.MAX_SAFE_INTEGER)],
      ['schedule: in "5" ms', '"5"'],
      ['schedule: at nothing', 'undefined'],
    ]) {
      expect(await run(name!), name).toEqual(
        refused(
          ErrorCode.INVALID_ARGUMENT,
          `in handler "run" of probe/p: ctx.schedule(when, …) needs a delay ≥ 0 ms or a valid Date, got ${shown}`,
        ),
      );
    }
  });

  it('works taken apart (`const { send } = ctx`), and lists only its data as own keys', async () => {
    expect(await run('taken apart')).toEqual({ ok: { in: 5, uuid: 36, same: true } });
    expect(await run('own keys')).toEqual({ ok: ['caller', 'message', 'self', 'state'] });
  });

  it('refuses a call that would change the turn once the handler has returned, and the turn commits without it', async () => {
    let kept: ActorContext<{ n: number }> | undefined;
    const Late = actor({
      name: 'late',
      state: z.object({ n: z.number() }),
      initial: () => ({ n: 0 }),
      handlers: {
        go: {
          payload: z.object({}),
          handle: (ctx) => {
            ctx.state.n += 1;
            kept = ctx;
          },
        },
      },
    });
    const h = setup({ actors: [Late, Target] });
    await h.client.send(Late.ref('l'), 'go', {});
    await h.run();
    const late = {
      send: () => kept!.send(to, 'take', { text: 'late' }),
      schedule: () => kept!.schedule(1, 'go', {}),
      cancel: () => kept!.cancel('t1'),
      reply: () => kept!.reply('late'),
      halt: () => kept!.halt(),
      start: () => kept!.start(Greet, 'g1', { name: 'late' }),
      effect: () => kept!.effect(Noted, { text: 'late' }),
      ask: () => kept!.ask(to, 'take', { text: 'late' }, { onReply: 'go' } as never),
    };
    for (const [method, call] of Object.entries(late)) {
      expect(call, method).toThrow(
        expect.objectContaining({
          code: ErrorCode.INVALID_ARGUMENT,
          message:
            'ctx called after handler "go" of late/l returned did nothing: await each call before the handler returns',
        }),
      );
    }
    // What it may still do: read, and log.
    expect(kept!.now()).toBe(h.clock.now());
    expect(() => kept!.log.info('still logs')).not.toThrow();
    await h.run();
    expect(await h.state('late/l')).toEqual({ n: 1 });
    expect(await h.record('target/t')).toBeUndefined();
  });

  it('cancels a timer by its handle, and refuses to cancel nothing', async () => {
    expect(await run('cancel: by handle')).toEqual({ ok: 'cancelled' });
    expect(await run('cancel: nothing')).toEqual(
      refused(
        ErrorCode.INVALID_ARGUMENT,
        'in handler "run" of probe/p: a timer id must be a non-empty string of at most 256 characters, got undefined',
      ),
    );
  });
});
