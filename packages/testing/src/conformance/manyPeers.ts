/**
 * Actors with very many peers on any backend: marks never make a record unwritable. A receiver
 * keeps the marks of its recent senders in its record and moves the others out; a copy from a
 * sender whose mark moved out is still skipped, and its next message is still in order.
 */
import { actor, jsonLogger } from '@baton/core';
import { type Envelope, INGRESS, type OutboxItem } from '@baton/core/adapter';
import { createEngine, type Inbound, RECORD_PEERS, runTurn } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { ConformanceBackend } from './ConformanceBackend.ts';
import { backendPerTest } from './suiteBackend.ts';

const Tally = actor({
  name: 'tally',
  state: z.object({ count: z.number() }),
  initial: () => ({ count: 0 }),
  handlers: {
    tick: {
      payload: z.object({}),
      handle: (ctx) => {
        ctx.state.count++;
      },
    },
    broadcast: {
      payload: z.object({ from: z.number().int(), to: z.number().int() }),
      handle: (ctx, { from, to }) => {
        for (let i = from; i < to; i++) ctx.send(Tally.ref(`t${i}`), 'tick', {});
      },
    },
  },
});

/** A tick from `tally/s<i>` with its own seq and the seq of its previous message to `fan`. */
function tick(i: number, seq: number, prev: number): Envelope {
  const from = `tally/s${i}`;
  return {
    id: `${from}:${seq}`,
    from,
    seq,
    prev,
    to: 'tally/fan',
    name: 'tick',
    payload: {},
    // Sent now: a message from a sender the receiver holds no mark for, sent longer ago than
    // marks are kept, is too old to tell and kept as a dead letter.
    sentAt: Date.now(),
  };
}

export function manyPeersSuite(
  name: string,
  open: () => Promise<ConformanceBackend>,
  senders: number,
): void {
  describe(`actors with many peers on ${name}`, () => {
    const fresh = backendPerTest(open);

    async function start() {
      const backend = await fresh();
      const errors: string[] = [];
      const logger = jsonLogger({ level: 'error', write: (line) => errors.push(line) });
      const engine = createEngine({
        actors: [Tally],
        store: backend.store,
        queue: backend.queue,
        clock: backend.clock,
        logger,
      });
      let queueSeq = 0;
      /** Runs one turn of `envelopes` as the next inbox messages of their target. */
      const turn = (actorId: string, envelopes: readonly Envelope[]) =>
        runTurn(
          engine,
          actorId,
          envelopes.map((envelope): Inbound => ({ envelope, queueSeq: String(++queueSeq) })),
        );
      return { store: backend.store, turn, errors, coldStart: () => engine.cache.clear() };
    }

    it('sends to thousands of targets, and a message to an early one carries its channel', async () => {
      const { store, turn, errors } = await start();
      const targets = 2_000;
      const ingress = (seq: number, from: number, to: number): Envelope => ({
        id: `ingress:${seq}`,
        from: INGRESS,
        seq: 0,
        to: 'tally/hub',
        name: 'broadcast',
        payload: { from, to },
        sentAt: Date.now(),
      });
      // What each turn committed (left to its caller to drain).
      const committed: OutboxItem[] = [];
      const broadcast = async (envelope: Envelope) => {
        const { undrained } = await turn('tally/hub', [envelope]);
        committed.push(...(undrained?.held ?? []), ...(undrained?.apart ?? []));
      };
      for (let i = 0; i < targets; i += 100) await broadcast(ingress(i, i, i + 100));
      const before = await store.load('tally/hub');
      expect(before?.channels?.['tally/t0']).toBeUndefined(); // moved out
      await broadcast(ingress(-1, 0, 1));

      const sent = committed.flatMap((item) => item.envelopes);
      const toFirst = sent.filter((e) => e.to === 'tally/t0');
      expect(toFirst.map((e) => [e.seq, e.prev])).toEqual([
        [1, 0],
        [targets + 1, 1],
      ]);
      expect(errors).toEqual([]);
    });

    it(`applies one message from each of ${senders.toLocaleString('en')} senders, and the record stays small`, async () => {
      const { store, turn, errors, coldStart } = await start();
      const batch = 100;
      for (let i = 0; i < senders; i += batch) {
        const envelopes = Array.from({ length: Math.min(batch, senders - i) }, (_, j) =>
          tick(i + j, 1, 0),
        );
        expect((await turn('tally/fan', envelopes)).done).toBe(envelopes.length);
      }
      const record = await store.load('tally/fan');
      expect(record?.state).toEqual({ count: senders });
      expect(Object.keys(record?.marks ?? {}).length).toBeLessThanOrEqual(RECORD_PEERS);
      expect(JSON.stringify(record).length).toBeLessThan(8 * 1024);

      // A worker that starts cold reads the record back from the store: the first senders'
      // marks moved out long ago, and their copies are still skipped ...
      coldStart();
      const { ver } = (await store.load('tally/fan'))!;
      const copies = await turn(
        'tally/fan',
        Array.from({ length: 50 }, (_, i) => tick(i, 1, 0)),
      );
      expect(copies).toMatchObject({ done: 50, sent: 0, ver }); // nothing committed
      // ... and their next messages are next on their channels, not gaps.
      await turn(
        'tally/fan',
        Array.from({ length: 50 }, (_, i) => tick(i, 2, 1)),
      );
      expect((await store.load('tally/fan'))?.state).toEqual({ count: senders + 50 });
      expect(errors).toEqual([]);
    }, 900_000);
  });
}
