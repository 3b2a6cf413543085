/**
 * Effects outside Baton: `ctx.effect` commits the request with the turn; a worker runs it at
 * least once, in order per asking actor, retried with backoff until it succeeds or the queue
 * dead-letters it — every run with the same idempotency key.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type AnyActorDefinition,
  type AnyEffectDefinition,
  actor,
  ErrorCode,
  effect,
  silentLogger,
  TerminalError,
  webhook,
} from '@baton/core';
import { ENVELOPE_FORMAT, encodeEnvelope } from '@baton/core/adapter';
import { createEngine, Worker } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { runUntilIdle, sentId, settled, setup } from './helpers.ts';

/** What each run of the `notify` effect saw, in order. */
const runs: Array<{ note: string; key: string; attempt: number }> = [];
/** How many times each note fails before it succeeds (Infinity: always). */
const failures = new Map<string, number>();

const Notify = effect({
  name: 'notify',
  payload: z.object({ note: z.string() }),
  run: async ({ note }, { idempotencyKey, attempt }) => {
    runs.push({ note, key: idempotencyKey, attempt });
    if (attempt <= (failures.get(note) ?? 0))
      throw new Error(`${note} fails on attempt ${attempt}`);
  },
});

const User = actor({
  name: 'user',
  state: z.object({ notes: z.number() }),
  initial: () => ({ notes: 0 }),
  handlers: {
    note: {
      payload: z.object({ note: z.string(), refuse: z.boolean().optional() }),
      handle: (ctx, { note, refuse }) => {
        ctx.effect(Notify, { note });
        ctx.state.notes++;
        if (refuse) throw new TerminalError('refused after asking for the effect');
      },
    },
    misuse: {
      payload: z.object({ how: z.enum(['payload', 'unknown', 'not an effect']) }),
      handle: (ctx, { how }) => {
        const ask = ctx.effect as (...args: unknown[]) => void;
        if (how === 'payload') ask(Notify, { note: 5 });
        else if (how === 'unknown')
          ask(effect({ name: 'unregistered', payload: z.object({}), run: async () => {} }), {});
        else ask('notify', { note: 'x' });
      },
    },
  },
});

/** The engine harness with `effects` registered, and a worker that polls until all is done. */
async function start(
  actors: readonly AnyActorDefinition[],
  effects: readonly AnyEffectDefinition[],
) {
  runs.length = 0;
  failures.clear();
  const h = setup({ actors });
  const engine = createEngine({
    actors,
    effects,
    store: h.backend.store,
    queue: h.backend.queue,
    clock: h.clock,
    logger: silentLogger,
  });
  const worker = new Worker(engine);
  return { ...h, run: () => runUntilIdle(worker, h.backend, h.clock) };
}

describe('effects', () => {
  it('run once after the commit, with the actor and its sequence number as the key', async () => {
    const h = await start([User], [Notify]);
    await h.client.send(User.ref('ada'), 'note', { note: 'hello' });
    await h.client.send(User.ref('ada'), 'note', { note: 'refused', refuse: true });
    await h.run();
    const key = await sentId(h, 'user/ada', 1);
    expect(key).toMatch(/^user\/ada:[0-9a-z]{12}\.1$/);
    expect(runs).toEqual([{ note: 'hello', key, attempt: 1 }]);
  });

  it('are retried with the same key until they succeed, in order per actor, not holding up others', async () => {
    const h = await start([User], [Notify]);
    failures.set('first', 2);
    await h.client.send(User.ref('ada'), 'note', { note: 'first' });
    await h.client.send(User.ref('ada'), 'note', { note: 'second' });
    await h.client.send(User.ref('bob'), 'note', { note: 'other actor' });
    await h.run();
    const of = (note: string) => runs.filter((r) => r.note === note);
    expect(of('first').map((r) => r.attempt)).toEqual([1, 2, 3]);
    const key = (seq: number) => sentId(h, 'user/ada', seq);
    expect(new Set(of('first').map((r) => r.key))).toEqual(new Set([await key(1)]));
    // Run once, after the first succeeded (its attempt counts the deliveries it waited through).
    expect(of('second').map((r) => r.key)).toEqual([await key(2)]);
    const order = runs.map((r) => `${r.note}#${r.attempt}`);
    expect(order.indexOf('second#3')).toBeGreaterThan(order.indexOf('first#3'));
    // bob's effect did not wait for ada's.
    expect(order.indexOf('other actor#1')).toBeLessThan(order.indexOf('first#3'));
  });

  it("end in the queue's dead-letter queue when they keep failing", async () => {
    const h = await start([User], [Notify]);
    failures.set('doomed', Number.POSITIVE_INFINITY);
    await h.client.send(User.ref('ada'), 'note', { note: 'doomed' });
    await h.run();
    const dead = h.backend.queue.deadLetters();
    expect(dead).toHaveLength(1);
    expect(JSON.parse(dead[0]!.body)).toMatchObject({
      to: '$effect/notify',
      id: await sentId(h, 'user/ada', 1),
    });
    expect(runs.length).toBeGreaterThan(1);
  });

  it('refuse an invalid payload or an effect the app does not register, in the handler, keeping its message for a fix', async () => {
    const h = await start([User], [Notify]);
    const cases = [
      ['payload', ErrorCode.INVALID_PAYLOAD],
      ['unknown', ErrorCode.UNKNOWN_MESSAGE],
      ['not an effect', ErrorCode.INVALID_ARGUMENT],
    ] as const;
    for (const [how, code] of cases) {
      const asked = settled(h.client.ask(User.ref('ada'), 'misuse', { how }));
      await h.run();
      const result = await asked;
      expect(result.ok, how).toBe(false);
      expect((result as { error: unknown }).error, how).toMatchObject({
        code: ErrorCode.DEAD_LETTERED,
        details: { cause: { code, details: { sentBy: { actor: 'user/ada', handler: 'misuse' } } } },
      });
    }
    expect(runs).toEqual([]);
    expect(await h.backend.store.listDeadLetters('user/ada')).toHaveLength(cases.length);
  });

  it('are not run from a request a newer Baton wrote (a newer envelope format): it is retried, unrun, until the queue dead-letters it', async () => {
    const h = await start([User], [Notify]);
    const request = {
      ...{ id: 'user/ada:newerbaton01.1', from: 'user/ada', seq: 1, to: '$effect/notify' },
      ...{ name: 'notify', payload: { note: 'new' }, sentAt: h.clock.now() },
    };
    const send = (format: number) =>
      h.backend.queue.send([
        {
          // An effect's group: the effect, and the actor that asked for it.
          group: '$effect/notify/user/ada',
          dedupeId: `${request.id}-${format}`,
          body: encodeEnvelope({ ...request, format }),
        },
      ]);
    await send(ENVELOPE_FORMAT + 1);
    await h.run();
    expect(runs).toEqual([]);
    expect(h.backend.queue.deadLetters().map((m) => JSON.parse(m.body).format)).toEqual([
      ENVELOPE_FORMAT + 1,
    ]);
    // Its format said outright, the same request runs.
    await send(ENVELOPE_FORMAT);
    await h.run();
    expect(runs.map((r) => r.note)).toEqual(['new']);
  });

  it('include webhook(), which POSTs JSON with the idempotency key and retries until a 2xx', async () => {
    const seen: Array<{ key: string | undefined; body: string }> = [];
    const server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        seen.push({ key: request.headers['idempotency-key'] as string | undefined, body });
        response.writeHead(seen.length === 1 ? 503 : 204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const Hook = webhook({
        name: 'hook',
        url: `http://127.0.0.1:${port}/paid`,
        payload: z.object({ order: z.string() }),
      });
      const Shop = actor({
        name: 'shop',
        state: z.object({}),
        initial: () => ({}),
        handlers: {
          pay: {
            payload: z.object({ order: z.string() }),
            handle: (ctx, { order }) => ctx.effect(Hook, { order }),
          },
        },
      });
      const h = await start([Shop], [Hook]);
      await h.client.send(Shop.ref('s'), 'pay', { order: 'o-7' });
      await h.run();
      const key = await sentId(h, 'shop/s', 1);
      expect(seen).toEqual([
        { key, body: '{"order":"o-7"}' },
        { key, body: '{"order":"o-7"}' },
      ]);
    } finally {
      server.close();
    }
  });
});
