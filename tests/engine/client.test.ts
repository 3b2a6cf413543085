import { actor, ErrorCode, isBatonError, SYSTEM } from '@baton/core';
import { ingressMessageId, type Store } from '@baton/core/adapter';
import { Client } from '@baton/core/client';
import { describe, expect, expectTypeOf, it, vi } from 'vitest';
import * as z from 'zod';
import { bank } from './bank.ts';
import { answered, commitsOf, settled, setup } from './helpers.ts';

const FIVE_MINUTES = 5 * 60_000;

/** `store`'s own methods, but for `watchOutcomes`: a store that cannot push outcomes. */
function withoutPush(store: Store): Store {
  return {
    limits: store.limits,
    load: (id) => store.load(id),
    commit: (commit) => store.commit(commit),
    readOutbox: (id) => store.readOutbox(id),
    deleteOutbox: (id, seqs, life) => store.deleteOutbox(id, seqs, life),
    listOutboxActors: (olderThan) => store.listOutboxActors(olderThan),
    retireHeldOutbox: (id, ver, life, expiresAt) =>
      store.retireHeldOutbox(id, ver, life, expiresAt),
    readDeadLetter: (id, messageId) => store.readDeadLetter(id, messageId),
    listDeadLetters: (id) => store.listDeadLetters(id),
    readOverflow: (id, keys) => store.readOverflow(id, keys),
    readTimer: (id, timerId) => store.readTimer(id, timerId),
    listTimers: (id) => store.listTimers(id),
    listDueTimers: (before, limit) => store.listDueTimers(before, limit),
    readIdempotency: (key) => store.readIdempotency(key),
    claimKey: (claim) => store.claimKey(claim),
  };
}

describe('Client.send', () => {
  it('resolves with the idempotency key scoped by its target as the message id, and the outcome once processed', async () => {
    const { Account, Audit } = bank();
    const h = setup({ actors: [Account, Audit] });
    const sent = await h.client.send(
      Account.ref('a'),
      'deposit',
      { amount: 3 },
      { idempotencyKey: 'dep-1' },
    );

    // The system's keys are its own: a digest of the caller, never the caller in clear.
    expect(sent.messageId).toMatch(/^ingress:\["account\/a","dep-1","[A-Za-z0-9_-]{22}"\]$/);
    expect(sent.messageId).toBe(ingressMessageId('account/a', 'dep-1', SYSTEM));
    expect(await h.client.outcome(sent.messageId)).toBeUndefined();
    await h.run();
    expect(await h.client.outcome(sent.messageId)).toEqual({ ok: true, value: 3 });
  });

  it('gives each send without a key a fresh message id', async () => {
    const { Account, Audit } = bank();
    const h = setup({ actors: [Account, Audit] });
    const first = await h.client.send(Account.ref('a'), 'deposit', { amount: 1 });
    const second = await h.client.send(Account.ref('a'), 'deposit', { amount: 1 });
    expect(first.messageId).not.toBe(second.messageId);
    await h.run();
    expect(await h.state('account/a')).toMatchObject({ balance: 2 });
  });

  it('gives an unkeyed message a receipt for a key: its send time, a nonce from crypto.getRandomValues and a tag', async () => {
    const { Account, Audit } = bank();
    const h = setup({ actors: [Account, Audit] });
    // The first send claims the app's receipt secret, which draws random bytes of its own.
    await h.client.send(Account.ref('a'), 'deposit', { amount: 1 });
    const spy = vi
      .spyOn(globalThis.crypto, 'getRandomValues')
      .mockImplementation(<T extends ArrayBufferView>(bytes: T) => {
        (bytes as unknown as Uint8Array).fill(7);
        return bytes;
      });
    try {
      const sent = await h.client.send(Account.ref('a'), 'deposit', { amount: 1 });
      const key: string = JSON.parse(sent.messageId.slice('ingress:'.length))[1];
      // Twelve bytes of 7 in base64url, then a 96-bit tag.
      const nonce = 'BwcHBwcHBwcHBwcH';
      expect(key).toMatch(new RegExp(`^${sent.sentAt.toString(36)}\\.${nonce}\\.[\\w-]{16}$`));
      expect(sent.messageId).toBe(ingressMessageId('account/a', key, SYSTEM));
    } finally {
      spy.mockRestore();
    }
  });

  it('applies a message sent twice with the same idempotency key once', async () => {
    const { Account, Audit, runs } = bank();
    const h = setup({ actors: [Account, Audit] });
    await h.client.send(Account.ref('a'), 'deposit', { amount: 7 }, { idempotencyKey: 'k' });
    await h.client.send(Account.ref('a'), 'deposit', { amount: 7 }, { idempotencyKey: 'k' });
    await h.run();
    await h.client.send(Account.ref('a'), 'deposit', { amount: 7 }, { idempotencyKey: 'k' });
    await h.run();

    expect(await h.state('account/a')).toEqual({ balance: 7, history: ['+7'] });
    expect(runs.deposit).toBe(1);
  });

  it("answers a send repeated after the queue's 5-minute dedupe window from its stored outcome", async () => {
    const { Account, Audit } = bank();
    const h = setup({ actors: [Account, Audit] });
    const { messageId } = await h.client.send(
      Account.ref('a'),
      'deposit',
      { amount: 7 },
      { idempotencyKey: 'k' },
    );
    await h.run();
    h.clock.advance(FIVE_MINUTES + 1);
    const again = await h.client.send(
      Account.ref('a'),
      'deposit',
      { amount: 7 },
      { idempotencyKey: 'k' },
    );
    // The outcome is stored: nothing is enqueued again.
    expect(again.messageId).toBe(messageId);
    expect(h.backend.queue.counts().total).toBe(0);
    await h.run();

    expect(await h.state('account/a')).toEqual({ balance: 7, history: ['+7'] });
    expect(await h.client.outcome(messageId)).toEqual({ ok: true, value: 7 });
    expect(h.backend.queue.counts()).toMatchObject({ total: 0, deadLetters: 0 });
  });

  it('applies a message once when both copies wait in the inbox, sent more than 5 minutes apart', async () => {
    const { Account, Audit } = bank();
    const h = setup({ actors: [Account, Audit] });
    await h.client.send(Account.ref('a'), 'deposit', { amount: 7 }, { idempotencyKey: 'k' });
    h.clock.advance(FIVE_MINUTES + 1);
    await h.client.send(Account.ref('a'), 'deposit', { amount: 7 }, { idempotencyKey: 'k' });
    await h.client.send(Account.ref('a'), 'deposit', { amount: 1 }, { idempotencyKey: 'other' });
    expect(h.backend.queue.counts().total).toBe(3);
    await h.run();

    expect(await h.state('account/a')).toEqual({ balance: 8, history: ['+7', '+1'] });
    expect(h.backend.queue.counts()).toMatchObject({ total: 0, deadLetters: 0 });
  });

  it('applies a key once when the first copy was committed in an earlier commit of the same turn', async () => {
    const { Account, Audit } = bank();
    // Items too small for two outcomes in one page write (as page entries, each one's JSON and
    // its key again), large enough for one: one message per commit.
    const h = setup({ actors: [Account, Audit], limits: { maxItemBytes: 600 } });
    const commits = commitsOf(h.backend, 'account/a');
    await h.client.send(Account.ref('a'), 'deposit', { amount: 7 }, { idempotencyKey: 'k' });
    h.clock.advance(FIVE_MINUTES + 1);
    await h.client.send(Account.ref('a'), 'deposit', { amount: 7 }, { idempotencyKey: 'k' });
    await h.client.send(Account.ref('a'), 'deposit', { amount: 1 });
    await h.run();

    expect(await h.state('account/a')).toEqual({ balance: 8, history: ['+7', '+1'] });
    expect(commits.map((c) => (c.state as { history: string[] }).history)).toEqual([
      ['+7'],
      ['+7', '+1'],
    ]);
  });
});

describe('Client.ask', () => {
  it("resolves with the handler's return value", async () => {
    const { Account, Audit } = bank();
    const h = setup({ actors: [Account, Audit] });
    await h.client.send(Account.ref('a'), 'deposit', { amount: 10 });
    const asked = h.client.ask(Account.ref('a'), 'deposit', { amount: 5 });
    await h.run();
    expect(await asked).toBe(15);
  });

  it('resolves with the return value as JSON gives it back, as its type says: a Date as its ISO string, a Map as {}', async () => {
    const Clock = actor({
      name: 'clock',
      state: z.object({}),
      initial: () => ({}),
      handlers: {
        now: { payload: z.object({}), handle: () => new Date(0) },
        table: { payload: z.object({}), handle: () => new Map([[1, 2]]) },
      },
    });
    const h = setup({ actors: [Clock] });
    const now = await answered(h, h.client.ask(Clock.ref('a'), 'now', {}));
    const table = await answered(h, h.client.ask(Clock.ref('a'), 'table', {}));
    expect(now).toBe('1970-01-01T00:00:00.000Z');
    expectTypeOf(now).toEqualTypeOf<string>();
    expect(table).toEqual({});
    expectTypeOf(table).toEqualTypeOf<Record<string, never>>();
  });

  it('resolves with the value given to ctx.reply over the return value', async () => {
    const { Account, Audit } = bank();
    const h = setup({ actors: [Account, Audit] });
    await h.client.send(Account.ref('a'), 'deposit', { amount: 4 });
    const asked = h.client.ask(Account.ref('a'), 'balance', {});
    await h.run();
    expect(await asked).toEqual({ balance: 4 });
  });

  it('returns the stored outcome for a second ask with the same key without running the handler again', async () => {
    const { Account, Audit, runs } = bank();
    const h = setup({ actors: [Account, Audit] });
    const first = h.client.ask(
      Account.ref('a'),
      'deposit',
      { amount: 5 },
      { idempotencyKey: 'ask-1' },
    );
    await h.run();
    expect(await first).toBe(5);

    await h.client.send(Account.ref('a'), 'deposit', { amount: 100 });
    await h.run();
    h.clock.advance(FIVE_MINUTES + 1);
    const again = await h.client.ask(
      Account.ref('a'),
      'deposit',
      { amount: 5 },
      {
        idempotencyKey: 'ask-1',
      },
    );

    expect(again).toBe(5);
    expect(runs.deposit).toBe(2);
    expect(h.backend.queue.counts().total).toBe(0);
    expect(await h.state('account/a')).toMatchObject({ balance: 105 });
  });

  it('rejects a second ask with the same key with the stored error, without running the handler again', async () => {
    const { Account, Audit, runs } = bank();
    const h = setup({ actors: [Account, Audit] });
    const first = settled(
      h.client.ask(Account.ref('a'), 'withdraw', { amount: 5 }, { idempotencyKey: 'w-1' }),
    );
    await h.run();
    await h.client.send(Account.ref('a'), 'deposit', { amount: 100 });
    await h.run();
    const again = await settled(
      h.client.ask(Account.ref('a'), 'withdraw', { amount: 5 }, { idempotencyKey: 'w-1' }),
    );

    expect(await first).toMatchObject({ ok: false, error: { code: ErrorCode.REJECTED } });
    expect(again).toMatchObject({
      ok: false,
      error: { code: ErrorCode.REJECTED, details: { missing: 5 } },
    });
    expect(runs.withdraw).toBe(1);
    expect(await h.state('account/a')).toMatchObject({ balance: 100 });
  });

  it('rejects with ASK_TIMEOUT when no worker answers in time', async () => {
    const { Account, Audit } = bank();
    const h = setup({ actors: [Account, Audit] });
    const result = await settled(
      h.client.ask(
        Account.ref('a'),
        'deposit',
        { amount: 1 },
        { idempotencyKey: 'slow', timeoutMs: 1 },
      ),
    );

    expect(result.ok).toBe(false);
    const error = result.ok ? undefined : result.error;
    expect(isBatonError(error) && error.code).toBe(ErrorCode.ASK_TIMEOUT);
    // The message stays accepted: asking again after it was processed gets its outcome.
    await h.run();
    expect(
      await h.client.ask(Account.ref('a'), 'deposit', { amount: 1 }, { idempotencyKey: 'slow' }),
    ).toBe(1);
  });

  it('resolves when the outcome is committed between its first read and its watch', async () => {
    const { Account, Audit, runs } = bank();
    const h = setup({ actors: [Account, Audit] });
    await h.client.send(Account.ref('a'), 'deposit', { amount: 1 }, { idempotencyKey: 'k' });
    // A store whose read answers "not yet" after the worker has committed the message meanwhile.
    const store = h.backend.store;
    const slow: Store = {
      ...withoutPush(store),
      readIdempotency: async (key) => {
        const record = await store.readIdempotency(key);
        await h.run();
        return record;
      },
      watchOutcomes: (listener) => store.watchOutcomes(listener),
    };
    const client = new Client({
      actors: [Account, Audit],
      store: slow,
      queue: h.backend.queue,
      clock: h.clock,
      askTimeoutMs: 2_000,
    }).asSystem();
    const asked = await settled(
      client.ask(Account.ref('a'), 'deposit', { amount: 1 }, { idempotencyKey: 'k' }),
    );

    expect(asked).toEqual({ ok: true, value: 1 });
    expect(runs.deposit).toBe(1);
  });

  it('enqueues the payload it validated, even if the caller changes it while the ask waits', async () => {
    const { Account, Audit } = bank();
    const h = setup({ actors: [Account, Audit] });
    const payload = { amount: 5 };
    const asked = settled(h.client.ask(Account.ref('a'), 'deposit', payload));
    payload.amount = -5;
    await h.run();

    expect(await asked).toEqual({ ok: true, value: 5 });
    expect(await h.state('account/a')).toMatchObject({ balance: 5 });
  });

  it('resolves by polling when the store cannot push outcomes', async () => {
    const { Account, Audit } = bank();
    const h = setup({ actors: [Account, Audit] });
    const store = h.backend.store;
    const client = new Client({
      actors: [Account, Audit],
      store: withoutPush(store),
      queue: h.backend.queue,
      clock: h.clock,
      askTimeoutMs: 5_000,
    }).asSystem();
    const asked = settled(client.ask(Account.ref('a'), 'deposit', { amount: 2 }));
    await h.run();

    expect(await asked).toEqual({ ok: true, value: 2 });
  });
});
