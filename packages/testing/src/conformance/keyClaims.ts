/**
 * Key claims on any backend: an idempotency key is bound to the first message sent with it, so
 * another message under the same key is refused when it is sent, never accepted and dropped.
 */
import { ErrorCode, silentLogger } from '@baton/core';
import { ingressMessageId } from '@baton/core/adapter';
import { Client } from '@baton/core/client';
import { Worker } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import type { ConformanceBackend } from './ConformanceBackend.ts';
import { Ledger } from './ledger.ts';
import { backendPerTest, pollUntilEmpty } from './suiteBackend.ts';

export function keyClaimSuite(name: string, open: () => Promise<ConformanceBackend>): void {
  describe(`idempotency keys bound to their message on ${name}`, () => {
    const fresh = backendPerTest(open);

    async function start() {
      const b = await fresh();
      const ports = { actors: [Ledger], store: b.store, queue: b.queue, clock: b.clock };
      const worker = new Worker({ ...ports, logger: silentLogger, visibilityTimeoutMs: 2_000 });
      const client = new Client(ports).asSystem();
      const run = () => pollUntilEmpty(worker, b);
      return { b, client, run };
    }

    it('refuses the second of two concurrent sends with one key and different payloads, applies the first once and answers only it', async () => {
      const { b, client, run } = await start();
      const ref = Ledger.ref('a');
      const payloads = [
        { entry: 'x', amount: 5 },
        { entry: 'y', amount: 7 },
      ];
      const sent = await Promise.allSettled(
        payloads.map((payload) => client.send(ref, 'add', payload, { idempotencyKey: 'k' })),
      );
      const accepted = sent.findIndex((result) => result.status === 'fulfilled');
      const refused = sent[1 - accepted];
      expect(sent.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
      expect(refused).toMatchObject({
        status: 'rejected',
        reason: {
          code: ErrorCode.IDEMPOTENCY_KEY_REUSED,
          message: expect.stringMatching(/use a fresh key/),
        },
      });
      // The accepted message sent again is a retry: accepted, applied once.
      const { messageId } = await client.send(ref, 'add', payloads[accepted]!, {
        idempotencyKey: 'k',
      });
      await run();

      const { entry, amount } = payloads[accepted]!;
      expect((await b.store.load(ref.id))?.state).toEqual({ entries: [entry], total: amount });
      expect(await client.outcome(messageId)).toEqual({ ok: true });
      // Processed, the key still refuses the other message, for send and ask alike.
      for (const call of [client.send.bind(client), client.ask.bind(client)]) {
        await expect(
          call(ref, 'add', payloads[1 - accepted]!, { idempotencyKey: 'k' }),
        ).rejects.toMatchObject({ code: ErrorCode.IDEMPOTENCY_KEY_REUSED });
      }
    });

    it('claims a key once: a second claim is shown the first, and an expired claim is taken over', async () => {
      const { b } = await start();
      const key = ingressMessageId('ledger/b', 'k');
      const now = b.clock.now();
      const first = { key, fingerprint: 'f1', expiresAt: now + 60_000 };
      expect(await b.store.claimKey(first)).toBeUndefined();
      expect(await b.store.claimKey({ ...first, fingerprint: 'f2' })).toEqual(first);
      expect(await b.store.claimKey(first)).toEqual(first);

      const lapsed = { key: ingressMessageId('ledger/c', 'k'), fingerprint: 'f1', expiresAt: now };
      expect(await b.store.claimKey(lapsed)).toBeUndefined();
      const next = { ...lapsed, fingerprint: 'f2', expiresAt: now + 60_000 };
      expect(await b.store.claimKey(next)).toBeUndefined();
      expect(await b.store.claimKey(lapsed)).toEqual(next);

      // A key past what a key part holds is hashed in the table; the claim keeps it whole.
      const long = { ...first, key: ingressMessageId('ledger/d', 'k'.repeat(200)).repeat(5) };
      expect(await b.store.claimKey(long)).toBeUndefined();
      expect(await b.store.claimKey({ ...long, fingerprint: 'f2' })).toEqual(long);
    });

    it('reads a live claim back, with the sentAt it was made with; an expired one or none is absent', async () => {
      const { b } = await start();
      const readClaim = b.store.readClaim?.bind(b.store);
      expect(readClaim, 'the store reads claims (Store.readClaim)').toBeDefined();
      const now = b.clock.now();
      const claim = {
        key: ingressMessageId('ledger/e', 'k'),
        fingerprint: 'f1',
        expiresAt: now + 60_000,
        sentAt: now,
      };
      expect(await readClaim!(claim.key)).toBeUndefined();
      expect(await b.store.claimKey(claim)).toBeUndefined();
      expect(await readClaim!(claim.key)).toEqual(claim);
      const lapsed = { ...claim, key: ingressMessageId('ledger/f', 'k'), expiresAt: now };
      expect(await b.store.claimKey(lapsed)).toBeUndefined();
      expect(await readClaim!(lapsed.key)).toBeUndefined();
    });
  });
}
