/**
 * Upgrading Baton itself: a record written by a newer Baton (a newer record format) is never
 * written over by this one, which would drop what it does not understand. Its messages wait.
 */
import { actor, ErrorCode } from '@baton/core';
import { type ActorRecord, RECORD_FORMAT } from '@baton/core/adapter';
import { pauseActor, resumeActor, runTurn } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { flush, setup } from './helpers.ts';

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
const newerRecord = (id: string) =>
  ({
    id,
    ver: 1,
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
      message: `the record of counter/c has format ${RECORD_FORMAT + 1}, written by a newer Baton, and this worker's Baton writes format ${RECORD_FORMAT}: upgrade Baton in every worker; the messages wait in the inbox meanwhile`,
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
});
