/**
 * Rolling deploys: old and new code run side by side on one store and one inbox. What the old
 * code does not know yet — a message name, an actor type, a payload its schema refuses — waits
 * and is kept as a dead letter, which a redrive applies exactly once when the new code runs.
 */
import { type AnyActorDefinition, actor, ErrorCode, silentLogger } from '@baton/core';
import type { Store } from '@baton/core/adapter';
import { Client } from '@baton/core/client';
import {
  answeredSender,
  createEngine,
  fireDueTimers,
  purgeDeadLetter,
  redriveDeadLetter,
  shellQuote,
  Worker,
} from '@baton/core/engine';
import { createEmbeddedBackend } from '@baton/embedded';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { flush, runUntilIdle, settled, virtualClock } from './helpers.ts';

/**
 * One embedded backend, and a worker and a client for any version of the app's code. With
 * `polled`, the clients read outcomes as DynamoDB's store gives them: polled, never pushed.
 */
function deployment(options: { readonly maxReceives?: number; readonly polled?: boolean } = {}) {
  const clock = virtualClock();
  const backend = createEmbeddedBackend({
    clock,
    ...(options.maxReceives === undefined ? {} : { queue: { maxReceives: options.maxReceives } }),
  });
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
      store: options.polled ? withoutOutcomePush(backend.store) : backend.store,
      queue: backend.queue,
      clock,
    }).asSystem();
    return {
      client,
      engine,
      /** One batch, on this code. */
      poll: () => worker.poll(),
      run: () => runUntilIdle(worker, backend, clock),
    };
  };
  /** Redrives every dead letter `actorId` keeps: clients' sends, redriven without force. */
  const redriveAll = async (actorId: string) => {
    const letters = await backend.store.listDeadLetters(actorId);
    for (const letter of letters) {
      await redriveDeadLetter(backend.store, backend.queue, actorId, letter.messageId);
    }
    return letters.length;
  };
  return { backend, clock, deploy, redriveAll };
}

/** `store` without `watchOutcomes`, as DynamoDB's store is: a client polls for outcomes. */
function withoutOutcomePush(store: Store): Store {
  return new Proxy(store, {
    get: (target, prop) => {
      if (prop === 'watchOutcomes') return undefined;
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
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

/**
 * A teller that closes accounts, the same in both versions: by an ask, whose continuation logs
 * the outcome (and, told the close failed, pays the balance out another way), or by a plain send.
 */
function teller(Account: AnyActorDefinition) {
  return actor({
    name: 'teller',
    state: z.object({ log: z.array(z.string()) }),
    initial: () => ({ log: [] as string[] }),
    handlers: {
      close: {
        payload: z.object({ account: z.string() }),
        handle: (ctx, { account }) => {
          ctx.ask(Account.ref(account) as never, 'close' as never, {} as never, {
            onReply: 'closed',
          });
        },
      },
      closeLater: {
        payload: z.object({ account: z.string() }),
        handle: (ctx, { account }) => {
          ctx.send(Account.ref(account) as never, 'close' as never, {} as never);
        },
      },
      closed: {
        payload: z.custom<{ ok: boolean; error?: { code: string } }>(),
        handle: (ctx, reply) => {
          ctx.state.log.push(reply.ok ? 'closed' : `not closed: ${reply.error?.code}`);
        },
      },
    },
  });
}

describe('a redrive of a message whose sender was told it failed', () => {
  it("refuses an actor's ask that old code kept, whose asker was answered DEAD_LETTERED, unless forced: then it is applied once and the late reply dropped", async () => {
    const { Old, New } = accounts();
    const { backend, deploy } = deployment();
    const before = deploy([Old, teller(Old)]);
    const after = deploy([New, teller(New)]);
    // The teller's turn runs the new code (its ask passes the door), the account's the old.
    await after.client.send(teller(New).ref('t'), 'close', { account: 'a' });
    await after.poll();
    await before.run();
    const tellerLog = async () =>
      ((await backend.store.load('teller/t'))!.state as { log: string[] }).log;
    expect(await tellerLog()).toEqual([`not closed: ${ErrorCode.DEAD_LETTERED}`]);
    const [letter] = await backend.store.listDeadLetters('account/a');
    expect(answeredSender(letter!)).toMatch(/^its asker teller\/t: /);

    const refused = await redriveDeadLetter(
      backend.store,
      backend.queue,
      'account/a',
      letter!.messageId,
    ).catch((error: unknown) => error);
    expect(refused).toMatchObject({
      code: ErrorCode.INVALID_STATE,
      message: expect.stringContaining(
        `dead letter ${letter!.messageId} of account/a was not redriven: when it was kept, its asker teller/t: the reply to its ask said DEAD_LETTERED, and the asker went on as for a failed call (a workflow failed, or its saga undid the call); applied now, it would change account/a after that answer. If its sender undid or gave up what it asked for, purge it`,
      ),
      details: { actorId: 'account/a', answered: 'asker', from: 'teller/t' },
    });
    // Its next commands name the letter, its id quoted for a shell: no placeholder to fill.
    const id = shellQuote(letter!.messageId);
    expect((refused as Error).message).toContain(
      `purge it (baton dead-letters purge account/a ${id}); if you know it must be applied still, redrive it with force (baton dead-letters redrive account/a ${id} --force; `,
    );
    // Nothing was sent: the new code applies nothing, the letter stays.
    await after.run();
    expect((await backend.store.load('account/a'))?.state).toMatchObject({ closed: false });
    expect(await backend.store.listDeadLetters('account/a')).toHaveLength(1);

    await redriveDeadLetter(backend.store, backend.queue, 'account/a', letter!.messageId, {
      force: true,
    });
    await after.run();
    const { state } = (await backend.store.load('account/a'))!;
    expect(state).toMatchObject({ closed: true });
    expect(applications(state)).toEqual([1]);
    // The asker heard once: the reply the applied message sends comes after its answer.
    expect(await tellerLog()).toEqual([`not closed: ${ErrorCode.DEAD_LETTERED}`]);
    expect(await backend.store.listDeadLetters('account/a')).toEqual([]);
  });

  /**
   * A client asks `close` of new code while old code runs the account: the ask is told
   * DEAD_LETTERED, and its letter kept.
   */
  async function clientAskKeptByOldCode() {
    const { Old, New } = accounts();
    const { backend, deploy } = deployment();
    const before = deploy([Old]);
    const after = deploy([New]);
    const asked = after.client
      .ask(New.ref('a'), 'close', {}, { idempotencyKey: 'close-a' })
      .catch((error: unknown) => error);
    await before.run();
    expect(await asked).toMatchObject({ code: ErrorCode.DEAD_LETTERED });
    const [letter] = await backend.store.listDeadLetters('account/a');
    return { backend, after, New, letter };
  }

  it('refuses a client ask kept by old code, whose outcome says DEAD_LETTERED under its key; a purge forgets it, never applied', async () => {
    const { backend, after, New, letter } = await clientAskKeptByOldCode();
    expect(letter!.envelope.awaited).toBe(true);
    expect(answeredSender(letter!)).toMatch(
      /^its client's ask: it was told DEAD_LETTERED, the outcome stored under its key/,
    );

    await expect(
      redriveDeadLetter(backend.store, backend.queue, 'account/a', letter!.messageId),
    ).rejects.toMatchObject({
      code: ErrorCode.INVALID_STATE,
      message: expect.stringContaining(
        `dead letter ${letter!.messageId} of account/a was not redriven: when it was kept, its client's ask: it was told DEAD_LETTERED`,
      ),
      details: { answered: 'outcome', from: 'ingress' },
    });
    await purgeDeadLetter(backend.store, 'account/a', letter!.messageId, { by: 'ops' });
    await after.run();
    expect((await backend.store.load('account/a'))?.state).toMatchObject({ closed: false });
    // Asked again under its key, it is told what it was told.
    await expect(
      after.client.ask(New.ref('a'), 'close', {}, { idempotencyKey: 'close-a' }),
    ).rejects.toMatchObject({ code: ErrorCode.DEAD_LETTERED });
  });

  it('redrives a client ask with force: it is applied once, and its outcome is the real one', async () => {
    const { backend, after, New, letter } = await clientAskKeptByOldCode();
    await redriveDeadLetter(backend.store, backend.queue, 'account/a', letter!.messageId, {
      force: true,
    });
    await after.run();
    expect(
      applications((await backend.store.load('account/a'))?.state as { log: string[] }),
    ).toEqual([1]);
    await expect(
      after.client.ask(New.ref('a'), 'close', {}, { idempotencyKey: 'close-a' }),
    ).resolves.toBeUndefined();
  });

  it("redrives a client's send that old code kept without force: its client waited for no answer", async () => {
    const { Old, New } = accounts();
    const { backend, deploy } = deployment();
    const before = deploy([Old]);
    const after = deploy([New]);
    const { messageId } = await after.client.send(
      New.ref('a'),
      'close',
      {},
      { idempotencyKey: 'close-a' },
    );
    await before.run();
    const [letter] = await backend.store.listDeadLetters('account/a');
    expect(letter).toMatchObject({ messageId, envelope: { from: 'ingress' } });
    // Unmarked, as is every client message an earlier Baton took in.
    expect(letter!.envelope.awaited).toBeUndefined();
    expect(answeredSender(letter!)).toBeUndefined();

    await redriveDeadLetter(backend.store, backend.queue, 'account/a', messageId);
    await after.run();
    const { state } = (await backend.store.load('account/a'))!;
    expect(state).toMatchObject({ closed: true });
    expect(applications(state)).toEqual([1]);
    // Its outcome is the applied one's now: an ask under its key is answered with it.
    await expect(
      after.client.ask(New.ref('a'), 'close', {}, { idempotencyKey: 'close-a' }),
    ).resolves.toBeUndefined();
  });

  it.each([
    ['pushed', false],
    ['polled', true],
  ] as const)(
    "never tells an ask (outcomes %s) made under a plain send's key while the send waits that it is DEAD_LETTERED: the send's letter is redriven without force, and the ask is answered with what it applied",
    async (_how, polled) => {
      const { Old, New } = accounts();
      const { backend, deploy } = deployment({ polled });
      const before = deploy([Old]);
      const after = deploy([New]);
      const { messageId } = await after.client.send(
        New.ref('a'),
        'close',
        {},
        { idempotencyKey: 'close-a' },
      );
      // The client asks under the send's key while the old code retries the message.
      let answered = false;
      const asked = settled(
        after.client.ask(
          New.ref('a'),
          'close',
          {},
          { idempotencyKey: 'close-a', timeoutMs: 20_000 },
        ),
      ).finally(() => {
        answered = true;
      });
      await flush();
      await before.run();
      await new Promise((resolve) => setTimeout(resolve, polled ? 1_200 : 20));
      expect(answered).toBe(false);
      const [letter] = await backend.store.listDeadLetters('account/a');
      expect(letter).toMatchObject({ messageId, envelope: { from: 'ingress' } });
      expect(answeredSender(letter!)).toBeUndefined();
      // Its outcome says DEAD_LETTERED, to a read: one that a redrive without force replaces.
      expect(await after.client.outcome(messageId)).toMatchObject({
        ok: false,
        error: { code: ErrorCode.DEAD_LETTERED, details: { awaitsRedrive: true } },
      });

      await redriveDeadLetter(backend.store, backend.queue, 'account/a', messageId);
      await after.run();
      expect(await asked).toEqual({ ok: true, value: undefined });
      const { state } = (await backend.store.load('account/a'))!;
      expect(state).toMatchObject({ closed: true });
      expect(applications(state)).toEqual([1]);
    },
  );

  it('lets an ask under the key of a plain send whose letter is kept wait, told ASK_TIMEOUT that names the letter; a purge ends the message, and the ask is told DEAD_LETTERED', async () => {
    const { Old, New } = accounts();
    const { backend, deploy } = deployment();
    const before = deploy([Old]);
    const after = deploy([New]);
    const { messageId } = await after.client.send(
      New.ref('a'),
      'close',
      {},
      { idempotencyKey: 'close-a' },
    );
    await before.run();
    const ask = (timeoutMs: number) =>
      after.client.ask(New.ref('a'), 'close', {}, { idempotencyKey: 'close-a', timeoutMs });
    await expect(ask(50)).rejects.toMatchObject({
      code: ErrorCode.ASK_TIMEOUT,
      message: expect.stringContaining(
        'its message waits as a dead letter of account/a, which a redrive applies',
      ),
    });
    // Not marked by the ask: the letter is still a plain send's.
    const [letter] = await backend.store.listDeadLetters('account/a');
    expect(answeredSender(letter!)).toBeUndefined();

    const asked = settled(ask(20_000));
    await flush();
    await purgeDeadLetter(backend.store, 'account/a', messageId, { by: 'ops' });
    expect(await asked).toMatchObject({ ok: false, error: { code: ErrorCode.DEAD_LETTERED } });
    const outcome = await after.client.outcome(messageId);
    expect(outcome).toMatchObject({ ok: false, error: { code: ErrorCode.DEAD_LETTERED } });
    expect(outcome?.ok === false && 'awaitsRedrive' in outcome.error.details).toBe(false);
    await expect(ask(50)).rejects.toMatchObject({ code: ErrorCode.DEAD_LETTERED });
    await after.run();
    expect((await backend.store.load('account/a'))?.state).toMatchObject({ closed: false });
  });

  it("redrives an actor's plain send that old code kept without force: nobody was answered", async () => {
    const { Old, New } = accounts();
    const { backend, deploy } = deployment();
    const before = deploy([Old, teller(Old)]);
    const after = deploy([New, teller(New)]);
    await after.client.send(teller(New).ref('t'), 'closeLater', { account: 'a' });
    await after.poll();
    await before.run();
    const [letter] = await backend.store.listDeadLetters('account/a');
    expect(answeredSender(letter!)).toBeUndefined();
    await redriveDeadLetter(backend.store, backend.queue, 'account/a', letter!.messageId);
    await after.run();
    const { state } = (await backend.store.load('account/a'))!;
    expect(state).toMatchObject({ closed: true });
    expect(applications(state)).toEqual([1]);
  });
});

describe("a deploy's failure", () => {
  /** Polls on `code` while the clock is before `until`, moving it to the next message due. */
  const pollUntil = async (
    code: { poll(): Promise<number> },
    backend: ReturnType<typeof deployment>['backend'],
    clock: ReturnType<typeof deployment>['clock'],
    until: number,
  ) => {
    const due: number[] = [];
    while (clock.now() < until) {
      if ((await code.poll()) > 0) continue;
      const next = backend.queue.nextVisibleAt();
      if (next === undefined || next > until) break;
      due.push(next - clock.now());
      clock.set(next);
    }
    return due;
  };

  it('waits on old code for the receives the queue allows, 5 s then longer apart, and the new code applies it: no dead letter', async () => {
    const { Old, New } = accounts();
    const { backend, clock, deploy } = deployment({ maxReceives: 10 });
    const before = deploy([Old]);
    const after = deploy([New]);
    await after.client.send(New.ref('a'), 'close', {});
    await after.client.send(New.ref('a'), 'deposit', { amount: 2 });
    // Old workers only, for three minutes: each try 5 s, 10 s, 20 s … after the last.
    const waits = await pollUntil(before, backend, clock, clock.now() + 180_000);
    expect(waits.slice(0, 4)).toEqual([5_000, 10_000, 20_000, 40_000]);
    expect(await backend.store.listDeadLetters('account/a')).toEqual([]);
    expect((await backend.store.load('account/a'))?.state).toMatchObject({ balance: 0 });

    // The new code runs now: it applies the message that waited, then the one behind it.
    await after.run();
    const { state } = (await backend.store.load('account/a'))!;
    expect(state).toMatchObject({ closed: true, balance: 2 });
    expect(applications(state)).toEqual([1, 1]);
    expect(await backend.store.listDeadLetters('account/a')).toEqual([]);
    expect(backend.queue.deadLetters()).toEqual([]);
  });

  it("is kept as a dead letter at the queue's last receive but one when no code knows it, never reaching the queue's dead-letter queue", async () => {
    const { Old, New } = accounts();
    const { backend, clock, deploy } = deployment({ maxReceives: 10 });
    const before = deploy([Old]);
    const after = deploy([New]);
    const started = clock.now();
    await after.client.send(New.ref('a'), 'close', {});
    await after.client.send(New.ref('a'), 'deposit', { amount: 2 });
    await before.run();
    const [letter] = await backend.store.listDeadLetters('account/a');
    // Nine attempts, 5 + 10 + 20 + 40 + 4 × 60 s apart: over five minutes.
    expect(letter).toMatchObject({ attempts: 9, error: { code: ErrorCode.DEAD_LETTERED } });
    expect(letter!.at - started).toBe(315_000);
    expect(backend.queue.deadLetters()).toEqual([]);
    // The actor went on with the message behind it.
    expect((await backend.store.load('account/a'))?.state).toMatchObject({ balance: 2 });
  });

  it("of a record a newer state version wrote waits the same way, and a handler's fault does not", async () => {
    const state = z.object({ n: z.number() });
    const counter = (version: number, fails = false) =>
      actor({
        name: 'counter',
        state,
        initial: () => ({ n: 0 }),
        version,
        ...(version > 1 ? { migrate: { 1: (s: unknown) => s as { n: number } } } : {}),
        handlers: {
          bump: {
            payload: z.object({}),
            handle: (ctx) => {
              if (fails) throw new Error('the handler has a bug');
              ctx.state.n++;
            },
          },
        },
      });
    const { backend, clock, deploy } = deployment({ maxReceives: 10 });
    const after = deploy([counter(2)]);
    await after.client.send(counter(2).ref('c'), 'bump', {});
    await after.run();
    // Old code meets the record version 2 wrote: it waits, as for an unknown name.
    const before = deploy([counter(1)]);
    await after.client.send(counter(2).ref('c'), 'bump', {});
    const waits = await pollUntil(before, backend, clock, clock.now() + 60_000);
    expect(waits.slice(0, 3)).toEqual([5_000, 10_000, 20_000]);
    expect(await backend.store.listDeadLetters('counter/c')).toEqual([]);
    await after.run();
    expect((await backend.store.load('counter/c'))?.state).toEqual({ n: 2 });

    // A handler's fault is tried maxAttempts times, 1 s and 2 s apart, then kept.
    const buggy = deploy([counter(2, true)]);
    const started = clock.now();
    await after.client.send(counter(2).ref('c'), 'bump', {});
    await buggy.run();
    const [letter] = await backend.store.listDeadLetters('counter/c');
    expect(letter).toMatchObject({ attempts: 3 });
    expect(letter!.at - started).toBe(3_000);
  });
});
