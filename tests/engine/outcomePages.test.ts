/**
 * Ingress outcomes in pages: a batch of ingress messages commits its outcomes as one item (the
 * actor's current outcome page) beside the record, and I7 holds for the key's whole retention —
 * a copy is applied once whether its outcome sits in the current page, a closed one, or an item
 * of its own from before pages; a reused key is refused; outcomes read back after their page
 * closed.
 */
import { actor, ErrorCode, isBatonError, SYSTEM } from '@baton/core';
import {
  type Commit,
  type Envelope,
  encodeEnvelope,
  INGRESS,
  ingressMessageId,
  jsonSize,
  messageFingerprint,
  pageEntriesBytes,
  pageEntryBytes,
  pageItemBytes,
  type Store,
} from '@baton/core/adapter';
import { Client } from '@baton/core/client';
import { PAGE_BYTES, pageBytes } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { type Harness, settled, setup } from './helpers.ts';

const DAY = 24 * 60 * 60 * 1000;

function counter() {
  const runs = { add: 0 };
  const Counter = actor({
    name: 'counter',
    state: z.object({ n: z.number(), total: z.number() }),
    initial: () => ({ n: 0, total: 0 }),
    handlers: {
      add: {
        public: true,
        /** `pad`: reply with that many characters instead, for an outcome of that size. */
        payload: z.object({ by: z.number(), pad: z.number().optional() }),
        handle: (ctx, { by, pad }) => {
          runs.add++;
          ctx.state.n++;
          ctx.state.total += by;
          return pad === undefined ? ctx.state.total : 'x'.repeat(pad);
        },
      },
    },
  });
  return { Counter, runs };
}

/** Enough messages to close several pages (each outcome takes well over 100 bytes). */
const MANY = Math.ceil((3 * PAGE_BYTES) / 100);

/** An ingress message as a client sends it, enqueued as is (a queue's redriven copy is one). */
function ingress(key: string, by: number, sentAt: number, pad?: number): Envelope {
  const payload = pad === undefined ? { by } : { by, pad };
  return {
    id: ingressMessageId('counter/c', key, SYSTEM),
    from: INGRESS,
    seq: 0,
    to: 'counter/c',
    name: 'add',
    payload,
    sentAt,
    fingerprint: messageFingerprint('add', payload),
  };
}

async function enqueue(h: Harness, envelope: Envelope, dedupeId = envelope.id): Promise<void> {
  await h.backend.queue.send([{ group: envelope.to, dedupeId, body: encodeEnvelope(envelope) }]);
}

/** Sends `count` keyed messages of 1, a millisecond apart, and applies them. */
async function fill(h: Harness, count: number, prefix = 'fill'): Promise<void> {
  const ref = { type: 'counter', key: 'c', id: 'counter/c' } as never;
  for (let i = 0; i < count; i++) {
    await h.client.send(ref, 'add' as never, { by: 1 } as never, {
      idempotencyKey: `${prefix}-${i}`,
    });
    h.clock.advance(1);
  }
  await h.run();
}

function recordingCommits(h: Harness): Commit[] {
  const commits: Commit[] = [];
  const commit = h.backend.store.commit.bind(h.backend.store);
  h.backend.store.commit = async (c) => {
    commits.push(structuredClone(c));
    await commit(c);
  };
  return commits;
}

/** How many pages the recorded commits closed: a life numbers its pages from when they began. */
function pagesClosed(commits: readonly Commit[]): number {
  const first = commits.find((c) => c.outcomes)?.outcomes?.page ?? 0;
  return (commits.at(-1)?.record.outcomePage?.page ?? first) - first;
}

/** An actor whose reply is as long as its state says: a copy of a message may reply more. */
const Echo = actor({
  name: 'echo',
  state: z.object({ n: z.number(), reply: z.number() }),
  initial: () => ({ n: 0, reply: 0 }),
  handlers: {
    size: {
      public: true,
      payload: z.object({ bytes: z.number().int() }),
      handle: (ctx, { bytes }) => {
        ctx.state.reply = bytes;
      },
    },
    ask: {
      public: true,
      payload: z.object({}),
      handle: (ctx) => {
        ctx.state.n++;
        return 'x'.repeat(ctx.state.reply);
      },
    },
  },
});

function echo(key: string, name: 'size' | 'ask', payload: object, sentAt: number): Envelope {
  return {
    id: ingressMessageId('echo/e', key, SYSTEM),
    from: INGRESS,
    seq: 0,
    to: 'echo/e',
    name,
    payload,
    sentAt,
    fingerprint: messageFingerprint(name, payload),
  };
}

describe('ingress outcomes in pages', () => {
  it('closes a page in a commit of its own when an outcome does not fit beside its entries, and still skips a copy of a message in it', async () => {
    // A page item holds 4,000 bytes and closes past 1,000: a reply may take 3,000 as JSON.
    const h = setup({ actors: [Echo], batchSize: 10, limits: { maxItemBytes: 4000 } });
    const commits = recordingCommits(h);
    const start = h.clock.now();
    // Keys as long as a client gives them: the page holds each one twice.
    const key = (name: string) => `${name}-${'k'.repeat(120)}`;
    const most = 4000 - pageBytes(h.backend.store.limits);
    const asked = echo(key('asked'), 'ask', {}, start);
    await enqueue(h, asked);
    await h.run();
    const held = (await h.record('echo/e'))?.outcomePage;
    // A life numbers its pages from the time they began.
    expect(held).toMatchObject({ page: start });

    // Replies as large as the engine lets them be, less a little: each fits a page of its own,
    // not one beside the entries that page holds.
    const empty = { key: asked.id, actorId: 'echo/e', outcome: { ok: true, value: '' } };
    const bytes =
      most -
      jsonSize({ ...empty, expiresAt: start, fingerprint: asked.fingerprint, sentAt: start }) -
      8;
    await enqueue(h, echo('s2', 'size', { bytes }, start + 1));
    await h.run();
    const page = await h.record('echo/e');
    expect(page?.outcomePage).toMatchObject({ page: start });
    const large = {
      ...empty,
      outcome: { ok: true as const, value: 'x'.repeat(bytes) },
      expiresAt: start,
      sentAt: start,
    };
    expect(jsonSize(large)).toBeLessThanOrEqual(most);
    expect((page?.outcomePage?.bytes ?? 0) + pageItemBytes(pageEntryBytes(large))).toBeGreaterThan(
      4000,
    );

    // A copy of the message in the open page, whose handler now replies large: the page is
    // closed first, and the copy, looked up there, is skipped.
    commits.length = 0;
    await enqueue(h, asked, 'asked-again');
    // And a new message with as large a reply, applied in the next page.
    const next = echo(key('next'), 'ask', {}, start + 2);
    await enqueue(h, next);
    await h.run();
    expect(await h.state('echo/e')).toMatchObject({ n: 2 });
    expect(await h.client.outcome(asked.id)).toEqual({ ok: true, value: '' });
    expect(await h.client.outcome(next.id)).toEqual({ ok: true, value: 'x'.repeat(bytes) });
    // The page closed by a commit of its own, which writes no outcome; the reply went to the
    // next page, which it fills.
    expect(commits[0]?.outcomes).toBeUndefined();
    expect(commits[0]?.record.outcomePage).toMatchObject({ page: start + 1, bytes: 0 });
    expect(commits.at(-1)?.outcomes).toMatchObject({ page: start + 1 });
    expect(commits.at(-1)?.outcomes?.records.map((o) => o.key)).toEqual([next.id]);
  });

  it('hands the store the sizes of the record and of the page it measured, and no page size on a store without pages', async () => {
    for (const pages of [true, false]) {
      const { Counter } = counter();
      const h = setup({ actors: [Counter], batchSize: 10 });
      if (!pages)
        (h.backend.store as { readPagedOutcomes?: unknown }).readPagedOutcomes = undefined;
      const commits = recordingCommits(h);
      for (let i = 0; i < 3; i++) await enqueue(h, ingress(`k${i}`, 1, h.clock.now()));
      await h.run();
      expect(commits.length, `pages: ${pages}`).toBeGreaterThan(0);
      for (const commit of commits) {
        expect(commit.measured?.record).toBe(jsonSize(commit.record));
        const outcomes = commit.outcomes?.records ?? [];
        expect(outcomes.length > 0, `pages: ${pages}`).toBe(pages);
        expect(commit.idempotency.length > 0, `pages: ${pages}`).toBe(!pages);
        // A page's outcomes as its entries: each one's JSON, its key again, an entry's overhead.
        const pageBytes = pageEntriesBytes(outcomes);
        expect(commit.measured?.outcomes).toBe(pages ? pageBytes : undefined);
      }
    }
  });

  it('skips a copy of a message in the current page when a commit of the same turn closes that page before the copy is written', async () => {
    const { Counter } = counter();
    // A page item holds 2,000 bytes and closes past 500: k0 stays in an open page.
    const h = setup({ actors: [Counter], batchSize: 10, limits: { maxItemBytes: 2000 } });
    const start = h.clock.now();
    await enqueue(h, ingress('k0', 1, start));
    await h.run();
    // One batch: three large outcomes fill the page (and close it), then a copy of k0, which
    // no longer fits that commit and is written after it, to the next page.
    for (let i = 1; i <= 3; i++) await enqueue(h, ingress(`k${i}`, 1, start + i, 320));
    await enqueue(h, ingress('k0', 1, start), 'k0-again');
    await h.run();

    // The copy's handler may run (its turn is decided after), but it is never committed.
    expect(await h.state('counter/c')).toMatchObject({ n: 4, total: 4 });
  });

  it('appends to the current page after a commit of the same turn closed one, so a later copy of a message in the closed page is skipped', async () => {
    const { Counter, runs } = counter();
    // Small items: the batch splits into several commits, the first of which closes a page.
    const h = setup({ actors: [Counter], batchSize: 10, limits: { maxItemBytes: 1200 } });
    const commits = recordingCommits(h);
    const start = h.clock.now();
    // The last message of the batch was sent first (a retry carries its first send's time).
    for (let i = 1; i < 10; i++) await enqueue(h, ingress(`k${i}`, 1, start + 10 + i));
    await enqueue(h, ingress('k0', 1, start));
    await h.run();
    expect(runs.add).toBe(10);

    let page = start;
    let closedSentAt = 0;
    for (const commit of commits) {
      // Each commit writes the page the record before it named, and closes pages only forward.
      if (commit.outcomes) expect(commit.outcomes.page).toBe(page);
      const state = commit.record.outcomePage!;
      expect(state.closedSentAt ?? 0).toBeGreaterThanOrEqual(closedSentAt);
      page = state.page;
      closedSentAt = state.closedSentAt ?? 0;
    }
    expect(page, 'pages closed').toBeGreaterThan(start);

    // A copy of every message comes back (a queue's redrive): none is applied again.
    for (let i = 1; i < 10; i++)
      await enqueue(h, ingress(`k${i}`, 1, start + 10 + i), `again-${i}`);
    await h.run();
    expect(runs.add).toBe(10);
    expect(await h.state('counter/c')).toMatchObject({ n: 10, total: 10 });
  });

  it('commits a batch of ten ingress messages as two items: the record and one outcome page', async () => {
    const { Counter } = counter();
    const h = setup({ actors: [Counter], batchSize: 10 });
    const commits = recordingCommits(h);
    const start = h.clock.now();
    for (let i = 0; i < 10; i++) await enqueue(h, ingress(`k${i}`, 1, start + i));
    await h.run();

    expect(commits).toHaveLength(1);
    const [commit] = commits;
    expect(commit?.idempotency).toEqual([]);
    expect(commit?.outbox).toEqual([]);
    expect(commit?.outcomes?.records).toHaveLength(10);
    expect(commit?.record.outcomePage).toMatchObject({ page: start });
    // The page counts the bytes its outcomes take as its entries, measured once, as the message
    // was applied.
    const written = pageEntriesBytes(commit!.outcomes!.records);
    expect(commit?.record.outcomePage?.bytes).toBe(written);
    expect(await h.client.outcome(ingress('k9', 1, 0).id)).toEqual({ ok: true, value: 10 });
  });

  it('applies once a copy of a message whose outcome is in a closed page, and applies a new message sent as early', async () => {
    const { Counter, runs } = counter();
    const h = setup({ actors: [Counter], batchSize: 10 });
    const commits = recordingCommits(h);
    const first = ingress('first', 100, h.clock.now());
    await enqueue(h, first);
    h.clock.advance(1);
    await fill(h, MANY);
    const record = await h.record('counter/c');
    expect(pagesClosed(commits)).toBeGreaterThanOrEqual(2);
    expect(record?.outcomePage?.closedSentAt).toBeGreaterThanOrEqual(first.sentAt);

    // The queue's dead letter of the first message, redriven: a new queue message, same body.
    await enqueue(h, first, 'redriven-copy');
    // A message never applied, sent as early: not a copy, so applied.
    await enqueue(h, ingress('late', 1_000, first.sentAt));
    await h.run();

    expect(runs.add).toBe(1 + MANY + 1);
    expect(await h.state('counter/c')).toEqual({ n: MANY + 2, total: 100 + MANY + 1_000 });
    expect(await h.client.outcome(first.id)).toEqual({ ok: true, value: 100 });
  });

  it('keeps the outcome of a copy found in a closed page as an item of its own, once however many copies a turn takes', async () => {
    const { Counter, runs } = counter();
    const h = setup({ actors: [Counter], batchSize: 10 });
    const commits = recordingCommits(h);
    const first = ingress('first', 100, h.clock.now());
    await enqueue(h, first);
    h.clock.advance(1);
    await fill(h, MANY);
    expect(pagesClosed(commits)).toBeGreaterThanOrEqual(2);
    const before = commits.length;
    const ver = (await h.record('counter/c'))?.ver ?? 0;

    // Two copies in one batch: retries past the queue's dedupe window.
    await enqueue(h, first, 'retry-1');
    await enqueue(h, first, 'retry-2');
    await h.run();

    expect(runs.add).toBe(1 + MANY);
    const kept = commits.slice(before).flatMap((c) => c.replaceIdempotency ?? []);
    expect(kept.map((outcome) => [outcome.key, outcome.outcome])).toEqual([
      [first.id, { ok: true, value: 100 }],
    ]);
    // Its first outcome's expiry: kept apart no longer than in its page.
    const paged = await h.backend.store.readPagedOutcomes?.('counter/c', first.sentAt);
    expect(kept[0]?.expiresAt).toBe(paged?.find((o) => o.key === first.id)?.expiresAt);
    expect((await h.record('counter/c'))?.ver).toBe(ver + 1);
  });

  it("applies once a send retried after its first copy's page closed: the retry carries the first send's sentAt", async () => {
    const { Counter, runs } = counter();
    const h = setup({ actors: [Counter], batchSize: 10 });
    const ref = Counter.ref('c');
    const { messageId } = await h.client.send(ref, 'add', { by: 100 }, { idempotencyKey: 'k' });
    h.clock.advance(1);
    // Queued behind it, enough to close its page before the retry comes up.
    const ref2 = { type: 'counter', key: 'c', id: 'counter/c' } as never;
    for (let i = 0; i < MANY; i++) {
      await h.client.send(ref2, 'add' as never, { by: 1 } as never);
      h.clock.advance(1);
    }
    // Past the queue's dedupe window, unanswered: the retry is enqueued again.
    h.clock.advance(6 * 60_000);
    await h.client.send(ref, 'add', { by: 100 }, { idempotencyKey: 'k' });
    expect(h.backend.queue.counts().total).toBe(MANY + 2);
    await h.run();

    expect(runs.add).toBe(MANY + 1);
    expect(await h.state('counter/c')).toMatchObject({ total: 100 + MANY });
    expect(await h.client.outcome(messageId)).toEqual({ ok: true, value: 100 });
  });

  it("applies once a message two doors sent under one key, whichever applied: every copy carries the key's claim's sentAt, though a door's clock is behind it", async () => {
    const { Counter, runs } = counter();
    // Each commit closes its page: a copy is then looked up in closed pages alone.
    const h = setup({ actors: [Counter], limits: { outcomePageBytes: 1 } });
    const { store, queue } = h.backend;
    const enqueued: Envelope[] = [];
    const failing = {
      send: async () => Promise.reject(new Error('network')),
      receive: queue.receive.bind(queue),
      ack: queue.ack.bind(queue),
      release: queue.release.bind(queue),
    };
    const recording = {
      ...failing,
      send: async (messages: Parameters<typeof queue.send>[0]) => {
        for (const { body } of messages) enqueued.push(JSON.parse(body) as Envelope);
        return queue.send(messages);
      },
    };
    // Door X's clock runs 30 s ahead of door Y's. X claims the key, and its enqueue fails.
    const ahead = { now: () => h.clock.now() + 30_000 };
    const doorX = new Client({ actors: [Counter], store, queue: failing, clock: ahead }).asSystem();
    const doorY = new Client({
      actors: [Counter],
      store,
      queue: recording,
      clock: h.clock,
    }).asSystem();
    const ref = Counter.ref('c');
    const claimedAt = ahead.now();
    await expect(doorX.send(ref, 'add', { by: 5 }, { idempotencyKey: 'k' })).rejects.toThrow(
      'network',
    );
    // Y's send of the same message finds the claim and no outcome: its copy is enqueued and
    // applied, carrying the claim's sentAt, not Y's earlier one.
    await doorY.send(ref, 'add', { by: 5 }, { idempotencyKey: 'k' });
    expect(enqueued.map((envelope) => envelope.sentAt)).toEqual([claimedAt]);
    await h.run();
    expect(await h.state('counter/c')).toMatchObject({ total: 5 });

    // Past the queue's dedupe window, X's retry: on DynamoDB its read goes back to pages of
    // messages sent from the claim's sentAt (the embedded store reads by key), so its copy is
    // enqueued as it is here. The actor looks it up in the closed page and skips it.
    h.clock.advance(10 * 60_000);
    const copy = { ...enqueued[0]!, sentAt: claimedAt };
    await queue.send([{ group: 'counter/c', dedupeId: copy.id, body: encodeEnvelope(copy) }]);
    await h.run();
    expect(runs.add).toBe(1);
    expect(await h.state('counter/c')).toMatchObject({ n: 1, total: 5 });
  });

  it('reads each closed page about once for a backlog sent at one instant, and still applies every copy once', async () => {
    const { Counter } = counter();
    const h = setup({ actors: [Counter], batchSize: 1 });
    const commits = recordingCommits(h);
    const store = h.backend.store;
    const read = store.readPagedOutcomes!.bind(store);
    let outcomesRead = 0;
    store.readPagedOutcomes = async (actorId, sentAt, fromPage) => {
      const outcomes = await read(actorId, sentAt, fromPage);
      outcomesRead += outcomes.length;
      return outcomes;
    };
    // Every message may be a copy of one in a closed page: they share one sentAt.
    const sent = Array.from({ length: MANY }, (_, i) => ingress(`b${i}`, 1, h.clock.now()));
    for (const envelope of sent) await enqueue(h, envelope);
    await h.run();
    expect(pagesClosed(commits)).toBeGreaterThanOrEqual(2);
    // Turn by turn, a worker that read every live page would read ~MANY² / 2 outcomes.
    expect(outcomesRead).toBeLessThan(2 * MANY);

    // Copies of all of them (a redrive), each looked up in a page closed since the last read.
    for (const envelope of sent) await enqueue(h, envelope, `again-${envelope.id}`);
    await h.run();
    // (A copy of one in the open page may run its handler; its commit fails as a duplicate.)
    expect(await h.state('counter/c')).toMatchObject({ n: MANY, total: MANY });
    expect(outcomesRead).toBeLessThan(4 * MANY);
  });

  it('refuses a key reused for another payload after its outcome paged out, and answers a retry from the page', async () => {
    const { Counter, runs } = counter();
    const h = setup({ actors: [Counter], batchSize: 10 });
    const ref = Counter.ref('c');
    const { messageId } = await h.client.send(ref, 'add', { by: 5 }, { idempotencyKey: 'k' });
    h.clock.advance(1);
    await fill(h, MANY);
    expect((await h.record('counter/c'))?.outcomePage?.closedSentAt).toBeDefined();

    const reused = await settled(h.client.send(ref, 'add', { by: 6 }, { idempotencyKey: 'k' }));
    expect(reused.ok).toBe(false);
    expect(!reused.ok && isBatonError(reused.error) && reused.error.code).toBe(
      ErrorCode.IDEMPOTENCY_KEY_REUSED,
    );
    // The same message again: answered from its page, nothing enqueued.
    h.clock.advance(6 * 60_000);
    expect(await h.client.ask(ref, 'add', { by: 5 }, { idempotencyKey: 'k' })).toBe(5);
    expect(h.backend.queue.counts().total).toBe(0);
    expect(await h.client.outcome(messageId)).toEqual({ ok: true, value: 5 });
    expect(runs.add).toBe(MANY + 1);
  });

  it('frees a key once its claim (twice the retention, past any outcome of it) is over: a message with another payload under it is applied', async () => {
    const { Counter } = counter();
    const h = setup({ actors: [Counter], batchSize: 10 });
    const ref = Counter.ref('c');
    await h.client.send(ref, 'add', { by: 5 }, { idempotencyKey: 'k' });
    await fill(h, MANY);
    h.clock.advance(15 * DAY);
    const early = await settled(h.client.send(ref, 'add', { by: 6 }, { idempotencyKey: 'k' }));
    expect(!early.ok && (early.error as { code: string }).code).toBe(
      ErrorCode.IDEMPOTENCY_KEY_REUSED,
    );
    h.clock.advance(14 * DAY);
    const { messageId } = await h.client.send(ref, 'add', { by: 6 }, { idempotencyKey: 'k' });
    await h.run();

    expect(await h.state('counter/c')).toMatchObject({ total: 5 + MANY + 6 });
    expect(await h.client.outcome(messageId)).toEqual({ ok: true, value: 5 + MANY + 6 });
  });

  it('applies once after a crash at the commit that closes a page, and after a crash past it', async () => {
    const { Counter } = counter();
    const h = setup({ actors: [Counter], batchSize: 10 });
    const commits = recordingCommits(h);
    const store = h.backend.store;
    const commit = store.commit.bind(store);
    let crashes = 0;
    // A commit that closes a page fails before it is made, then (retried) its ack is lost.
    store.commit = async (c: Commit) => {
      const stored = (await store.load(c.record.id))?.outcomePage?.page;
      const closes = stored !== undefined && (c.record.outcomePage?.page ?? 0) > stored;
      if (closes && crashes++ % 2 === 0) throw new Error('crash before the commit');
      await commit(c);
      if (closes) throw new Error('crash after the commit');
    };
    const sent: Envelope[] = [];
    for (let i = 0; i < MANY; i++) {
      const envelope = ingress(`m${i}`, 1, h.clock.now());
      sent.push(envelope);
      await enqueue(h, envelope);
      h.clock.advance(1);
    }
    await h.run();
    // Every message again, as new queue messages (redriven copies): none applies.
    for (const envelope of sent) await enqueue(h, envelope, `${envelope.id}#copy`);
    await h.run();

    // Handlers run again for a commit that failed; what counts is what was committed.
    expect(crashes).toBeGreaterThan(4);
    expect(await h.state('counter/c')).toEqual({ n: MANY, total: MANY });
    expect(pagesClosed(commits)).toBeGreaterThanOrEqual(2);
    for (const envelope of sent.slice(0, 3)) {
      expect(await h.client.outcome(envelope.id)).toMatchObject({ ok: true });
    }
  });

  it('looks up the own items of outcomes an earlier Baton kept, for a record that had no pages', async () => {
    const { Counter, runs } = counter();
    const h = setup({ actors: [Counter], batchSize: 10 });
    const old = ingress('old', 100, h.clock.now());
    const store: Store = h.backend.store;
    // What a Baton before pages committed: the record, and the outcome as an item of its own.
    await store.commit({
      expectedVer: 0,
      record: {
        id: 'counter/c',
        ver: 1,
        life: 'oldbaton0001',
        state: { n: 1, total: 100 },
        inboxOffset: '0',
        marks: {},
        sentSeq: 0,
      },
      outbox: [],
      idempotency: [
        {
          key: old.id,
          actorId: 'counter/c',
          outcome: { ok: true, value: 100 },
          expiresAt: h.clock.now() + 14 * DAY,
          fingerprint: old.fingerprint!,
        },
      ],
    });
    h.clock.advance(1);
    await enqueue(h, old, 'redriven-copy');
    await enqueue(h, ingress('new', 1, h.clock.now()));
    await h.run();

    expect(runs.add).toBe(1);
    const record = await h.record('counter/c');
    expect(record?.state).toEqual({ n: 2, total: 101 });
    expect(record?.format).toBe(2);
    expect(record?.outcomePage?.itemsBefore).toBeGreaterThan(old.sentAt);
  });
});
