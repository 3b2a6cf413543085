/**
 * An actor's lives on any backend: what a store keeps of a life that ended. A new life counts
 * its sends from 1 again, so outbox items are keyed by life as well as seq; and the message of
 * an ended life that a redrive applied has no mark to tell its copies by, so its dead letter
 * stays as the proof, read by the turn but out of every list.
 */
import type { ActorRecord, DeadLetter } from '@baton/core/adapter';
import { sweepOutbox } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import type { ConformanceBackend } from './ConformanceBackend.ts';
import { backendPerTest } from './suiteBackend.ts';

export function livesSuite(name: string, open: () => Promise<ConformanceBackend>): void {
  describe(`what a store keeps of an actor's ended lives on ${name}`, () => {
    const fresh = backendPerTest(open);
    const record = (id: string, ver: number): ActorRecord => ({
      id,
      ver,
      state: {},
      inboxOffset: '0',
      marks: {},
      sentSeq: 0,
    });

    it('keeps outbox items apart of two lives with one seq apart: both read, each deleted by its own life', async () => {
      const b = await fresh();
      const id = 'ledger/lives';
      const item = (seq: number, life?: string) => ({
        actorId: id,
        seq,
        createdAt: 0,
        envelopes: [],
        ...(life === undefined ? {} : { life }),
      });
      const commit = (ver: number, outbox: ReturnType<typeof item>[]) =>
        b.store.commit({ expectedVer: ver - 1, record: record(id, ver), outbox, idempotency: [] });
      await commit(1, [item(1, 'L1'), item(2, 'L1')]);
      await commit(2, [item(1, 'L2')]);
      await commit(3, [item(1)]);
      const stored = async () =>
        (await b.store.readOutbox(id)).map((read) => `${read.seq}${read.life ?? ''}`).sort();
      expect(await b.store.readOutbox(id)).toContainEqual(item(1, 'L2'));
      expect(await stored()).toEqual(['1', '1L1', '1L2', '2L1']);
      await b.store.deleteOutbox(id, [1, 2], 'L1');
      expect(await stored()).toEqual(['1', '1L2']);
      await b.store.deleteOutbox(id, [1], undefined);
      expect(await stored()).toEqual(['1L2']);
    });

    it('keeps a halted record past its expiry while it holds sends; once they are retired, it expires', async () => {
      const b = await fresh();
      const id = 'ledger/halted';
      const expiresAt = b.clock.now() + 50;
      const held = { actorId: id, seq: 1, createdAt: b.clock.now(), envelopes: [] };
      const halted = { ...record(id, 1), life: 'L1', sentSeq: 1, expiresAt, outbox: [held] };
      await b.store.commit({ expectedVer: 0, record: halted, outbox: [], idempotency: [] });
      await b.pass(100);
      await b.expire(id);
      // Deleted with the record, its sends would be lost: they were never sent.
      expect((await b.store.load(id))?.outbox).toEqual([held]);
      // The sweeper drains them (there are none to send here) and retires them.
      expect(await sweepOutbox(b.store, b.queue, id)).toBe(0);
      const retired = await b.store.load(id);
      expect(retired?.expiresAt).toBe(expiresAt);
      expect(retired?.outbox ?? []).toEqual([]);
      await b.expire(id);
      expect(await b.store.load(id)).toBeUndefined();
    });

    it('keeps a halted record past its expiry while it is paused or holds parked messages', async () => {
      const b = await fresh();
      const expiresAt = b.clock.now() + 50;
      const held = [{ paused: { at: 1, by: 'ops' } }, { parked: 2 }];
      for (const [n, part] of held.entries()) {
        const id = `ledger/held-${n}`;
        const halted = { ...record(id, 1), life: 'L1', expiresAt, ...part };
        await b.store.commit({ expectedVer: 0, record: halted, outbox: [], idempotency: [] });
      }
      await b.pass(100);
      for (const n of held.keys()) await b.expire(`ledger/held-${n}`);
      // The messages parked wait in it however long the pause: deleted, they would be lost.
      expect(await b.store.load('ledger/held-0')).toMatchObject({ paused: { by: 'ops' } });
      expect(await b.store.load('ledger/held-1')).toMatchObject({ parked: 2 });
      // Resumed with nothing parked left, it expires as it would have.
      const resumed = { ...record('ledger/held-1', 2), life: 'L1', expiresAt };
      await b.store.commit({ expectedVer: 1, record: resumed, outbox: [], idempotency: [] });
      await b.expire('ledger/held-1');
      expect(await b.store.load('ledger/held-1')).toBeUndefined();
    });

    it("reads the dead letter a redrive of an ended life's message left as its proof, and neither lists nor counts it; a parked one it does", async () => {
      const b = await fresh();
      const id = 'ledger/receiver';
      const letter = (messageId: string, at: number): DeadLetter => ({
        actorId: id,
        messageId,
        envelope: {
          id: messageId,
          from: 'ledger/sender',
          seq: 1,
          to: id,
          name: 'add',
          payload: null,
          sentAt: 0,
          lifeEnded: true,
        },
        redrivable: true,
        error: { code: 'DEAD_LETTERED', message: 'its life ended', details: {} },
        attempts: 1,
        at,
      });
      const kept = letter('ledger/sender:L1.2', 2);
      const parked = { ...letter('ledger/sender:L1.3', 3), parked: 1 };
      const now = b.clock.now();
      const proof = {
        ...letter('ledger/sender:L1.1', 1),
        redrivable: false,
        applied: { at: now, expiresAt: now + 60_000 },
      };
      await b.store.commit({
        expectedVer: 0,
        record: record(id, 1),
        outbox: [],
        idempotency: [],
        deadLetters: { put: [kept, proof, parked], remove: [] },
      });
      expect(await b.store.readDeadLetter(id, proof.messageId)).toEqual(proof);
      expect(await b.store.listDeadLetters(id)).toEqual([kept, parked]);
      expect(await b.store.listDeadLetters()).toEqual([kept, parked]);
      // The count is optional in a store; where there is one, it counts what the list holds.
      if (b.store.countDeadLetters) expect(await b.store.countDeadLetters()).toBe(2);
    });
  });
}
