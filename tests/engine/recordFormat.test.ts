/**
 * Upgrading Baton itself: a record written by a newer Baton (a newer record format) is never
 * written over by this one, which would drop what it does not understand. Its messages wait.
 */
import { actor, ErrorCode } from '@baton/core';
import {
  type ActorRecord,
  ENVELOPE_FORMAT,
  encodeEnvelope,
  NEWER_ENVELOPE_LOG,
  RECORD_FORMAT,
} from '@baton/core/adapter';
import { pauseActor, resumeActor, runTurn, Sweeper } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { flush, recordingLogger, setup } from './helpers.ts';

const Counter = actor({
  name: 'counter',
  state: z.object({ n: z.number() }),
  initial: () => ({ n: 0 }),
  handlers: {
    add: {
      payload: z.object({ by: z.number() }),
      handle: (ctx, { by }) => {
        ctx.state.n += by;
      },
    },
  },
});

/** What a newer Baton wrote of `id`: a newer format, and a field this Baton does not know. */
const newerRecord = (id: string, ver = 1) =>
  ({
    id,
    ver,
    life: 'newerbaton01',
    format: RECORD_FORMAT + 1,
    future: { kept: true },
    state: { n: 5 },
    inboxOffset: '0',
    marks: {},
    sentSeq: 0,
  }) as ActorRecord;

describe('a record written by a newer Baton', () => {
  it('is never written over: its messages wait in the inbox, and the record keeps every field', async () => {
    const h = setup({ actors: [Counter], maxAttempts: 2 });
    const ref = Counter.ref('c');
    const newer = newerRecord(ref.id);
    await h.backend.store.commit({ expectedVer: 0, record: newer, outbox: [], idempotency: [] });
    await h.client.send(ref, 'add', { by: 1 });
    for (let attempt = 0; attempt < 5; attempt++) {
      await h.worker.poll();
      await flush();
      const next = h.backend.queue.nextVisibleAt();
      if (next !== undefined) h.clock.set(next);
    }
    expect(await h.record(ref.id)).toEqual(newer);
    // What the worker's log says of each of those turns: what to do about it.
    await expect(runTurn(h.engine, ref.id, [])).rejects.toMatchObject({
      code: ErrorCode.RETRYABLE,
      message: `the record of counter/c has format ${RECORD_FORMAT + 1}, a newer Baton's (this one writes format ${RECORD_FORMAT}): upgrade Baton in every worker and sweeper; its messages and sends wait meanwhile`,
      details: { actorId: ref.id, format: RECORD_FORMAT + 1, supported: RECORD_FORMAT },
    });
    expect(await h.backend.store.listDeadLetters(ref.id)).toEqual([]);
    expect(h.backend.queue.counts().total).toBe(1);
  });

  it("is not written over by an operator's action of this Baton either: it is refused, saying why", async () => {
    const h = setup({ actors: [Counter] });
    const newer = newerRecord('counter/p');
    await h.backend.store.commit({ expectedVer: 0, record: newer, outbox: [], idempotency: [] });
    const refusal = {
      code: ErrorCode.INVALID_STATE,
      message: `the record of counter/p has format ${RECORD_FORMAT + 1}, written by a newer Baton than this tool's (format ${RECORD_FORMAT}): nothing was changed; run the Baton the workers run (its CLI, or its inspector) to act on it`,
      details: { actorId: 'counter/p', format: RECORD_FORMAT + 1, supported: RECORD_FORMAT },
    };
    const { store, queue } = h.backend;
    await expect(pauseActor(store, queue, 'counter/p', { by: 'ops' })).rejects.toMatchObject(
      refusal,
    );
    await expect(resumeActor(store, queue, 'counter/p', { by: 'ops' })).rejects.toMatchObject(
      refusal,
    );
    expect(await h.record('counter/p')).toEqual(newer);
  });

  it("is not swept by this Baton's sweeper: its held sends stay in it, unsent, and the sweep says why", async () => {
    const { logger, lines } = recordingLogger();
    const h = setup({ actors: [Counter], logger });
    const now = h.clock.now();
    const send = { id: 'counter/s:newerbaton01.1', from: 'counter/s', seq: 1, to: 'counter/t' };
    const envelope = { ...send, name: 'add', payload: { by: 1 }, sentAt: now };
    // Halted, its expiry passed: this Baton's sweeper would retire its sends and let it expire.
    const newer = {
      ...newerRecord('counter/s'),
      sentSeq: 1,
      expiresAt: now - 1,
      outbox: [{ actorId: 'counter/s', seq: 1, createdAt: now, envelopes: [envelope] }],
    } as ActorRecord;
    await h.backend.store.commit({ expectedVer: 0, record: newer, outbox: [], idempotency: [] });
    h.clock.advance(10 * 60_000);
    expect(await new Sweeper(h.engine).sweep()).toMatchObject({ failed: 1, sent: 0 });
    expect(lines).toEqual([
      expect.objectContaining({
        message: 'sweep could not drain an outbox',
        fields: {
          actor: 'counter/s',
          error: expect.stringContaining(`format ${RECORD_FORMAT + 1}, a newer Baton's`),
        },
      }),
    ]);
    expect(await h.record('counter/s')).toEqual(newer);
    expect(h.backend.queue.counts().total).toBe(0);
  });

  it('has its held sends left alone by a turn of this Baton that committed nothing', async () => {
    const h = setup({ actors: [Counter], maxAttempts: 2 });
    const ref = Counter.ref('d');
    const fromPeer = { id: 'counter/z:1', from: 'counter/z', seq: 1, to: ref.id, name: 'add' };
    const message = encodeEnvelope({ ...fromPeer, payload: { by: 1 }, sentAt: h.clock.now() });
    const deliver = () =>
      h.backend.queue.send([{ group: ref.id, dedupeId: fromPeer.id, body: message }]);
    await deliver();
    await h.run();
    // A newer Baton commits over the warm record this worker keeps, with a send held in it.
    const stored = (await h.record(ref.id))!;
    const send = { id: `${ref.id}:x.1`, from: ref.id, seq: 1, to: 'counter/t', name: 'add' };
    const envelope = { ...send, payload: { by: 1 }, sentAt: h.clock.now() };
    const newer = {
      ...stored,
      ...newerRecord(ref.id, stored.ver + 1),
      life: stored.life,
      outbox: [{ actorId: ref.id, seq: 1, createdAt: h.clock.now(), envelopes: [envelope] }],
    } as ActorRecord;
    await h.backend.store.commit({
      expectedVer: stored.ver,
      record: newer,
      outbox: [],
      idempotency: [],
    });
    // A copy of the message, done already, past the queue's dedupe window: the warm turn
    // commits nothing, then reads the store's record to drain what it holds.
    h.clock.advance(6 * 60_000);
    await deliver();
    await h.worker.poll();
    await flush();
    expect(await h.record(ref.id)).toEqual(newer);
    expect(await h.state('counter/t')).toBeUndefined();
    // The copy waits in the inbox, its send unsent, until this worker runs the newer Baton.
    expect(h.backend.queue.counts().total).toBe(1);
  });
});

describe('a message written by a newer Baton (a newer envelope format)', () => {
  it('waits in the inbox with the messages behind it, applied by nothing, the error log naming it', async () => {
    const { logger, lines } = recordingLogger();
    const h = setup({ actors: [Counter], logger, maxAttempts: 2 });
    const to = Counter.ref('e').id;
    const deliver = (id: string, format: number) =>
      h.backend.queue.send([
        {
          group: to,
          dedupeId: id,
          body: encodeEnvelope({
            ...{ id, from: 'counter/z', seq: Number(id.slice(-1)), to, name: 'add' },
            ...{ payload: { by: 1 }, sentAt: h.clock.now(), format },
          }),
        },
      ]);
    // The format this Baton reads, said outright, is applied as one that says none.
    await deliver('counter/z:1', ENVELOPE_FORMAT);
    await h.run();
    expect(await h.state(to)).toEqual({ n: 1 });
    await deliver('counter/z:2', ENVELOPE_FORMAT + 1);
    await h.client.send(Counter.ref('e'), 'add', { by: 10 });
    for (let attempt = 0; attempt < 5; attempt++) {
      await h.worker.poll();
      await flush();
      const next = h.backend.queue.nextVisibleAt();
      if (next !== undefined) h.clock.set(next);
    }
    expect(await h.state(to)).toEqual({ n: 1 });
    expect(h.backend.queue.counts().total).toBe(2);
    expect(await h.backend.store.listDeadLetters(to)).toEqual([]);
    expect(lines[0]).toEqual({
      level: 'error',
      message: NEWER_ENVELOPE_LOG,
      fields: { actor: to, messageId: 'counter/z:2', format: ENVELOPE_FORMAT + 1 },
    });
  });
});
