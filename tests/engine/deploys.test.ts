/**
 * Rolling deploys: old and new code run side by side on one store and one inbox. What the old
 * code does not know yet — a message name, an actor type, a payload its schema refuses — waits
 * and is kept as a dead letter, which a redrive applies exactly once when the new code runs.
 */
import { type AnyActorDefinition, actor, ErrorCode, silentLogger } from '@baton/core';
import { Client } from '@baton/core/client';
import { createEngine, fireDueTimers, redriveDeadLetter, Worker } from '@baton/core/engine';
import { createEmbeddedBackend } from '@baton/embedded';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { runUntilIdle, virtualClock } from './helpers.ts';

/** One embedded backend, and a worker and a client for any version of the app's code. */
function deployment() {
  const clock = virtualClock();
  const backend = createEmbeddedBackend({ clock });
  const deploy = (actors: readonly AnyActorDefinition[]) => {
    const engine = createEngine({
      actors,
      store: backend.store,
      queue: backend.queue,
      clock,
      logger: silentLogger,
    });
    const worker = new Worker(engine);
    const client = new Client({
      actors,
      store: backend.store,
      queue: backend.queue,
      clock,
    }).asSystem();
    return { client, engine, run: () => runUntilIdle(worker, backend, clock) };
  };
  /** Redrives every dead letter `actorId` keeps. */
  const redriveAll = async (actorId: string) => {
    const letters = await backend.store.listDeadLetters(actorId);
    for (const letter of letters) {
      await redriveDeadLetter(backend.store, backend.queue, actorId, letter.messageId);
    }
    return letters.length;
  };
  return { backend, clock, deploy, redriveAll };
}

/**
 * An account, in the version before a deploy and the version after it. Its state logs the id of
 * every message applied, so a test counts applications in what was committed (a handler may run
 * again when a turn is redone after a conflict; only one run commits).
 */
function accounts() {
  const state = z.object({ balance: z.number(), closed: z.boolean(), log: z.array(z.string()) });
  type State = z.infer<typeof state>;
  const initial = (): State => ({ balance: 0, closed: false, log: [] });
  const deposit = (amount: z.ZodType<number>) => ({
    payload: z.object({ amount }),
    handle: (ctx: { state: State; message: { id: string } }, p: { amount: number }) => {
      ctx.state.log.push(ctx.message.id);
      ctx.state.balance += p.amount;
    },
  });
  const Old = actor({
    name: 'account',
    state,
    initial,
    handlers: { deposit: deposit(z.number().int()) },
  });
  const New = actor({
    name: 'account',
    state,
    initial,
    handlers: {
      // The new code accepts cents as well.
      deposit: deposit(z.number()),
      close: {
        payload: z.object({}),
        handle: (ctx) => {
          ctx.state.log.push(ctx.message.id);
          ctx.state.closed = true;
        },
      },
      remind: {
        payload: z.object({ note: z.string() }),
        handle: (ctx) => {
          ctx.state.log.push(ctx.message.id);
          ctx.schedule(60_000, 'close', {});
        },
      },
    },
  });
  return { Old, New };
}

/** How many times each message id was applied, as committed. */
function applications(state: unknown): number[] {
  const counts = new Map<string, number>();
  for (const id of (state as { log: string[] }).log) counts.set(id, (counts.get(id) ?? 0) + 1);
  return [...counts.values()];
}

describe('a rolling deploy', () => {
  it('keeps a message name only the new code handles as a dead letter on the old code, and applies it once when redriven on the new', async () => {
    const { Old, New } = accounts();
    const { backend, deploy, redriveAll } = deployment();
    const before = deploy([Old]);
    const after = deploy([New]);
    await after.client.send(New.ref('a'), 'deposit', { amount: 5 });
    const { messageId } = await after.client.send(New.ref('a'), 'close', {});
    await after.client.send(New.ref('a'), 'deposit', { amount: 2 });
    await before.run();

    expect((await backend.store.load('account/a'))?.state).toMatchObject({
      balance: 7,
      closed: false,
    });
    expect(await backend.store.listDeadLetters('account/a')).toMatchObject([
      { messageId, error: { code: ErrorCode.DEAD_LETTERED } },
    ]);
    expect(backend.queue.deadLetters()).toEqual([]);

    expect(await redriveAll('account/a')).toBe(1);
    await after.run();
    const { state } = (await backend.store.load('account/a'))!;
    expect(state).toMatchObject({ balance: 7, closed: true });
    expect(applications(state)).toEqual([1, 1, 1]);
    expect(await backend.store.listDeadLetters('account/a')).toEqual([]);
  });

  it('keeps a message to an actor type only the new code has as a dead letter on the old code, and applies it once on the new', async () => {
    const { Old, New } = accounts();
    const Vault = actor({
      name: 'vault',
      state: z.object({ items: z.array(z.string()) }),
      initial: () => ({ items: ['seed'] }),
      handlers: {
        store: {
          payload: z.object({ item: z.string() }),
          handle: (ctx, { item }) => {
            ctx.state.items.push(item);
          },
        },
      },
    });
    const { backend, deploy, redriveAll } = deployment();
    const before = deploy([Old]);
    const after = deploy([New, Vault]);
    await after.client.send(Vault.ref('v'), 'store', { item: 'gold' });
    await before.run();

    expect(backend.queue.deadLetters()).toEqual([]);
    expect(await backend.store.listDeadLetters('vault/v')).toHaveLength(1);
    expect((await backend.store.load('vault/v'))?.state).toBeNull();

    await redriveAll('vault/v');
    await after.run();
    // The record the old code kept the dead letter in held no state: the new code starts from
    // the type's initial state.
    expect((await backend.store.load('vault/v'))?.state).toEqual({ items: ['seed', 'gold'] });
  });

  it('keeps a payload the old schema refuses but the new one accepts as a dead letter, and applies it once on the new code', async () => {
    const { Old, New } = accounts();
    const { backend, deploy, redriveAll } = deployment();
    const before = deploy([Old]);
    const after = deploy([New]);
    await after.client.send(New.ref('a'), 'deposit', { amount: 2.5 });
    await before.run();

    expect(await backend.store.listDeadLetters('account/a')).toMatchObject([
      { error: { details: { cause: { details: { cause: { code: 'INVALID_PAYLOAD' } } } } } },
    ]);
    await redriveAll('account/a');
    await after.run();
    const { state } = (await backend.store.load('account/a'))!;
    expect(state).toMatchObject({ balance: 2.5, closed: false });
    expect(applications(state)).toEqual([1]);
  });

  it.each([
    ['z.object', 'applies it without the field'],
    ['z.strictObject', 'keeps it as a dead letter, applied once with the field on the new code'],
  ] as const)('given a new optional field, an old %s schema %s', async (kind, _what) => {
    // The old code's note has a text; the new code's may carry who wrote it.
    const notes = (fields: z.ZodRawShape) =>
      actor({
        name: 'notebook',
        state: z.object({ notes: z.array(z.unknown()) }),
        initial: () => ({ notes: [] as unknown[] }),
        handlers: {
          note: {
            payload: kind === 'z.object' ? z.object(fields) : z.strictObject(fields),
            handle: (ctx, payload) => void ctx.state.notes.push(payload),
          },
        },
      });
    const Old = notes({ text: z.string() });
    const New = notes({ text: z.string(), by: z.string().optional() });
    const { backend, deploy, redriveAll } = deployment();
    const before = deploy([Old]);
    const after = deploy([New]);
    await after.client.send(New.ref('n'), 'note', { text: 'hi', by: 'ann' });
    await before.run();
    const notesOf = async () =>
      ((await backend.store.load('notebook/n'))?.state as { notes?: unknown[] } | null)?.notes;

    if (kind === 'z.object') {
      expect(await notesOf()).toEqual([{ text: 'hi' }]);
      expect(await backend.store.listDeadLetters('notebook/n')).toEqual([]);
      return;
    }
    expect(await notesOf()).toEqual([]);
    expect(await redriveAll('notebook/n')).toBe(1);
    await after.run();
    expect(await notesOf()).toEqual([{ text: 'hi', by: 'ann' }]);
  });

  it('keeps the fire of a timer the new code scheduled for a handler the old code lacks, and applies it once on the new', async () => {
    const { Old, New } = accounts();
    const { backend, clock, deploy, redriveAll } = deployment();
    const before = deploy([Old]);
    const after = deploy([New]);
    await after.client.send(New.ref('a'), 'remind', { note: 'close soon' });
    await after.run();
    // The timer falls due while only the old code runs.
    clock.advance(60_000);
    expect(await fireDueTimers(before.engine, clock.now())).toBe(1);
    await before.run();
    const letters = await backend.store.listDeadLetters('account/a');
    expect(letters).toMatchObject([{ envelope: { name: 'close' } }]);

    await redriveAll('account/a');
    await after.run();
    const { state } = (await backend.store.load('account/a'))!;
    expect(state).toMatchObject({ closed: true });
    expect(applications(state)).toEqual([1, 1]);
  });
});
