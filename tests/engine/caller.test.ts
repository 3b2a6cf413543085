/**
 * `ctx.caller` in handlers, on the embedded backend: the caller a host names for a request from
 * outside (a user's identity, an IAM principal, nobody), trusted code, the actor that sent a
 * message and a timer's fire; and a `Client` that speaks for an outside caller cannot send an
 * internal handler unless it says it is trusted code (`asSystem`). The caller never shows in clear
 * in message ids or logs.
 */
import { actor, type Caller, callerOf, ErrorCode, jsonLogger, TerminalError } from '@baton/core';
import { Client } from '@baton/core/client';
import { fireDueTimers } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { answered, setup } from './helpers.ts';

const Tag = z.object({ tag: z.string() });

/** Writes down who sent each message. */
const Witness = actor({
  name: 'witness',
  state: z.object({ seen: z.array(z.object({ tag: z.string(), caller: z.unknown() })) }),
  initial: () => ({ seen: [] as { tag: string; caller: unknown }[] }),
  handlers: {
    note: {
      public: true,
      payload: Tag,
      handle: (ctx, { tag }) => {
        ctx.state.seen.push({ tag, caller: ctx.caller });
      },
    },
    // Internal: only actors, timers and trusted code send it.
    record: {
      payload: Tag,
      handle: (ctx, { tag }) => {
        ctx.state.seen.push({ tag, caller: ctx.caller });
      },
    },
    /** Logs, then fails as asked: retried until dead-lettered, or rejected at once. */
    fail: {
      public: true,
      payload: z.object({ how: z.enum(['retry', 'reject']) }),
      handle: (ctx, { how }) => {
        ctx.log.info('about to fail', { how });
        if (how === 'retry') throw new Error('boom');
        throw new TerminalError('refused');
      },
    },
    remind: {
      payload: Tag,
      handle: (ctx, { tag }) => ctx.schedule(1_000, 'record', { tag }),
    },
  },
});

/** Tells a witness something: a message from an actor. */
const Sender = actor({
  name: 'sender',
  state: z.object({}),
  initial: () => ({}),
  handlers: {
    tell: {
      payload: z.object({ to: z.string(), tag: z.string() }),
      handle: (ctx, { to, tag }) => ctx.send(Witness.ref(to), 'record', { tag }),
    },
  },
});

const seen = async (h: ReturnType<typeof setup>, key: string) =>
  ((await h.state(Witness.ref(key).id)) as { seen: { tag: string; caller: Caller }[] } | undefined)
    ?.seen ?? [];

/** A client as a host holds it: it speaks for an outside caller unless told otherwise. */
const outsideClient = (h: ReturnType<typeof setup>) =>
  new Client({
    actors: [Witness, Sender],
    store: h.backend.store,
    queue: h.backend.queue,
    clock: h.clock,
  });

describe('ctx.caller', () => {
  it('is the caller the host named: a user’s identity, an IAM principal, nobody, or trusted code', async () => {
    const h = setup({ actors: [Witness, Sender] });
    const outside = outsideClient(h);
    const w = Witness.ref('w');
    const principal = 'arn:aws:iam::123456789012:role/ops';
    await outside.send(w, 'note', { tag: 'user' }, { caller: callerOf({ userId: 'alice' }) });
    await outside.send(w, 'note', { tag: 'iam' }, { caller: { kind: 'iam', principal } });
    await outside.send(w, 'note', { tag: 'nobody' });
    await h.client.send(w, 'note', { tag: 'system' });
    await h.run();
    expect(await seen(h, 'w')).toEqual([
      { tag: 'user', caller: { kind: 'user', identity: { userId: 'alice' } } },
      { tag: 'iam', caller: { kind: 'iam', principal } },
      { tag: 'nobody', caller: { kind: 'anonymous' } },
      { tag: 'system', caller: { kind: 'system' } },
    ]);
  });

  it('is the sending actor for a message from an actor, and a timer for a timer’s fire', async () => {
    const h = setup({ actors: [Witness, Sender] });
    await answered(h, h.client.ask(Sender.ref('a'), 'tell', { to: 'b', tag: 'from a' }));
    await answered(h, h.client.ask(Witness.ref('b'), 'remind', { tag: 'later' }));
    h.clock.advance(1_000);
    expect(await fireDueTimers(h.engine, h.clock.now())).toBe(1);
    await h.run();
    expect(await seen(h, 'b')).toEqual([
      { tag: 'from a', caller: { kind: 'actor', actor: 'sender/a' } },
      { tag: 'later', caller: { kind: 'timer' } },
    ]);
  });

  it('keeps internal handlers from a client that speaks for an outside caller, saying how trusted code sends them', async () => {
    const h = setup({ actors: [Witness, Sender] });
    const outside = outsideClient(h);
    const w = Witness.ref('w');
    for (const caller of [undefined, callerOf({ userId: 'alice' })]) {
      const refused = outside.send(w, 'record', { tag: 'x' }, caller ? { caller } : {});
      await expect(refused).rejects.toMatchObject({ code: ErrorCode.FORBIDDEN });
      await expect(refused).rejects.toThrow(
        /no public handler "record" \(clients may send: note, fail\)/,
      );
    }
    await expect(outside.send(w, 'record', { tag: 'x' })).rejects.toThrow(
      /client\.asSystem\(\)\.send/,
    );
    expect(await h.run()).toBe(0); // nothing was enqueued
    expect(await h.state(w.id)).toBeUndefined();
    // Trusted code says so: the same message is sent and applied.
    await outside.asSystem().send(w, 'record', { tag: 'trusted' });
    await h.run();
    expect(await seen(h, 'w')).toEqual([{ tag: 'trusted', caller: { kind: 'system' } }]);
  });

  it("tells a client that spoke as nobody by default so when a handler's authorize refuses it", async () => {
    const Vault = actor({
      name: 'vault',
      state: z.object({}),
      initial: () => ({}),
      handlers: {
        open: {
          public: true,
          payload: z.object({}),
          authorize: (caller) => caller.kind === 'user',
          handle: () => {},
        },
      },
    });
    const h = setup({ actors: [Vault] });
    const outside = new Client({ actors: [Vault], store: h.backend.store, queue: h.backend.queue });
    const refusal = /^not allowed: this caller may not send "open" to vault\/v/;
    await expect(outside.send(Vault.ref('v'), 'open', {})).rejects.toMatchObject({
      code: ErrorCode.FORBIDDEN,
      message: expect.stringMatching(
        /; this Client speaks for an anonymous caller: trusted server code .*client\.asSystem\(\)/,
      ),
    });
    await expect(outside.send(Vault.ref('v'), 'open', {})).rejects.toThrow(refusal);
    // A caller the host named is told the refusal alone.
    const named = outside.send(Vault.ref('v'), 'open', {}, { caller: { kind: 'anonymous' } });
    await expect(named).rejects.toThrow(new RegExp(`${refusal.source}$`));
    expect(await h.run()).toBe(0);
  });

  it('never appears in clear in message ids or log lines, which carry its digest', async () => {
    const lines: string[] = [];
    const logger = jsonLogger({ level: 'debug', write: (line) => lines.push(line) });
    const h = setup({ actors: [Witness, Sender], maxAttempts: 2, logger });
    const outside = outsideClient(h);
    const caller = callerOf({ userId: 'u-7f3e', email: 'alice@example.com' });
    const ids: string[] = [];
    for (const how of ['retry', 'reject'] as const) {
      const sent = await outside.send(Witness.ref('w'), 'fail', { how }, { caller });
      ids.push(sent.messageId);
    }
    await h.run();
    expect(await h.backend.store.listDeadLetters('witness/w')).toHaveLength(1);
    for (const id of ids) {
      expect(id).not.toMatch(/u-7f3e|alice/);
      // The handler's own lines, the retry, the rejection and the dead letter name the message.
      expect(
        lines.filter((line) => line.includes(JSON.stringify(id).slice(1, -1))).length,
      ).toBeGreaterThan(1);
    }
    expect(lines.filter((line) => /u-7f3e|alice/.test(line))).toEqual([]);
  });
});
