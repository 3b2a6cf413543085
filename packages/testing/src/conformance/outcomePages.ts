/**
 * Ingress outcomes over many commits: on a backend that keeps them in pages
 * (`Store.readPagedOutcomes`), a batch's outcomes are one page write beside the record; on any
 * backend, a copy of a message is skipped whether its outcome is recent or written long before
 * (a closed page), and outcomes read back, answering a retried send; and a reply as large as
 * the engine lets one be is answered beside a page that outcomes with long keys nearly filled
 * (a page item holds each key twice on DynamoDB: the engine measures it so).
 */
import { actor, ErrorCode, SYSTEM, silentLogger } from '@baton/core';
import {
  type Commit,
  type Envelope,
  encodeEnvelope,
  INGRESS,
  ingressMessageId,
  jsonSize,
  messageFingerprint,
} from '@baton/core/adapter';
import { Client } from '@baton/core/client';
import { PAGE_BYTES, pageBytes, Worker } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { ConformanceBackend } from './ConformanceBackend.ts';
import { Ledger } from './ledger.ts';
import { backendPerTest, pollUntilEmpty } from './suiteBackend.ts';

/** Enough messages to close two pages (each outcome takes over 100 bytes). */
const MESSAGES = Math.ceil((2 * PAGE_BYTES) / 100);

/** Counts `add`s; `echo` replies with `bytes` characters. */
const Echo = actor({
  name: 'echo',
  state: z.object({ n: z.number() }),
  initial: () => ({ n: 0 }),
  handlers: {
    add: {
      payload: z.object({}),
      handle: (ctx) => {
        ctx.state.n++;
      },
    },
    echo: {
      payload: z.object({ bytes: z.number().int() }),
      handle: (_ctx, { bytes }) => 'e'.repeat(bytes),
    },
  },
});

export function outcomePageSuite(name: string, open: () => Promise<ConformanceBackend>): void {
  describe(`ingress outcomes in pages on ${name}`, () => {
    const fresh = backendPerTest(open);

    async function start() {
      const b = await fresh();
      const commits: Commit[] = [];
      const commit = b.store.commit.bind(b.store);
      b.store.commit = async (c) => {
        commits.push(c);
        await commit(c);
      };
      const ports = { actors: [Ledger], store: b.store, queue: b.queue, clock: b.clock };
      const worker = new Worker({ ...ports, logger: silentLogger, visibilityTimeoutMs: 2_000 });
      const client = new Client(ports).asSystem();
      const run = () => pollUntilEmpty(worker, b);
      const enqueue = (envelopes: readonly Envelope[], suffix = '') =>
        b.queue.send(
          envelopes.map((envelope) => ({
            group: envelope.to,
            dedupeId: `${envelope.id}${suffix}`,
            body: encodeEnvelope(envelope),
          })),
        );
      return { b, client, run, commits, enqueue };
    }

    function message(key: string, sentAt: number): Envelope {
      const payload = { entry: key, amount: 1 };
      return {
        id: ingressMessageId('ledger/p', key, SYSTEM),
        from: INGRESS,
        seq: 0,
        to: 'ledger/p',
        name: 'add',
        payload,
        sentAt,
        fingerprint: messageFingerprint('add', payload),
      };
    }

    it('writes one page per commit, skips copies from a closed page and the current one, and reads outcomes back from both', async () => {
      const { b, client, run, commits, enqueue } = await start();
      const now = b.clock.now();
      const sent = Array.from({ length: MESSAGES }, (_, i) => message(`m${i}`, now + i));
      await enqueue(sent);
      await run();

      const record = await b.store.load('ledger/p');
      expect(record?.state).toMatchObject({ total: MESSAGES });
      const paged = typeof b.store.readPagedOutcomes === 'function';
      if (paged) {
        const first = commits.find((c) => c.outcomes)?.outcomes?.page ?? 0;
        expect(record?.outcomePage?.page).toBeGreaterThanOrEqual(first + 2);
        // Each commit: the record and at most one page, whatever its number of messages.
        expect(commits.every((c) => c.idempotency.length === 0)).toBe(true);
        expect(commits.reduce((n, c) => n + (c.outcomes?.records.length ?? 0), 0)).toBe(MESSAGES);
      }

      // Redriven copies (new queue messages, the same bodies) of the first and last messages.
      await enqueue([sent[0]!, sent.at(-1)!], '-copy');
      await run();
      expect((await b.store.load('ledger/p'))?.state).toMatchObject({ total: MESSAGES });
      for (const envelope of [sent[0]!, sent.at(-1)!]) {
        expect(await client.outcome(envelope.id)).toEqual({ ok: true });
      }
      if (paged) {
        const outcomes = await b.store.readPagedOutcomes?.('ledger/p', now);
        expect(outcomes?.map((outcome) => outcome.key).sort()).toEqual(
          sent.map((envelope) => envelope.id).sort(),
        );
        // From the second page on: all but the first's, which a reader that knows them need not
        // read again.
        const first = commits.find((c) => c.outcomes)?.outcomes?.page ?? 0;
        const inFirst = new Set(
          commits
            .flatMap((c) => (c.outcomes?.page === first ? c.outcomes.records : []))
            .map((o) => o.key),
        );
        expect(inFirst.size).toBeGreaterThan(0);
        const fromSecond = await b.store.readPagedOutcomes?.('ledger/p', now, first + 1);
        expect(fromSecond?.map((outcome) => outcome.key).sort()).toEqual(
          sent
            .map((envelope) => envelope.id)
            .filter((id) => !inFirst.has(id))
            .sort(),
        );
      }
    });

    /** A worker whose halted records expire 2 s after the halt, outcomes kept for as long. */
    function shortLived(b: ConformanceBackend) {
      const ports = { actors: [Ledger], store: b.store, queue: b.queue, clock: b.clock };
      const worker = new Worker({
        ...ports,
        logger: silentLogger,
        visibilityTimeoutMs: 2_000,
        markRetentionMs: 1_000,
        idempotencyRetentionMs: 2_000,
      });
      return { run: () => pollUntilEmpty(worker, b), client: new Client(ports).asSystem() };
    }

    /** Applies `count` messages keyed `<prefix><i>`, a millisecond apart; returns them. */
    async function applyMany(
      enqueue: (envelopes: readonly Envelope[]) => Promise<unknown>,
      run: () => Promise<unknown>,
      prefix: string,
      count: number,
      now: number,
    ): Promise<Envelope[]> {
      const sent = Array.from({ length: count }, (_, i) => message(`${prefix}${i}`, now + i));
      await enqueue(sent);
      await run();
      return sent;
    }

    it("does not apply a copy of an ended life's message in the next life: it is older than its outcome's retention", async () => {
      const { b, commits, enqueue } = await start();
      const { run, client } = shortLived(b);
      const old = message('k-old', b.clock.now());
      await enqueue([old]);
      await run();
      await client.send(Ledger.ref('p'), 'close', {});
      await run();
      await b.pass(2_001);
      await b.expire('ledger/p');
      expect(await b.store.load('ledger/p')).toBeUndefined();
      const renewed = message('k-new', b.clock.now());
      await enqueue([renewed]);
      await run();
      if (typeof b.store.readPagedOutcomes === 'function') {
        expect(commits.at(-1)?.outcomes).toMatchObject({ begins: true });
      }
      // Copies under fresh queue dedupe ids, as a retry after the queue's window sends them.
      await enqueue([old, renewed], '-copy');
      await run();
      expect((await b.store.load('ledger/p'))?.state).toEqual({ entries: ['k-new'], total: 1 });
    });

    it("finds a new life's outcomes, and skips copies of its messages, past the pages of an earlier life that outlived its record", async () => {
      const { b, enqueue } = await start();
      const { run, client } = shortLived(b);
      // Enough for two closed pages in the new life, and twice as many in the earlier one.
      const count = Math.ceil((2 * pageBytes(b.store.limits)) / 100);
      await applyMany(enqueue, run, 'old-', 2 * count, b.clock.now());
      await client.send(Ledger.ref('p'), 'close', {});
      await run();
      await b.pass(2_001);
      // The record goes; its pages stay, as they may until the store's TTL gets to them.
      await b.expire('ledger/p');
      expect(await b.store.load('ledger/p')).toBeUndefined();

      const sent = await applyMany(enqueue, run, 'new-', count, b.clock.now());
      const record = await b.store.load('ledger/p');
      expect(record?.state).toMatchObject({ total: count });
      if (typeof b.store.readPagedOutcomes === 'function') {
        expect(record?.outcomePage?.closedSentAt).toBeGreaterThanOrEqual(sent[0]!.sentAt);
      }
      // A copy of the new life's first message, whose outcome is in a closed page.
      await enqueue([sent[0]!], '-copy');
      await run();
      expect((await b.store.load('ledger/p'))?.state).toMatchObject({ total: count });
      expect(await client.outcome(sent[0]!.id)).toEqual({ ok: true });
      expect(await client.outcome(sent.at(-1)!.id)).toEqual({ ok: true });
    });

    it('answers a retried send from a closed page without enqueuing it, and refuses the key for another payload', async () => {
      const { b, client, run, enqueue } = await start();
      const ref = Ledger.ref('p');
      const first = { entry: 'first', amount: 5 };
      const sent = await client.send(ref, 'add', first, { idempotencyKey: 'first' });
      const { messageId } = sent;
      const now = b.clock.now() + 1;
      await enqueue(Array.from({ length: MESSAGES }, (_, i) => message(`m${i}`, now + i)));
      await run();
      if (typeof b.store.readPagedOutcomes === 'function') {
        const record = await b.store.load('ledger/p');
        expect(record?.outcomePage?.closedSentAt).toBeGreaterThanOrEqual(now);
      }

      // Answered with the first send's time, which bounds a read of its outcome.
      expect(await client.send(ref, 'add', first, { idempotencyKey: 'first' })).toEqual(sent);
      expect(await b.pending()).toBe(0);
      expect(await client.outcome(messageId)).toEqual({ ok: true });
      expect(await client.outcome(messageId, { sentAt: sent.sentAt })).toEqual({ ok: true });
      await expect(
        client.send(ref, 'add', { entry: 'other', amount: 5 }, { idempotencyKey: 'first' }),
      ).rejects.toMatchObject({ code: ErrorCode.IDEMPOTENCY_KEY_REUSED });
      expect((await b.store.load('ledger/p'))?.state).toMatchObject({ total: 5 + MESSAGES });
    });

    it('answers a reply as large as the store takes beside outcomes with long keys that nearly fill its page', async () => {
      const b = await fresh();
      const ports = { actors: [Echo], store: b.store, queue: b.queue, clock: b.clock };
      const worker = new Worker({ ...ports, logger: silentLogger, visibilityTimeoutMs: 2_000 });
      const client = new Client(ports).asSystem();
      const to = 'echo/p';
      const ingress = (key: string, sentAt: number, name: string, payload: object) => {
        const envelope: Envelope = {
          id: ingressMessageId(to, key, SYSTEM),
          from: INGRESS,
          seq: 0,
          to,
          name,
          payload,
          sentAt,
          fingerprint: messageFingerprint(name, payload),
        };
        return envelope;
      };
      const enqueue = (envelopes: readonly Envelope[]) =>
        b.queue.send(
          envelopes.map((e) => ({ group: e.to, dedupeId: e.id, body: encodeEnvelope(e) })),
        );
      const { limits } = b.store;
      const paged = typeof b.store.readPagedOutcomes === 'function';
      // Idempotency keys as long as a client may give them: 200 characters.
      const key = (i: number) => `${String(i).padStart(3, '0')}${'k'.repeat(197)}`;
      const sentAt = b.clock.now();
      await enqueue([ingress(key(0), sentAt, 'add', {})]);
      await pollUntilEmpty(worker, b);
      if (paged) {
        // More outcomes of the same size, as many as the page takes before it closes.
        const begun = (await b.store.load(to))?.outcomePage;
        const one = begun?.bytes ?? 0;
        const more = Math.floor((pageBytes(limits) - 1) / one) - 1;
        await enqueue(
          Array.from({ length: more }, (_, i) => ingress(key(i + 1), sentAt + i + 1, 'add', {})),
        );
        await pollUntilEmpty(worker, b);
        const page = (await b.store.load(to))?.outcomePage;
        expect(page?.page).toBe(begun?.page);
        expect(page?.bytes).toBeGreaterThan(pageBytes(limits) - one);
      }
      // The largest outcome the engine lets a reply have (maxOutcomeBytes), give or take the
      // digits of its times.
      const most = limits.maxItemBytes - (paged ? pageBytes(limits) : 0);
      const probe = ingress(key(999), sentAt, 'echo', { bytes: 100_000 });
      const empty = jsonSize({
        key: probe.id,
        actorId: probe.to,
        outcome: { ok: true, value: '' },
        expiresAt: sentAt + 86_400_000,
        fingerprint: probe.fingerprint,
        sentAt,
      });
      const bytes = most - empty - 16;
      const large = ingress(key(999), sentAt + 999, 'echo', { bytes });
      await enqueue([large]);
      await pollUntilEmpty(worker, b);
      const outcome = await client.outcome(large.id);
      expect(outcome?.ok ? (outcome.value as string).length : outcome).toBe(bytes);
    });
  });
}
