/**
 * Regression tests for the holes an outside review found in the exactly-once guarantee. Each
 * fails on the engine as it was before its fix.
 */
import { actor, callerOf, ErrorCode, jsonLogger, silentLogger } from '@baton/core';
import {
  decodeEnvelope,
  type Envelope,
  encodeEnvelope,
  INGRESS,
  ingressMessageId,
  messageFingerprint,
  type Queue,
  type QueueMessage,
} from '@baton/core/adapter';
import { Client } from '@baton/core/client';
import { createEngine, redriveDeadLetter, runTurn, Sweeper, Worker } from '@baton/core/engine';
import { EmbeddedQueue, EmbeddedStore } from '@baton/embedded';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { flush, START, settled, setup } from './helpers.ts';

const DAY = 24 * 60 * 60 * 1000;

/** Counts every message it applies, by id, so a test can check each applied exactly once. */
function ledger() {
  const applied: string[] = [];
  let poisoned = true;
  const Box = actor({
    name: 'box',
    state: z.object({ items: z.array(z.string()), when: z.unknown().optional() }),
    initial: () => ({ items: [] }),
    handlers: {
      put: {
        public: true,
        payload: z.object({ item: z.string() }),
        handle: (ctx, { item }) => {
          if (item === 'poison' && poisoned) throw new Error('cannot digest poison');
          applied.push(item);
          ctx.state.items.push(item);
          return ctx.state.items.length;
        },
      },
      forward: {
        payload: z.object({ to: z.string(), items: z.array(z.string()) }),
        handle: (ctx, { to, items }) => {
          for (const item of items) ctx.send(Box.ref(to), 'put', { item });
        },
      },
      stamp: {
        payload: z.object({}),
        handle: (ctx) => {
          ctx.state.when = new Date(0);
        },
      },
      describe: {
        payload: z.object({}),
        handle: (ctx) => typeof ctx.state.when,
      },
    },
  });
  return { Box, applied, cure: () => (poisoned = false) };
}

describe('ingress ids and idempotency keys', () => {
  it("cannot make the queue drop an actor's message by using its id as an idempotency key", async () => {
    const { Box, applied } = ledger();
    const h = setup({ actors: [Box] });
    // `box/a:1` is the id of box/a's first send: a client uses it as its key first.
    await h.client.send(
      Box.ref('b'),
      'put',
      { item: 'from client' },
      { idempotencyKey: 'box/a:1' },
    );
    await h.client.send(Box.ref('a'), 'forward', { to: 'b', items: ['from a'] });
    await h.run();

    expect(applied.sort()).toEqual(['from a', 'from client']);
  });

  it('scopes a key by its target: the same key asked of two actors runs both', async () => {
    const { Box } = ledger();
    const h = setup({ actors: [Box] });
    const first = settled(
      h.client.ask(Box.ref('a'), 'put', { item: 'x' }, { idempotencyKey: 'k' }),
    );
    await h.run();
    const second = settled(
      h.client.ask(Box.ref('b'), 'put', { item: 'x' }, { idempotencyKey: 'k' }),
    );
    await h.run();

    expect(await first).toEqual({ ok: true, value: 1 });
    expect(await second).toEqual({ ok: true, value: 1 });
    expect(await h.state('box/b')).toEqual({ items: ['x'] });
  });

  it('refuses a key reused for another payload with IDEMPOTENCY_KEY_REUSED, never the first reply', async () => {
    const { Box } = ledger();
    const h = setup({ actors: [Box] });
    const first = settled(
      h.client.ask(Box.ref('a'), 'put', { item: 'x' }, { idempotencyKey: 'k' }),
    );
    await h.run();
    expect(await first).toEqual({ ok: true, value: 1 });

    const ask = await settled(
      h.client.ask(Box.ref('a'), 'put', { item: 'y' }, { idempotencyKey: 'k' }),
    );
    const send = await settled(
      h.client.send(Box.ref('a'), 'put', { item: 'y' }, { idempotencyKey: 'k' }),
    );
    for (const result of [ask, send]) {
      expect(result.ok).toBe(false);
      expect(!result.ok && (result.error as { code: string }).code).toBe(
        ErrorCode.IDEMPOTENCY_KEY_REUSED,
      );
    }
    // The same message again is answered, and applied once.
    expect(await h.client.ask(Box.ref('a'), 'put', { item: 'x' }, { idempotencyKey: 'k' })).toBe(1);
    expect(await h.state('box/a')).toEqual({ items: ['x'] });
  });

  it('refuses a reused key whose second message was enqueued before the first was processed', async () => {
    const { Box } = ledger();
    const h = setup({ actors: [Box] });
    const first = settled(
      h.client.ask(Box.ref('a'), 'put', { item: 'x' }, { idempotencyKey: 'k' }),
    );
    const second = settled(
      h.client.ask(Box.ref('a'), 'put', { item: 'y' }, { idempotencyKey: 'k' }),
    );
    await h.run();

    expect(await first).toEqual({ ok: true, value: 1 });
    const result = await second;
    expect(!result.ok && (result.error as { code: string }).code).toBe(
      ErrorCode.IDEMPOTENCY_KEY_REUSED,
    );
    expect(await h.state('box/a')).toEqual({ items: ['x'] });
  });

  it('refuses a send of another payload under a key whose first message still waits, so no outcome ever answers it with the first reply', async () => {
    const { Box, applied } = ledger();
    const h = setup({ actors: [Box] });
    const first = await h.client.send(Box.ref('a'), 'put', { item: 'x' }, { idempotencyKey: 'k' });
    const second = await settled(
      h.client.send(Box.ref('a'), 'put', { item: 'y' }, { idempotencyKey: 'k' }),
    );
    expect(!second.ok && (second.error as { code: string }).code).toBe(
      ErrorCode.IDEMPOTENCY_KEY_REUSED,
    );
    await h.run();

    expect(applied).toEqual(['x']);
    expect(await h.client.outcome(first.messageId)).toEqual({ ok: true, value: 1 });
  });

  it('refuses a key for as long as its outcome is kept, also when the message waited days before its commit, and answers its own retry', async () => {
    const { Box, applied } = ledger();
    const h = setup({ actors: [Box] });
    const first = await h.client.send(Box.ref('a'), 'put', { item: 'x' }, { idempotencyKey: 'k' });
    // The message waits two days before it is processed (a paused actor, an outage).
    h.clock.advance(2 * DAY);
    await h.run();
    // Past 14 days from the send, within the outcome's 14 days from the commit.
    h.clock.advance(13 * DAY);
    h.backend.store.purgeExpired();
    expect(await h.client.outcome(first.messageId)).toEqual({ ok: true, value: 1 });

    const reused = await settled(
      h.client.ask(Box.ref('a'), 'put', { item: 'y' }, { idempotencyKey: 'k' }),
    );
    expect(!reused.ok && (reused.error as { code: string }).code).toBe(
      ErrorCode.IDEMPOTENCY_KEY_REUSED,
    );
    expect(await h.client.ask(Box.ref('a'), 'put', { item: 'x' }, { idempotencyKey: 'k' })).toBe(1);
    await h.run();
    expect(applied).toEqual(['x']);
    expect(await h.client.outcome(first.messageId)).toEqual({ ok: true, value: 1 });
  });

  it("marks a client's ask as awaited, not its send, in no part of the message: an ask under a send's key is the same message, applied once and answered", async () => {
    const { Box, applied } = ledger();
    const h = setup({ actors: [Box] });
    await h.client.send(Box.ref('a'), 'put', { item: 'x' }, { idempotencyKey: 'k' });
    const other = settled(h.client.ask(Box.ref('b'), 'put', { item: 'y' }));
    await flush();
    const sent = h.backend.queue.messages().map((m) => decodeEnvelope(m.body)!);
    expect(sent.map((e) => [e.to, e.awaited])).toEqual([
      ['box/a', undefined],
      ['box/b', true],
    ]);
    expect(sent[1]!.fingerprint).toBe(messageFingerprint('put', { item: 'y' }));
    expect(decodeEnvelope(JSON.stringify({ ...sent[1], awaited: 'yes' }))).toBeUndefined();

    // Its fingerprint is the send's: not IDEMPOTENCY_KEY_REUSED, and the queue keeps one copy.
    const asked = settled(
      h.client.ask(Box.ref('a'), 'put', { item: 'x' }, { idempotencyKey: 'k' }),
    );
    await flush();
    expect(h.backend.queue.messages()).toHaveLength(2);
    await h.run();

    expect(await asked).toEqual({ ok: true, value: 1 });
    expect(await other).toEqual({ ok: true, value: 1 });
    expect(applied.sort()).toEqual(['x', 'y']);
  });

  it('scopes a key by caller: two callers with one key send two messages, each reading its own outcome', async () => {
    const { Box } = ledger();
    const alice_ = callerOf({ user: 'alice' });
    const mallory_ = callerOf({ user: 'mallory' });
    const h = setup({ actors: [Box] });
    const alice = await h.client.send(
      Box.ref('a'),
      'put',
      { item: 'alice' },
      { idempotencyKey: 'k', caller: alice_ },
    );
    const mallory = await h.client.send(
      Box.ref('a'),
      'put',
      { item: 'mallory' },
      { idempotencyKey: 'k', caller: mallory_ },
    );
    await h.run();

    expect(alice.messageId).toBe(ingressMessageId('box/a', 'k', alice_));
    expect(alice.messageId).not.toBe(mallory.messageId);
    expect(await h.client.outcome(alice.messageId, { caller: alice_ })).toEqual({
      ok: true,
      value: 1,
    });
    expect(await h.client.outcome(mallory.messageId, { caller: mallory_ })).toEqual({
      ok: true,
      value: 2,
    });
    // Neither reads the other's outcome.
    expect(await h.client.outcome(alice.messageId, { caller: mallory_ })).toBeUndefined();
  });
});

describe('per-channel sequences', () => {
  /** An envelope from box/s to box/t, as the engine would have sent it. */
  const fromS = (seq: number, prev: number, item: string): Envelope => ({
    id: `box/s:${seq}`,
    from: 'box/s',
    seq,
    prev,
    to: 'box/t',
    name: 'put',
    payload: { item },
    sentAt: START,
  });

  it("gives each message the seq of its sender's previous message to the same target, until the channel idles past half the mark retention", async () => {
    const { Box } = ledger();
    const h = setup({ actors: [Box] });
    const forward = async (to: string, item: string) => {
      await h.client.send(Box.ref('s'), 'forward', { to, items: [item] });
      await h.run();
    };
    const sent: Envelope[] = [];
    const recording = h.backend.queue.send.bind(h.backend.queue);
    h.backend.queue.send = async (messages) => {
      for (const m of messages) if (m.group !== 'box/s') sent.push(JSON.parse(m.body));
      return recording(messages);
    };
    await forward('t', 'x');
    await forward('u', 'y');
    await forward('t', 'z');
    h.clock.advance(15 * 24 * 3_600_000); // past 14 days, half of the default 28
    await forward('t', 'w');

    expect(sent.map((e) => [e.to, e.seq, e.prev])).toEqual([
      ['box/t', 1, 0],
      ['box/u', 2, 0],
      ['box/t', 3, 1],
      ['box/t', 4, 0], // a fresh channel: the receiver's mark (28 days) still knows seq 3
    ]);
  });

  it('applies a message that arrives after a later one on its channel, once, and reports the gap', async () => {
    const { Box, applied } = ledger();
    const errors: string[] = [];
    const engine = createEngine({
      ...setup({ actors: [Box] }).engine,
      actors: [Box],
      logger: { ...silentLogger, error: (message) => errors.push(message) },
    });
    // Message 2 overtook message 1 (a partial batch send, or 1 went to a dead-letter queue).
    await runTurn(engine, 'box/t', [{ envelope: fromS(2, 1, 'second'), queueSeq: '1' }]);
    await runTurn(engine, 'box/t', [{ envelope: fromS(1, 0, 'first'), queueSeq: '2' }]);
    // Copies of both are duplicates now.
    await runTurn(engine, 'box/t', [
      { envelope: fromS(1, 0, 'first'), queueSeq: '3' },
      { envelope: fromS(2, 1, 'second'), queueSeq: '4' },
    ]);

    expect(applied).toEqual(['second', 'first']);
    expect(errors.some((e) => e.includes('gap'))).toBe(true);
    // The gap is closed: nothing of the channel is missing any more.
    expect((await engine.store.load('box/t'))?.marks['box/s']).toEqual({
      seq: 2,
      at: expect.any(Number),
    });
  });

  it('delivers every message once and in order when a queue accepts a later entry of a send but fails an earlier one', async () => {
    const { Box, applied } = ledger();
    const h = setup({ actors: [Box] });
    const inner = h.backend.queue;
    // Like SendMessageBatch: per entry; the first entry of the first two drains fails.
    let failures = 2;
    const flaky: Queue = {
      receive: (options) => inner.receive(options),
      ack: (receipts) => inner.ack(receipts),
      release: (receipts, delay) => inner.release(receipts, delay),
      async send(messages: readonly QueueMessage[]) {
        const drain = messages.some((m) => m.dedupeId.startsWith('box/'));
        if (!drain || failures === 0) return inner.send(messages);
        failures--;
        await inner.send(messages.slice(1));
        throw new Error('entry 0 failed');
      },
    };
    const worker = new Worker({ ...h.engine, queue: flaky });
    // A failed drain leaves the sends in the record, to the actor's next turn or the sweeper.
    const sweeper = new Sweeper({ ...h.engine, queue: flaky }, { minAgeMs: 0 });
    await h.client.send(Box.ref('s'), 'forward', { to: 't', items: ['1', '2', '3'] });
    for (let i = 0; i < 20; i++) {
      await worker.poll();
      h.clock.advance(60_000);
      await sweeper.sweep();
      if (inner.counts().total === 0 && h.backend.store.outboxSize() === 0) break;
    }

    expect(applied).toEqual(['1', '2', '3']);
    expect(h.backend.store.outboxSize()).toBe(0);
  });
});

describe('messages that keep failing', () => {
  it('dead-letters a poison message in its own turn: the batch goes on and the asker is told at once', async () => {
    const { Box, applied } = ledger();
    const h = setup({ actors: [Box], maxAttempts: 3 });
    await h.client.send(Box.ref('a'), 'put', { item: 'before' });
    const poison = settled(
      h.client.ask(Box.ref('a'), 'put', { item: 'poison' }, { timeoutMs: 60_000 }),
    );
    await h.client.send(Box.ref('a'), 'put', { item: 'after' });
    await h.run();

    expect(applied).toEqual(['before', 'after']);
    const result = await poison;
    expect(!result.ok && (result.error as { code: string }).code).toBe(ErrorCode.DEAD_LETTERED);
    // Nothing went to the queue's own dead-letter queue: the engine ended it.
    expect(h.backend.queue.counts().deadLetters).toBe(0);
    const letters = await h.backend.store.listDeadLetters('box/a');
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({ attempts: 3, redrivable: true });
    expect(letters[0]?.envelope.payload).toEqual({ item: 'poison' });
  });

  it('applies a redriven dead letter exactly once, however often it is redriven', async () => {
    const { Box, applied, cure } = ledger();
    const h = setup({ actors: [Box], maxAttempts: 2 });
    const { messageId } = await h.client.send(Box.ref('a'), 'put', { item: 'poison' });
    await h.run();
    expect((await h.client.outcome(messageId))?.ok).toBe(false);

    cure();
    await redriveDeadLetter(h.backend.store, h.backend.queue, 'box/a', messageId);
    // A second redrive before the first is processed, and a copy enqueued by hand.
    await redriveDeadLetter(h.backend.store, h.backend.queue, 'box/a', messageId);
    const [letter] = await h.backend.store.listDeadLetters('box/a');
    await h.backend.queue.send([
      {
        group: 'box/a',
        dedupeId: 'copy',
        body: encodeEnvelope({ ...letter!.envelope, redrive: letter!.at }),
      },
    ]);
    await h.run();

    expect(applied).toEqual(['poison']);
    expect(await h.client.outcome(messageId)).toEqual({ ok: true, value: 1 });
    expect(await h.backend.store.listDeadLetters()).toEqual([]);
    // A copy that comes once the redrive was applied, its dead letter gone, is skipped too.
    await h.backend.queue.send([
      {
        group: 'box/a',
        dedupeId: 'late copy',
        body: encodeEnvelope({ ...letter!.envelope, redrive: letter!.at }),
      },
    ]);
    await h.run();
    expect(applied).toEqual(['poison']);
    await expect(
      redriveDeadLetter(h.backend.store, h.backend.queue, 'box/a', messageId),
    ).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
  });

  it('applies once a dead letter from another actor redriven twice in one batch', async () => {
    const { Box, applied, cure } = ledger();
    const h = setup({ actors: [Box], maxAttempts: 2 });
    await h.client.send(Box.ref('s'), 'forward', { to: 't', items: ['poison'] });
    await h.run();
    const [letter] = await h.backend.store.listDeadLetters('box/t');
    expect(letter?.envelope.from).toBe('box/s');

    cure();
    // Two copies under different dedupe ids wait in one group: one batch takes both.
    const body = encodeEnvelope({ ...letter!.envelope, redrive: letter!.at });
    await h.backend.queue.send([
      { group: 'box/t', dedupeId: 'copy-1', body },
      { group: 'box/t', dedupeId: 'copy-2', body },
    ]);
    await h.run();

    expect(applied).toEqual(['poison']);
    expect(await h.backend.store.listDeadLetters()).toEqual([]);
  });
});

describe('what cannot be kept', () => {
  const Fragile = actor({
    name: 'fragile',
    state: z.object({ n: z.number(), big: z.unknown().optional() }),
    initial: () => ({ n: 0 }),
    handlers: {
      fail: {
        payload: z.object({ blob: z.string() }),
        handle: () => {
          throw new Error('always fails');
        },
      },
      bigint: {
        payload: z.object({}),
        handle: (ctx) => {
          ctx.state.big = 10n;
        },
      },
      bump: {
        payload: z.object({}),
        handle: (ctx) => ++ctx.state.n,
      },
    },
  });

  it('keeps a dead letter too large for a record without its payload, and refuses to redrive it', async () => {
    const h = setup({ actors: [Fragile], maxAttempts: 1, limits: { maxItemBytes: 3_000 } });
    // The doors refuse a payload over half an item now; an earlier release's client took it.
    const messageId = ingressMessageId('fragile/a', 'k-large');
    const envelope = {
      id: messageId,
      from: INGRESS,
      seq: 0,
      to: 'fragile/a',
      name: 'fail',
      payload: { blob: 'x'.repeat(2_500) },
      sentAt: h.clock.now(),
    };
    await h.backend.queue.send([
      { group: envelope.to, dedupeId: envelope.id, body: encodeEnvelope(envelope) },
    ]);
    await h.run();

    const [letter] = await h.backend.store.listDeadLetters('fragile/a');
    expect(letter).toMatchObject({ redrivable: false, envelope: { id: messageId, payload: null } });
    await expect(
      redriveDeadLetter(h.backend.store, h.backend.queue, 'fragile/a', messageId),
    ).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENT });
    expect(await h.client.outcome(messageId)).toMatchObject({
      ok: false,
      error: { code: ErrorCode.DEAD_LETTERED },
    });
  });

  it('keeps a dead letter whose error is too long for a record whole, with the gist of its error, and applies it once when redriven', async () => {
    let failing = true;
    const Wordy = actor({
      name: 'wordy',
      state: z.object({ got: z.array(z.string()) }),
      initial: () => ({ got: [] as string[] }),
      handlers: {
        note: {
          payload: z.object({ text: z.string() }),
          handle: (ctx, { text }) => {
            if (failing) throw new Error(`refused: ${'why '.repeat(700)}`);
            ctx.state.got.push(text);
          },
        },
      },
    });
    const h = setup({ actors: [Wordy], maxAttempts: 1, limits: { maxItemBytes: 3_000 } });
    const { messageId } = await h.client.send(Wordy.ref('a'), 'note', { text: 'kept' });
    await h.run();

    const [letter] = await h.backend.store.listDeadLetters('wordy/a');
    expect(letter).toMatchObject({
      redrivable: true,
      envelope: { id: messageId, payload: { text: 'kept' } },
      error: { code: ErrorCode.DEAD_LETTERED, details: { truncated: true } },
    });
    failing = false;
    await redriveDeadLetter(h.backend.store, h.backend.queue, 'wordy/a', messageId);
    await h.run();
    expect(await h.state('wordy/a')).toEqual({ got: ['kept'] });
    expect(await h.backend.store.listDeadLetters('wordy/a')).toEqual([]);
  });

  it('keeps a message whose handler leaves state JSON cannot hold as a dead letter (INVALID_STATE its cause), the state unchanged', async () => {
    const h = setup({ actors: [Fragile] });
    const bigint = settled(h.client.ask(Fragile.ref('a'), 'bigint', {}));
    const bump = settled(h.client.ask(Fragile.ref('a'), 'bump', {}));
    await h.run();

    expect(await bigint).toMatchObject({
      ok: false,
      error: {
        code: ErrorCode.DEAD_LETTERED,
        message: expect.stringContaining('left state that is not JSON'),
        details: { cause: { code: ErrorCode.INVALID_STATE } },
      },
    });
    expect(await bump).toEqual({ ok: true, value: 1 });
    expect(await h.state('fragile/a')).toEqual({ n: 1 });
    expect(await h.backend.store.listDeadLetters('fragile/a')).toMatchObject([
      { envelope: { name: 'bigint' }, redrivable: true, error: { code: ErrorCode.DEAD_LETTERED } },
    ]);
  });
});

describe('the warm cache', () => {
  it('holds exactly what a reload returns: a Date in state is a string in both', async () => {
    const { Box } = ledger();
    const warm = setup({ actors: [Box] });
    await warm.client.send(Box.ref('a'), 'stamp', {});
    await warm.run();
    expect(warm.engine.cache.get('box/a')).toBeDefined();
    const cached = settled(warm.client.ask(Box.ref('a'), 'describe', {}));
    await warm.run();
    warm.engine.cache.clear();
    const reloaded = settled(warm.client.ask(Box.ref('a'), 'describe', {}));
    await warm.run();

    expect(await cached).toEqual({ ok: true, value: 'string' });
    expect(await reloaded).toEqual({ ok: true, value: 'string' });
  });
});

describe('a replaced inbox queue', () => {
  it('applies the messages of a new queue whose sequence numbers start over, and says so', async () => {
    const { Box } = ledger();
    const store = new EmbeddedStore();
    const errors: string[] = [];
    const logger = jsonLogger({ level: 'error', write: (line) => errors.push(line) });
    /** A worker and a client on a queue of its own identity, over the one store. */
    const on = (identity: string) => {
      const queue = new EmbeddedQueue({ identity });
      const options = { actors: [Box], store, queue, logger };
      return { queue, worker: new Worker(options), client: new Client(options) };
    };
    const old = on('old');
    for (const item of ['a', 'b', 'c'])
      await old.client.send(Box.ref('x'), 'put', { item }, { idempotencyKey: item });
    while ((await old.worker.poll()) > 0);
    expect((await store.load('box/x'))?.inboxOffset).toBe('3');

    // The new queue numbers from 1 again; a copy of `c` moved over from the old one comes too.
    const fresh = on('new');
    for (const item of ['d', 'e'])
      await fresh.client.send(Box.ref('x'), 'put', { item }, { idempotencyKey: item });
    const copy: Envelope = {
      id: ingressMessageId('box/x', 'c'),
      from: INGRESS,
      seq: 0,
      to: 'box/x',
      name: 'put',
      payload: { item: 'c' },
      sentAt: Date.now(),
    };
    await fresh.queue.send([{ group: 'box/x', dedupeId: 'moved-c', body: encodeEnvelope(copy) }]);
    while ((await fresh.worker.poll()) > 0);

    // Handlers may run again when a commit is redone; the state shows what was committed.
    expect(await store.load('box/x')).toMatchObject({
      state: { items: ['a', 'b', 'c', 'd', 'e'] },
      inboxOffset: '2', // e's: the copy of c was skipped by its idempotency record
      inboxQueue: 'new',
    });
    expect(errors).toHaveLength(1);
    expect(JSON.parse(errors[0]!)).toMatchObject({
      message: expect.stringMatching(/inbox queue was replaced/),
      oldQueue: 'old',
      newQueue: 'new',
    });
  });

  it('applies the messages of a new queue that replaced the old one under a warm worker', async () => {
    const { Box } = ledger();
    const store = new EmbeddedStore();
    let inbox = new EmbeddedQueue({ identity: 'old' });
    // One queue URL, whose queue is deleted and created anew while the worker runs.
    const queue: Queue = {
      send: (messages) => inbox.send(messages),
      receive: (options) => inbox.receive(options),
      ack: (receipts) => inbox.ack(receipts),
      release: (receipts, delayMs) => inbox.release(receipts, delayMs),
      identity: () => inbox.identity!(),
    };
    const errors: string[] = [];
    const logger = jsonLogger({ level: 'error', write: (line) => errors.push(line) });
    const options = { actors: [Box], store, queue, logger };
    const worker = new Worker(options);
    const client = new Client(options);
    for (const item of ['a', 'b', 'c']) await client.send(Box.ref('x'), 'put', { item });
    while ((await worker.poll()) > 0);
    expect(errors).toEqual([]);

    inbox = new EmbeddedQueue({ identity: 'new' }); // numbers from 1 again
    for (const item of ['d', 'e']) await client.send(Box.ref('x'), 'put', { item });
    while ((await worker.poll()) > 0);
    // Said once, by the turn that first met the new queue.
    expect(errors.map((line) => JSON.parse(line))).toMatchObject([
      {
        message: expect.stringMatching(/inbox queue was replaced/),
        oldQueue: 'old',
        newQueue: 'new',
      },
    ]);

    expect(await store.load('box/x')).toMatchObject({
      state: { items: ['a', 'b', 'c', 'd', 'e'] },
      inboxQueue: 'new',
    });
  });
});
