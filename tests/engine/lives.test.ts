/**
 * An actor's lives: after `ctx.halt()` and the deletion of its record, a new life numbers its
 * versions and sends from the start again. Everything Baton makes — message ids, effect keys,
 * ask ids, timer generations — must still be new, and nothing a worker remembers of the old
 * life (a warm record, the version it drained) may be taken for the new one.
 */
import { type AskReply, actor, effect, RetryableError, silentLogger } from '@baton/core';
import {
  actorMessageId,
  decodeEnvelope,
  type Envelope,
  encodeEnvelope,
  INGRESS,
  ingressMessageId,
  type Queue,
  type QueueMessage,
} from '@baton/core/adapter';
import {
  createEngine,
  drainOutbox,
  type Engine,
  type EngineOptions,
  type Inbound,
  pauseActor,
  purgeDeadLetter,
  redriveDeadLetter,
  resumeActor,
  runTurn,
  sweepOutbox,
  type TurnOptions,
  timerFire,
  Worker,
} from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { bank } from './bank.ts';
import { commitsOf, runUntilIdle, setup } from './helpers.ts';

/** A redrive of a letter kept as too old to tell: by an operator who knows it never applied. */
const FORCE = { force: true };

const DAY = 24 * 60 * 60 * 1000;
// Longer than the queue's 5-minute dedupe window, which a new life's ids must outlast too.
const RETENTION = 10 * 60_000;

const charges: Array<{ amount: number; key: string }> = [];
const Charge = effect({
  name: 'charge',
  payload: z.object({ amount: z.number() }),
  run: async ({ amount }, { idempotencyKey }) => {
    charges.push({ amount, key: idempotencyKey });
  },
});

/** Keeps the first 100 characters of each line it is sent. */
const Log = actor({
  name: 'log',
  state: z.object({ lines: z.array(z.string()) }),
  initial: () => ({ lines: [] as string[] }),
  handlers: {
    write: {
      payload: z.object({ line: z.string() }),
      handle: (ctx, { line }) => {
        ctx.state.lines.push(line.slice(0, 100));
      },
    },
  },
});

/** Reserves an item: refuses (retryably) while `stock.down`, so its messages dead-letter. */
const stock = { down: false };
const Stock = actor({
  name: 'stock',
  state: z.object({}),
  initial: () => ({}),
  handlers: {
    reserve: {
      payload: z.object({ item: z.string() }),
      handle: (_ctx, { item }) => {
        if (stock.down) throw new RetryableError('the stock is down');
        return `reserved ${item}`;
      },
    },
  },
});

type Reserved = AskReply<string, { item: string }>;

const Order = actor({
  name: 'order',
  state: z.object({ log: z.array(z.string()) }),
  initial: () => ({ log: [] as string[] }),
  handlers: {
    pay: {
      payload: z.object({ amount: z.number() }),
      handle: (ctx, { amount }) => {
        ctx.effect(Charge, { amount });
        ctx.send(Log.ref('audit'), 'write', { line: `paid ${amount}` });
        ctx.ask(Stock.ref('x'), 'reserve', { item: `for ${amount}` }, { onReply: 'reserved' });
      },
    },
    buy: {
      payload: z.object({ item: z.string() }),
      handle: (ctx, { item }) => {
        ctx.ask(Stock.ref('x'), 'reserve', { item }, { onReply: 'reserved', context: { item } });
      },
    },
    reserved: {
      payload: z.custom<Reserved>(),
      handle: (ctx, reply) => {
        const answer = reply.ok ? reply.value : reply.error.code;
        ctx.state.log.push(`${reply.context?.item ?? '-'} => ${answer}`);
      },
    },
    remind: {
      payload: z.object({}),
      handle: (ctx) => {
        ctx.state.log.push('reminded');
        ctx.schedule(1_000, 'note', { line: 'timer' });
      },
    },
    note: {
      payload: z.object({ line: z.string() }),
      handle: (ctx, { line }) => {
        ctx.send(Log.ref('audit'), 'write', { line });
      },
    },
    end: {
      payload: z.object({}),
      handle: (ctx) => ctx.halt(),
    },
  },
});

const o1 = Order.ref('o-1');

/** A harness whose queue records every message sent into it. */
function harness(
  options: {
    batchSize?: number;
    maxAttempts?: number;
    limits?: { maxTransactionItems?: number; maxItemBytes?: number };
  } = {},
) {
  charges.length = 0;
  stock.down = false;
  const h = setup({ actors: [Order, Log, Stock], ...options });
  /** The dead letters the engine told of, and its turns' counts summed. */
  const told = { letters: [] as string[], applied: 0, deadLettered: 0, versionConflicts: 0 };
  const engineOptions = {
    ...options,
    actors: [Order, Log, Stock],
    effects: [Charge],
    store: h.backend.store,
    queue: h.backend.queue,
    clock: h.clock,
    logger: silentLogger,
    markRetentionMs: RETENTION,
    idempotencyRetentionMs: 2 * RETENTION,
    onDeadLetter: (letter) => told.letters.push(letter.messageId),
    onTurn: (stats) => {
      told.applied += stats.applied;
      told.deadLettered += stats.deadLettered;
      told.versionConflicts += stats.versionConflicts;
    },
  } satisfies EngineOptions;
  const sent: QueueMessage[] = [];
  const send = h.backend.queue.send.bind(h.backend.queue);
  h.backend.queue.send = (messages) => {
    sent.push(...messages);
    return send(messages);
  };
  const worker = new Worker(engineOptions);
  const run = (w = worker) => runUntilIdle(w, h.backend, h.clock);
  /** Lets the halted record of `id` expire and the store delete it. */
  const expire = async (id: string) => {
    const expiresAt = (await h.record(id))?.expiresAt;
    expect(expiresAt).toBeDefined();
    h.clock.set(expiresAt!);
    h.backend.store.purgeExpired();
    expect(await h.record(id)).toBeUndefined();
  };
  return { ...h, engineOptions, worker, run, sent, expire, told };
}

/**
 * A harness whose records hold up to 2,000 bytes, so that the long notes (`long`) of a commit go
 * in items apart; `lines` are the first words of the lines the log applied.
 */
function apartHarness() {
  const h = harness({ limits: { maxItemBytes: 2_000 } });
  const long = (name: string) => `${name} ${'x'.repeat(700)}`;
  const lines = async () =>
    ((await h.state('log/audit')) as { lines: string[] }).lines.map((l) => l.split(' ')[0]);
  return { h, long, lines };
}

/** The `seq`-th message of a life `life` of o-1 to the log, writing `line`, sent at `sentAt`. */
function auditNote(seq: number, life: string, line: string, sentAt: number): Envelope {
  return {
    id: actorMessageId(o1.id, seq, life),
    from: o1.id,
    seq,
    prev: seq - 1,
    to: 'log/audit',
    name: 'write',
    payload: { line },
    sentAt,
  };
}

/** The log's lines, and a send of an envelope into the inbox (under its id, unless told). */
function auditOf(h: ReturnType<typeof harness>) {
  const lines = async () => ((await h.state('log/audit')) as { lines: string[] }).lines;
  const send = (envelope: Envelope, dedupeId = envelope.id) =>
    h.backend.queue.send([{ group: envelope.to, dedupeId, body: encodeEnvelope(envelope) }]);
  return { lines, send };
}

/**
 * Takes `count` messages from the inbox to a worker that commits them and dies before it drains
 * the commit's sends; the messages are done (acked), and no sweep runs.
 */
async function commitUndrained(h: ReturnType<typeof harness>, count: number): Promise<void> {
  const { queue } = h.backend;
  const crashing: Queue = {
    send: async () => Promise.reject(new Error('crash')),
    receive: (o) => queue.receive(o),
    ack: (receipts) => queue.ack(receipts),
    release: (receipts, delayMs) => queue.release(receipts, delayMs),
  };
  const received = await queue.receive({ max: count, visibilityTimeoutMs: 60_000 });
  expect(received).toHaveLength(count);
  await new Worker({ ...h.engineOptions, queue: crashing }).process(received);
  await queue.ack(received.map((m) => m.receipt));
}

describe("an actor's lives", () => {
  it('never repeat a message id, an effect key or an ask id, and effect keys take a namespace', async () => {
    const h = harness();
    await h.client.send(o1, 'pay', { amount: 10 });
    await h.client.send(o1, 'end', {});
    await h.run();
    const first = (await h.record(o1.id))!.life;
    await h.expire(o1.id);
    await h.client.send(o1, 'pay', { amount: 99 });
    await h.run();

    const second = (await h.record(o1.id))!.life;
    expect(second).toMatch(/^[0-9a-z]{12}$/);
    expect(second).not.toBe(first);
    // Two different charges: a payment API that keeps keys for years must see two keys.
    expect(charges.map(({ amount }) => amount)).toEqual([10, 99]);
    expect(new Set(charges.map(({ key }) => key)).size).toBe(2);
    expect(charges[1]!.key).toBe(`order/o-1:${second}.1`);
    // A drain may send a message again (the same envelope); one id never names two messages.
    const bodies = new Map<string, Set<string>>();
    for (const { dedupeId, body } of h.sent) {
      bodies.set(dedupeId, (bodies.get(dedupeId) ?? new Set()).add(body));
    }
    expect([...bodies.values()].filter((named) => named.size > 1)).toEqual([]);
    const envelopes = [...new Set(h.sent.map((m) => m.body))].map((b) => decodeEnvelope(b)!);
    const asks = envelopes.flatMap((e) => (e.ask === undefined ? [] : [e.ask]));
    expect(asks).toHaveLength(2);
    expect(new Set(asks).size).toBe(2);
    expect((await h.state('log/audit')) as unknown).toEqual({ lines: ['paid 10', 'paid 99'] });

    // An app that shares an outside service between stages namespaces its keys.
    await h.client.send(Order.ref('o-2'), 'pay', { amount: 5 });
    await h.run(new Worker({ ...h.engineOptions, effectKeyNamespace: 'shop-prod' }));
    expect(charges[2]!.key).toMatch(/^shop-prod:order\/o-2:[0-9a-z]{12}\.1$/);
  });

  it('do not let a worker that drained a version of the old life skip the held sends of the same version of the new one', async () => {
    // `warm` takes one message per turn, so the turn that skips the cancelled timer's fire
    // commits nothing.
    const h = harness({ batchSize: 1 });
    const warm = h.worker;
    await h.client.send(o1, 'remind', {});
    await h.run(warm); // warm drained version 1 of the first life, and keeps it warm
    const [timer] = await h.backend.store.listTimers(o1.id);
    await h.client.send(o1, 'end', {});
    await h.run(new Worker(h.engineOptions)); // halted at version 2: the timer is cancelled
    await h.expire(o1.id);

    // The cancelled timer's fire, armed before the halt, waits in the inbox. The new life's
    // first commit holds a send; the worker that made it dies before its drain.
    await h.backend.queue.send([timerFire(timer!)]);
    await h.client.send(o1, 'note', { line: 'a' });
    const received = await h.backend.queue.receive({ max: 2, visibilityTimeoutMs: 60_000 });
    const q = h.backend.queue;
    const failing: Queue = {
      send: async () => Promise.reject(new Error('crash')),
      receive: (o) => q.receive(o),
      ack: (receipts) => q.ack(receipts),
      release: (receipts, delayMs) => q.release(receipts, delayMs),
    };
    // Its drain fails: it would ack both messages (they are done), but dies first.
    const crashed = await new Worker({ ...h.engineOptions, queue: failing }).process(received);
    expect(crashed.done).toHaveLength(2);
    expect(await h.record(o1.id)).toMatchObject({ ver: 1, outbox: [{ seq: 1 }] });
    await q.release(
      received.map((m) => m.receipt),
      0,
    );

    // `warm` gets the fire first: it commits nothing, and reads the new life's version 1.
    await h.client.send(o1, 'note', { line: 'b' });
    await h.run(warm);

    expect((await h.state('log/audit')) as unknown).toEqual({ lines: ['a', 'b'] });
    expect(((await h.state(o1.id)) as { log: string[] }).log).toEqual([]);
  });

  it('give a later request an ask id of its own, so a late reply to an earlier one is dropped', async () => {
    const h = harness({ maxAttempts: 1 });
    // The stock is down: the request for A is dead-lettered and the asker told so.
    stock.down = true;
    await h.client.send(o1, 'buy', { item: 'A' }, { idempotencyKey: 'k' });
    await h.run();
    stock.down = false;
    const [letter] = await h.backend.store.listDeadLetters('stock/x');
    expect(letter).toBeDefined();

    // Past its claim (twice the idempotency retention) the client's key is free again: B reuses
    // it. The stock's dead letter for A is redriven before B's request reaches the stock.
    h.clock.advance(29 * DAY);
    await h.client.send(o1, 'buy', { item: 'B' }, { idempotencyKey: 'k' });
    // An actor's ask, told DEAD_LETTERED: redriven with force, as the test means to.
    await redriveDeadLetter(h.backend.store, h.backend.queue, 'stock/x', letter!.messageId, {
      force: true,
    });
    await h.run();

    expect(((await h.state(o1.id)) as { log: string[] }).log).toEqual([
      'A => DEAD_LETTERED',
      'B => reserved B',
    ]);
  });

  it('give every ask of a batch split over several commits an id of its own', async () => {
    // One message a commit: the record, its sends, its outcome and its ask's timer.
    const h = harness({ limits: { maxTransactionItems: 4 } });
    for (const item of ['A', 'B', 'C']) await h.client.send(o1, 'buy', { item });
    await h.run();
    const asks = h.sent.flatMap((m) => decodeEnvelope(m.body)?.ask ?? []);
    expect(new Set(asks).size).toBe(3);
    expect(((await h.state(o1.id)) as { log: string[] }).log).toEqual([
      'A => reserved A',
      'B => reserved B',
      'C => reserved C',
    ]);
  });

  it('never drain again the sends a long-stale warm record holds, once receivers may have forgotten them', async () => {
    const h = harness();
    const warm = h.worker;
    await h.client.send(o1, 'note', { line: 'a' });
    await h.run(warm); // warm keeps version 1, holding the send of 'a', which it drained
    await h.client.send(o1, 'note', { line: 'b' });
    await h.run(new Worker(h.engineOptions)); // version 2, by another worker
    // Past the mark retention: the log has forgotten o-1's messages, warm what it drained.
    h.clock.advance(RETENTION + 1);
    await h.client.send(o1, 'note', { line: 'c' });
    await h.run(warm);
    expect((await h.state('log/audit')) as unknown).toEqual({ lines: ['a', 'b', 'c'] });
    // Sent again, 'a' would be too old for the log to tell: a dead letter of a message applied.
    expect(await h.backend.store.listDeadLetters()).toEqual([]);
  });

  it('start a new life without first trying to commit over a warm record past its expiry', async () => {
    const h = harness();
    await h.client.send(o1, 'note', { line: 'a' });
    await h.run();
    await h.client.send(o1, 'end', {});
    await h.run(); // the worker keeps the halted record warm, holding no sends
    const old = (await h.record(o1.id))!.life;
    await h.expire(o1.id);
    await h.client.send(o1, 'note', { line: 'b' });
    await h.run();
    expect((await h.record(o1.id))?.life).not.toBe(old);
    expect(await h.state('log/audit')).toEqual({ lines: ['a', 'b'] });
    // The warm record is known gone: no commit is made over it only to fail.
    expect(h.told.versionConflicts).toBe(0);
  });

  it('drain the sends a new life holds at the very version a worker drained in the old life', async () => {
    const h = harness();
    let n = 0;
    const message = (name: string, payload: unknown): Inbound => {
      n++;
      const envelope: Envelope = {
        id: ingressMessageId(o1.id, `m${n}`),
        from: INGRESS,
        seq: 0,
        to: o1.id,
        name,
        payload,
        sentAt: h.clock.now(),
      };
      return { envelope, queueSeq: String(n) };
    };
    const { store, queue } = h.backend;
    const turn = (engine: Engine, name: string, payload: unknown, options?: TurnOptions) =>
      runTurn(engine, o1.id, [message(name, payload)], options);
    // The old life, on a worker that drains its own commits: a note, then the halt.
    const warm = createEngine(h.engineOptions);
    const a = await turn(warm, 'note', { line: 'a' });
    await drainOutbox(store, queue, a.undrained!);
    await h.run();
    const end = await turn(warm, 'end', {});
    const drainedAt = { ver: end.ver, life: end.life };
    await h.expire(o1.id);

    // The new life, on another worker, which dies before it drains its second commit.
    const other = createEngine(h.engineOptions);
    const b = await turn(other, 'note', { line: 'b' });
    await drainOutbox(store, queue, b.undrained!);
    await h.run();
    const c = await turn(other, 'note', { line: 'c' });
    expect(c.ver).toBe(drainedAt.ver);
    expect(c.life).not.toBe(drainedAt.life);

    // The first worker, which drained that version of the old life, takes the next message.
    const d = await turn(warm, 'note', { line: 'd' }, { drainedAt });
    await drainOutbox(store, queue, d.undrained!);
    await h.run();
    expect((await h.state('log/audit')) as unknown).toEqual({ lines: ['a', 'b', 'c', 'd'] });
  });

  it("apply a sender's new life's first message after a message of its old life, too old to tell, was dead-lettered", async () => {
    const { Audit } = bank();
    const h = setup({ actors: [Audit] });
    const from = 'audit/sender';
    const message = (life: string, seq: number, prev: number, entry: string, sentAt: number) => ({
      id: actorMessageId(from, seq, life),
      from,
      seq,
      prev,
      to: 'audit/log',
      name: 'record',
      payload: { entry },
      sentAt,
    });
    const enqueue = (envelope: Envelope): Promise<void> =>
      h.backend.queue.send([
        { group: envelope.to, dedupeId: envelope.id, body: encodeEnvelope(envelope) },
      ]);
    // A copy of the sender's old life's fifth message, the first on a channel it had reopened
    // after a while idle (prev 0), sent longer ago than any mark is kept (a dead letter
    // redriven late): the receiver cannot tell whether it was applied.
    await enqueue(message('oldlife', 5, 0, 'old', h.clock.now() - 40 * DAY));
    await h.run();
    expect(await h.state('audit/log')).toEqual({ entries: [] });
    // The sender's new life counts from 1 again.
    await enqueue(message('newlife', 1, 0, 'new', h.clock.now()));
    await h.run();
    expect(await h.state('audit/log')).toEqual({ entries: ['new'] });
  });

  it("never let an old life's sends, left undrained past its record's expiry, stand in for a new life's", async () => {
    const { h, long, lines } = apartHarness();
    const { store, queue } = h.backend;

    // The old life sends three notes and halts in one commit; its worker dies before it drains
    // them, and the sweeper is down for weeks.
    for (const n of [1, 2, 3]) await h.client.send(o1, 'note', { line: long(`old${n}`) });
    await h.client.send(o1, 'end', {});
    await commitUndrained(h, 4);
    const old = (await h.record(o1.id))!.life;
    const apart = await store.readOutbox(o1.id);
    expect(apart.flatMap((item) => item.envelopes.map((e) => e.seq))).toEqual([1, 2, 3]);
    expect(apart.map((item) => item.life)).toEqual(apart.map(() => old));
    await h.expire(o1.id);
    expect(await store.readOutbox(o1.id)).toEqual(apart);

    // The new life counts from 1 again: its first two notes, in an item apart of the same seq as
    // the old life's first, are applied. Then the sweeper comes back and finds the old life's.
    for (const name of ['new1', 'new2']) await h.client.send(o1, 'note', { line: long(name) });
    await h.run();
    expect((await h.record(o1.id))!.life).not.toBe(old);
    expect(await sweepOutbox(store, queue, o1.id)).toBe(3);
    await h.run();
    await h.client.send(o1, 'note', { line: 'new3' });
    await h.run();

    // Every message of the new life applied once; every one of the old life kept, none applied.
    expect(await lines()).toEqual(['new1', 'new2', 'new3']);
    const letters = await store.listDeadLetters('log/audit');
    expect(letters.map((letter) => letter.messageId).sort()).toEqual(
      [1, 2, 3].map((seq) => actorMessageId(o1.id, seq, old)),
    );
    expect(letters.map((letter) => letter.error.code)).toEqual(Array(3).fill('DEAD_LETTERED'));
    expect(letters[0]!.error.message).toContain('by a life of order/o-1 that has ended');
    expect(letters[0]!.error.details).toEqual({
      messageId: letters[0]!.messageId,
      actorId: 'log/audit',
      sentAt: letters[0]!.envelope.sentAt,
    });
    expect(await store.readOutbox(o1.id)).toEqual([]);

    // A copy sent again past the queue's dedupe window finds its dead letter kept: one letter.
    h.clock.advance(10 * 60_000);
    const copy = h.sent.find((m) => m.dedupeId === letters[0]!.messageId)!;
    expect(decodeEnvelope(copy.body)?.lifeEnded).toBe(true);
    await queue.send([copy]);
    await h.run();
    expect(await store.listDeadLetters('log/audit')).toEqual(letters);
    // An operator who knows it was never applied redrives it: applied once, after the others.
    const first = letters[0]!.messageId;
    expect(h.told.letters.sort()).toEqual(letters.map((letter) => letter.messageId).sort());
    const before = { ...h.told };
    await redriveDeadLetter(store, queue, 'log/audit', first, FORCE);
    await h.run();
    expect(await lines()).toEqual(['new1', 'new2', 'new3', 'old1']);
    // Counted as applied, and no dead letter told of (metrics and alarms count those).
    expect(h.told.letters).toHaveLength(3);
    expect(h.told.applied - before.applied).toBe(1);
    expect(h.told.deadLettered).toBe(before.deadLettered);

    // Its letter stays as the proof it was applied, out of the lists: a copy that comes later
    // (no mark tells it) is dropped, where a fresh dead letter would be redriven again.
    expect(await store.listDeadLetters('log/audit')).toEqual(letters.slice(1));
    const proof = await store.readDeadLetter('log/audit', first);
    expect(proof?.applied).toEqual({ at: h.clock.now(), expiresAt: h.clock.now() + RETENTION });
    expect(proof?.envelope.payload).toBeNull();
    expect(proof?.redrivable).toBe(false); // nor by an earlier Baton's redrive
    // A copy of the redrive names the letter's `at`: the proof's is new, so an earlier Baton,
    // which knows no `applied`, finds no letter to redrive either.
    expect(proof?.at).toBe(h.clock.now());
    expect(proof?.at).not.toBe(letters[0]!.at);
    h.clock.advance(10 * 60_000);
    await queue.send([{ ...copy, dedupeId: `${copy.dedupeId}~again` }]);
    const redrive = h.sent.find((m) => decodeEnvelope(m.body)?.redrive !== undefined)!;
    await queue.send([{ ...redrive, dedupeId: `${redrive.dedupeId}~again` }]);
    await h.run();
    expect(await lines()).toEqual(['new1', 'new2', 'new3', 'old1']);
    expect(await store.listDeadLetters('log/audit')).toEqual(letters.slice(1));
    await expect(redriveDeadLetter(store, queue, 'log/audit', first)).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    const by = { by: 'ops' };
    await expect(purgeDeadLetter(store, 'log/audit', first, by)).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    // The proof goes once no copy can come: the queue keeps none longer than the retention.
    h.clock.set(proof!.applied!.expiresAt);
    store.purgeExpired();
    expect(await store.readDeadLetter('log/audit', first)).toBeUndefined();
  });

  it('never lose the sends a halted record holds when it expires before they are drained', async () => {
    const h = harness();
    const { store, queue } = h.backend;
    // A note and the halt in one commit: the note waits in the record; its worker dies before
    // it drains, and the sweeper is down for weeks, past the halted record's expiry.
    await h.client.send(o1, 'note', { line: 'held' });
    await h.client.send(o1, 'end', {});
    await commitUndrained(h, 2);
    const halted = (await h.record(o1.id))!;
    expect(halted.outbox?.map((item) => item.envelopes.length)).toEqual([1]);
    h.clock.set(halted.expiresAt! + DAY);
    store.purgeExpired();
    expect((await h.record(o1.id))?.outbox).toEqual(halted.outbox);

    // The sweeper comes back and sends it: too old for the log to tell whether it applied it,
    // it is kept as a dead letter; redriven, it is applied once.
    expect(await sweepOutbox(store, queue, o1.id)).toBe(1);
    await h.run();
    const [letter] = await store.listDeadLetters('log/audit');
    expect(letter?.error.message).toContain('days ago');
    await redriveDeadLetter(store, queue, 'log/audit', letter!.messageId, FORCE);
    await h.run();
    expect(await h.state('log/audit')).toEqual({ lines: ['held'] });
    // Its sends retired, the record goes: the next message starts a new life.
    store.purgeExpired();
    expect(await h.record(o1.id)).toBeUndefined();
  });

  it("drop the copies of an ended life's message that come after its letter, marked or not, whatever the receiver's mark", async () => {
    const h = harness();
    const { store, queue } = h.backend;
    const { lines, send } = auditOf(h);
    // The 7th message of a life of o-1 that ended long ago, sent marked, kept as a dead letter;
    // a copy drained unmarked (before the life ended, or by an earlier Baton) meets it kept.
    const old = auditNote(7, 'ended', 'old', h.clock.now() - 3 * RETENTION);
    await send({ ...old, lifeEnded: true });
    await h.run();
    await send(old, `${old.id}~unmarked`);
    await h.run();
    const [kept] = await store.listDeadLetters('log/audit');
    expect(kept?.envelope.lifeEnded).toBe(true);
    // Redriven, it is applied once. Then o-1's new life writes twice: the log's mark for o-1 is
    // at 2, below the old message's 7, so the mark would take a copy for a message after a gap.
    await redriveDeadLetter(store, queue, 'log/audit', old.id, FORCE);
    await h.run();
    for (const seq of [1, 2]) await send(auditNote(seq, 'new', `new${seq}`, h.clock.now()));
    await h.run();
    h.clock.advance(60_000);
    await send({ ...old, lifeEnded: true }, `${old.id}~again`);
    await send(old, `${old.id}~unmarked-again`);
    await h.run();
    expect(await lines()).toEqual(['old', 'new1', 'new2']);
    expect(await store.listDeadLetters('log/audit')).toEqual([]);
    expect((await store.readDeadLetter('log/audit', old.id))?.applied).toBeDefined();

    // Two copies of another such message in one batch, the marked one first: the unmarked one
    // finds the letter the pending commit keeps for the first, neither applied nor replacing it.
    const older = auditNote(8, 'ended', 'older', h.clock.now() - 3 * RETENTION);
    await send({ ...older, lifeEnded: true });
    await send(older, `${older.id}~unmarked`);
    await h.run();
    expect(await lines()).toEqual(['old', 'new1', 'new2']);
    const letters = await store.listDeadLetters('log/audit');
    expect(letters.map((letter) => [letter.messageId, letter.envelope.lifeEnded])).toEqual([
      [older.id, true],
    ]);
  });

  it("apply an old life's message once when a copy, redriven past twice the retention, meets the sender's new life's mark", async () => {
    const h = harness();
    const { store } = h.backend;
    const { lines, send } = auditOf(h);
    const note = (seq: number, life: string, line: string) =>
      auditNote(seq, life, line, h.clock.now());
    // A life of o-1 writes twice; a copy of its second message, committed but never
    // acknowledged, waits in the queue's dead-letter queue.
    const old2 = note(2, 'old', 'old2');
    await send(note(1, 'old', 'old1'));
    await send(old2);
    await h.run();
    // Long after, o-1's new life writes: the log's mark for o-1 is the new life's, at 1, so it
    // would take the old copy (seq 2, prev 1) for the new life's next message.
    h.clock.advance(3 * RETENTION);
    await send(note(1, 'new', 'new1'));
    await h.run();
    await send(old2, `redrive-${old2.id}`);
    await h.run();
    await send(note(2, 'new', 'new2'));
    await h.run();
    expect(await lines()).toEqual(['old1', 'old2', 'new1', 'new2']);
    // The copy is kept, too old to tell: whoever knows it was never applied may redrive it.
    const letters = await store.listDeadLetters('log/audit');
    expect(letters.map((letter) => [letter.messageId, letter.error.code])).toEqual([
      [old2.id, 'DEAD_LETTERED'],
    ]);
  });

  it("never apply again a client's keyed message whose copy comes once its halted actor's record expired (I7 across lives)", async () => {
    const h = harness();
    await h.client.send(o1, 'pay', { amount: 7 }, { idempotencyKey: 'pay-7' });
    await h.client.send(o1, 'end', {});
    await h.run();
    const paid = h.sent.find((m) => decodeEnvelope(m.body)?.name === 'pay')!;
    // The life ends, its record and outcomes go; o-1 lives again. A copy of the keyed pay,
    // committed and never acknowledged in the first life, comes back from the queue's
    // dead-letter queue: the idempotency retention (at most twice the mark retention, which the
    // engine checks) has passed with the record.
    await h.expire(o1.id);
    await h.client.send(o1, 'remind', {});
    await h.run();
    await h.backend.queue.send([{ ...paid, dedupeId: `redrive-${paid.dedupeId}` }]);
    await h.run();
    expect(charges.map((charge) => charge.amount)).toEqual([7]);
    expect(((await h.state(o1.id)) as { log: string[] }).log).toEqual(['reminded']);
    const letters = await h.backend.store.listDeadLetters(o1.id);
    expect(letters.map((letter) => [letter.messageId, letter.error.code])).toEqual([
      [decodeEnvelope(paid.body)!.id, 'DEAD_LETTERED'],
    ]);
  });

  it('look for kept letters only for a message as old as the mark retention (less the margin for a clock)', async () => {
    const h = harness();
    const { store, queue } = h.backend;
    let reads = 0;
    const read = store.readDeadLetter.bind(store);
    store.readDeadLetter = (actorId, messageId) => {
      reads++;
      return read(actorId, messageId);
    };
    // The retention, less a margin for the sender's clock (half the retention here): such a copy
    // may have been kept as too old to tell. Twice the retention is the age of a life that ended.
    const threshold = RETENTION - RETENTION / 2;
    const ages = [0, threshold - 1, threshold, 2 * RETENTION];
    for (const [i, age] of ages.entries()) {
      reads = 0;
      const note: Envelope = {
        id: actorMessageId(o1.id, i + 1, 'L'),
        from: o1.id,
        seq: i + 1,
        prev: i,
        to: 'log/audit',
        name: 'write',
        payload: { line: `aged ${age}` },
        sentAt: h.clock.now() - age,
      };
      await queue.send([{ group: note.to, dedupeId: note.id, body: encodeEnvelope(note) }]);
      await h.run();
      expect(reads, `a message ${age} ms old`).toBe(age < threshold ? 0 : 1);
    }
  });

  it("never let a warm record of a life that ended drain that life's items as the live life's", async () => {
    const { h, long, lines } = apartHarness();
    const { store, queue } = h.backend;
    const send = async (...names: string[]) => {
      for (const name of names) await h.client.send(o1, 'note', { line: long(name) });
    };
    // A worker commits and drains the first life's first notes, and keeps its record warm.
    const warm = h.worker;
    await send('w1', 'w2', 'w3');
    await h.run(warm);
    // Another worker commits three more and the halt, and dies before it drains them.
    await send('old1', 'old2', 'old3');
    await h.client.send(o1, 'end', {});
    await commitUndrained(h, 4);
    await h.expire(o1.id);
    // A new life sends its first notes on a third worker; its next message reaches the warm one.
    await send('new1', 'new2');
    await h.run(new Worker(h.engineOptions));
    await h.client.send(o1, 'note', { line: 'new3' });
    await h.run(warm);
    await sweepOutbox(store, queue, o1.id);
    await h.run();

    expect(await lines()).toEqual(['w1', 'w2', 'w3', 'new1', 'new2', 'new3']);
    const kept = await store.listDeadLetters('log/audit');
    expect(kept.map((letter) => letter.envelope.seq).sort()).toEqual([4, 5, 6]);
  });

  it("apply an ended life's reply to an ask that still waits: its timer tells it never ran the continuation", async () => {
    const h = harness();
    const { store } = h.backend;
    const engine = createEngine(h.engineOptions);
    // o-1 asks the stock; the request is committed, not yet drained.
    const buy: Envelope = {
      id: ingressMessageId(o1.id, 'buy'),
      from: INGRESS,
      seq: 0,
      to: o1.id,
      name: 'buy',
      payload: { item: 'A' },
      sentAt: h.clock.now(),
    };
    await runTurn(engine, o1.id, [{ envelope: buy, queueSeq: '1' }]);
    const [ask] = await store.listTimers(o1.id);
    // A reply to it from a life of the stock that has ended.
    const reply: Envelope = {
      id: actorMessageId('stock/x', 1, 'ended'),
      from: 'stock/x',
      seq: 1,
      prev: 0,
      to: o1.id,
      name: '$reply',
      payload: { ok: true, value: 'an old answer' },
      replyTo: ask!.gen,
      sentAt: h.clock.now(),
      lifeEnded: true,
    };
    await runTurn(engine, o1.id, [{ envelope: reply, queueSeq: '2' }]);
    // The ask's timer was stored: its continuation had not run, so it runs now, once.
    expect(((await h.state(o1.id)) as { log: string[] }).log).toEqual(['A => an old answer']);
    expect(await store.listTimers(o1.id)).toEqual([]);
    expect(await store.listDeadLetters(o1.id)).toEqual([]);
    // A copy of it, later: the ask is over, and nothing more runs.
    await runTurn(engine, o1.id, [{ envelope: reply, queueSeq: '3' }]);
    expect(((await h.state(o1.id)) as { log: string[] }).log).toEqual(['A => an old answer']);
    expect(await store.listDeadLetters(o1.id)).toEqual([]);
  });

  it("keep a message of a sender's ended life that reaches a paused actor as a dead letter, never parked", async () => {
    const h = harness();
    const { store, queue } = h.backend;
    await pauseActor(store, queue, 'log/audit', { by: 'ops', now: h.clock.now() });
    const note: Envelope = {
      id: actorMessageId(o1.id, 1, 'ended'),
      from: o1.id,
      seq: 1,
      prev: 0,
      to: 'log/audit',
      name: 'write',
      payload: { line: 'old' },
      sentAt: h.clock.now(),
      lifeEnded: true,
    };
    await queue.send([{ group: note.to, dedupeId: note.id, body: encodeEnvelope(note) }]);
    await h.run();
    await resumeActor(store, queue, 'log/audit', { by: 'ops', now: h.clock.now() });
    await h.run();
    // Never applied: the log's record is the one the pause wrote, without a state.
    expect(await h.state('log/audit')).toBeNull();
    const letters = await store.listDeadLetters('log/audit');
    expect(letters.map(({ messageId, parked }) => ({ messageId, parked }))).toEqual([
      { messageId: note.id, parked: undefined },
    ]);

    // Redriven while the log is paused again, it is parked, and applied once on resume; its
    // proof is no parked message, and the turn counts it applied.
    await pauseActor(store, queue, 'log/audit', { by: 'ops', now: h.clock.now() });
    await redriveDeadLetter(store, queue, 'log/audit', note.id, FORCE);
    await h.run();
    expect((await store.readDeadLetter('log/audit', note.id))?.parked).toBe(1);
    // A parked message is applied on resume, never redriven: refused, saying it is parked.
    await expect(redriveDeadLetter(store, queue, 'log/audit', note.id)).rejects.toMatchObject({
      code: 'INVALID_STATE',
      message: expect.stringMatching(/is parked at log\/audit, which is paused, not dead-lettered/),
    });
    const before = h.told.applied;
    await resumeActor(store, queue, 'log/audit', { by: 'ops', now: h.clock.now() });
    await h.run();
    expect(await h.state('log/audit')).toEqual({ lines: ['old'] });
    const proof = await store.readDeadLetter('log/audit', note.id);
    expect(proof?.applied).toBeDefined();
    expect(proof?.parked).toBeUndefined();
    expect(await store.listDeadLetters('log/audit')).toEqual([]);
    expect(h.told.applied - before).toBe(1);
  });

  it('keep a halted actor halted when a late reply to an ask of before the halt arrives', async () => {
    const h = harness();
    await h.client.send(o1, 'buy', { item: 'A' });
    await h.client.send(o1, 'end', {});
    await h.run();
    // The reply arrived after the halt, which cancelled the ask: it is late, and only moves the
    // channel on. The record still expires, a retention after that reply at the earliest.
    const record = await h.record(o1.id);
    expect(((await h.state(o1.id)) as { log: string[] }).log).toEqual([]);
    expect(record?.expiresAt).toBeGreaterThanOrEqual(h.clock.now() + 2 * RETENTION);
    await h.expire(o1.id);
  });

  it('push a halted actor’s expiry later when a message it does not apply comes after the halt', async () => {
    const h = harness();
    const commits = commitsOf(h.backend, o1.id);
    stock.down = true; // the stock's answer is a dead letter's failed reply, retries later
    await h.client.send(o1, 'buy', { item: 'A' });
    await h.client.send(o1, 'end', {});
    await h.run();

    const [halt, ...after] = commits.filter((record) => record.expiresAt !== undefined);
    expect(after).toHaveLength(1); // the late reply's commit, which only moved the channel on
    const late = after[0]!;
    expect(late.ver).toBe(halt!.ver + 1);
    expect(late.state).toEqual({ log: [] });
    // Retention from that later message on: its marks must be forgotten before a new life.
    expect(late.expiresAt).toBe(h.clock.now() + 2 * RETENTION);
    expect(late.expiresAt).toBeGreaterThan(halt!.expiresAt!);
  });
});
