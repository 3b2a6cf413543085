/**
 * Pausing an actor (`pauseActor`, `resumeActor`): while paused it applies nothing, its messages
 * are parked in order — never retried, never dead-lettered — and other actors go on; resumed,
 * it applies every parked message exactly once, in order, before anything that came later.
 */
import { type QueueMessage, RECORD_FORMAT, type Store } from '@baton/core/adapter';
import { pauseActor, resumeActor, Worker } from '@baton/core/engine';
import { Ledger, ledgerRuns } from '@baton/testing/conformance';
import { beforeEach, describe, expect, it } from 'vitest';
import { runUntilIdle, setup } from './helpers.ts';

const entries = (state: unknown) => (state as { entries: string[] } | undefined)?.entries ?? [];

describe('pausing an actor', () => {
  let h: ReturnType<typeof setup>;
  beforeEach(() => {
    h = setup({ actors: [Ledger], batchSize: 4 });
  });

  it('parks every message of a paused actor in order while others go on, and applies each once, in order, on resume', async () => {
    await h.client.send(Ledger.ref('a'), 'add', { entry: 'a0', amount: 1 });
    await h.run();
    await pauseActor(h.backend.store, h.backend.queue, 'ledger/a', { by: 'test' });
    for (let i = 1; i <= 10; i++) {
      await h.client.send(Ledger.ref('a'), 'add', { entry: `a${i}`, amount: 1 });
      await h.client.send(Ledger.ref('b'), 'add', { entry: `b${i}`, amount: 1 });
    }
    // Through a channel too: the sender's messages park like the clients'.
    await h.client.send(Ledger.ref('src'), 'fanOut', { to: 'a', count: 3 });
    // A message that fails more often than maxAttempts allows is not run while paused.
    const runsBefore = ledgerRuns.flaky;
    await h.client.send(Ledger.ref('a'), 'flaky', { entry: 'fixed', failures: 0 });
    await h.run();

    expect(entries(await h.state('ledger/a'))).toEqual(['a0']);
    expect(entries(await h.state('ledger/b'))).toHaveLength(10);
    expect(ledgerRuns.flaky).toBe(runsBefore);
    const kept = await h.backend.store.listDeadLetters('ledger/a');
    expect(kept).toHaveLength(14);
    expect(kept.every((letter) => letter.parked !== undefined)).toBe(true);
    expect((await h.record('ledger/a'))?.parked).toBe(14);

    await resumeActor(h.backend.store, h.backend.queue, 'ledger/a', { by: 'test' });
    await h.client.send(Ledger.ref('a'), 'add', { entry: 'after', amount: 1 });
    await h.run();

    expect(entries(await h.state('ledger/a'))).toEqual([
      'a0',
      ...Array.from({ length: 10 }, (_, i) => `a${i + 1}`),
      // The client's send reached the inbox before the sender's turn drained its three.
      'fixed',
      'n0',
      'n1',
      'n2',
      'after',
    ]);
    expect(ledgerRuns.flaky).toBe(runsBefore + 1);
    expect(await h.backend.store.listDeadLetters()).toEqual([]);
    const record = await h.record('ledger/a');
    expect(record?.parked).toBeUndefined();
    expect(record?.paused).toBeUndefined();
  });

  it('keeps a paused actor paused through any number of deliveries, dead-lettering nothing', async () => {
    await pauseActor(h.backend.store, h.backend.queue, 'ledger/p', { by: 'test' });
    await h.client.send(Ledger.ref('p'), 'flaky', { entry: 'poison', failures: 99 });
    await h.run();
    await h.run();
    const [letter, ...others] = await h.backend.store.listDeadLetters();
    expect(others).toEqual([]);
    expect(letter).toMatchObject({
      actorId: 'ledger/p',
      parked: 1,
      error: { code: 'ACTOR_PAUSED' },
    });
    expect((await h.record('ledger/p'))?.paused).toMatchObject({ by: 'test' });
  });

  it('reads the record from the store for a batch its pause and resume woke, on a worker warm from before them: no turn redone', async () => {
    let conflicts = 0;
    const w = setup({
      actors: [Ledger],
      batchSize: 4,
      onTurn: (stats) => {
        conflicts += stats.versionConflicts;
      },
    });
    await w.client.send(Ledger.ref('w'), 'add', { entry: 'w0', amount: 1 });
    await w.run();
    // Changes made outside the actor's turns, which the worker's warm record does not show; the
    // wake-up each sends comes in one batch with the message after them.
    await pauseActor(w.backend.store, w.backend.queue, 'ledger/w', { by: 'test' });
    await resumeActor(w.backend.store, w.backend.queue, 'ledger/w', { by: 'test' });
    await w.client.send(Ledger.ref('w'), 'add', { entry: 'w1', amount: 1 });
    await w.run();

    expect(entries(await w.state('ledger/w'))).toEqual(['w0', 'w1']);
    expect(conflicts).toBe(0);
  });

  it('applies parked messages once when the actor is resumed with nothing else arriving', async () => {
    await pauseActor(h.backend.store, h.backend.queue, 'ledger/q', { by: 'test' });
    for (let i = 0; i < 6; i++) {
      await h.client.send(Ledger.ref('q'), 'add', { entry: `q${i}`, amount: 1 });
    }
    await h.run();
    await resumeActor(h.backend.store, h.backend.queue, 'ledger/q', { by: 'test' });
    await resumeActor(h.backend.store, h.backend.queue, 'ledger/q', { by: 'test' });
    await h.run();
    expect(entries(await h.state('ledger/q'))).toEqual(['q0', 'q1', 'q2', 'q3', 'q4', 'q5']);
    expect((await h.state('ledger/q')) as { total: number }).toMatchObject({ total: 6 });
  });

  it('wakes each of two actors resumed at the same version, also records written before lives', async () => {
    // Records without a life, as a Baton before lives wrote them, both at version 1.
    for (const id of ['ledger/old1', 'ledger/old2']) {
      const record = {
        id,
        ver: 1,
        state: { entries: [], total: 0 },
        inboxOffset: '0',
        marks: {},
        sentSeq: 0,
      };
      await h.backend.store.commit({ expectedVer: 0, record, outbox: [], idempotency: [] });
    }
    for (const key of ['old1', 'old2']) {
      await pauseActor(h.backend.store, h.backend.queue, `ledger/${key}`, { by: 'test' });
      await h.client.send(Ledger.ref(key), 'add', { entry: key, amount: 1 });
    }
    await h.run();
    expect((await h.record('ledger/old1'))?.ver).toBe((await h.record('ledger/old2'))?.ver);
    // Each resume's wake-up alone makes its actor apply what it parked: nothing else arrives.
    for (const key of ['old1', 'old2']) {
      await resumeActor(h.backend.store, h.backend.queue, `ledger/${key}`, { by: 'test' });
    }
    await h.run();
    expect(entries(await h.state('ledger/old1'))).toEqual(['old1']);
    expect(entries(await h.state('ledger/old2'))).toEqual(['old2']);
  });

  it('keeps a parked message whole, with who paused the actor and since when', async () => {
    h.clock.set(Date.UTC(2026, 0, 2));
    await pauseActor(h.backend.store, h.backend.queue, 'ledger/r', {
      by: 'ops@example',
      now: h.clock.now(),
    });
    await h.client.send(Ledger.ref('r'), 'add', { entry: 'r0', amount: 1 });
    await h.run();
    const [letter] = await h.backend.store.listDeadLetters('ledger/r');
    expect(letter).toMatchObject({
      envelope: { to: 'ledger/r', name: 'add', payload: { entry: 'r0', amount: 1 } },
      redrivable: true,
      attempts: 1,
      parked: 1,
      error: {
        code: 'ACTOR_PAUSED',
        message:
          'ledger/r is paused (since 2026-01-02T00:00:00.000Z, by ops@example): this message is held and applied, in order, when the actor is resumed',
        details: { actorId: 'ledger/r' },
      },
    });
  });

  it('applies parked messages in the order they arrived, whatever order the store lists them in', async () => {
    // DynamoDB lists an actor's dead letters by message id, not by arrival: here, backwards.
    const store = new Proxy(h.backend.store, {
      get: (target, name) => {
        if (name === 'listDeadLetters') {
          return async (actorId?: string) => (await target.listDeadLetters(actorId)).reverse();
        }
        const value: unknown = Reflect.get(target, name);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }) as Store;
    const worker = new Worker({ ...h.engine, store });
    await pauseActor(store, h.backend.queue, 'ledger/s', { by: 'test' });
    for (const entry of ['s0', 's1', 's2']) {
      await h.client.send(Ledger.ref('s'), 'add', { entry, amount: 1 });
    }
    await runUntilIdle(worker, h.backend, h.clock);
    await resumeActor(store, h.backend.queue, 'ledger/s', { by: 'test' });
    await runUntilIdle(worker, h.backend, h.clock);
    expect(entries(await h.state('ledger/s'))).toEqual(['s0', 's1', 's2']);
  });

  it('writes a record that parked a message in format 4, which an earlier Baton leaves alone', async () => {
    await h.client.send(Ledger.ref('t'), 'add', { entry: 't0', amount: 1 });
    await h.run();
    const before = (await h.record('ledger/t'))?.format ?? 1;
    expect(before).toBeLessThan(4);
    await pauseActor(h.backend.store, h.backend.queue, 'ledger/t', { by: 'test' });
    await h.client.send(Ledger.ref('t'), 'add', { entry: 't1', amount: 1 });
    await h.run();
    expect((await h.record('ledger/t'))?.format).toBe(4);
    expect(RECORD_FORMAT).toBe(4);
  });

  it('writes format 4 when it parks at a record written before formats (none stored), and applies the message once on resume', async () => {
    // A store that keeps outcomes as items, not in pages (no readPagedOutcomes): a turn on it
    // leaves a record's format as it was, where beginning pages would set format 2.
    const store = new Proxy(h.backend.store, {
      get: (target, name) => {
        if (name === 'readPagedOutcomes') return undefined;
        const value: unknown = Reflect.get(target, name);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }) as Store;
    const worker = new Worker({ ...h.engine, store });
    const run = () => runUntilIdle(worker, h.backend, h.clock);
    // A record as a Baton before record formats wrote it: no `format` field (read as 1).
    const record = {
      id: 'ledger/f',
      ver: 1,
      life: 'l1',
      state: { entries: ['f0'], total: 1 },
      inboxOffset: '0',
      marks: {},
      sentSeq: 0,
    };
    await store.commit({ expectedVer: 0, record, outbox: [], idempotency: [] });
    await pauseActor(store, h.backend.queue, 'ledger/f', { by: 'test' });
    expect(await h.record('ledger/f')).not.toHaveProperty('format');
    await h.client.send(Ledger.ref('f'), 'add', { entry: 'f1', amount: 1 });
    await run();

    // The record the pause writes: the parking format, the message parked.
    expect(await h.record('ledger/f')).toMatchObject({
      format: 4,
      parked: 1,
      state: { entries: ['f0'], total: 1 },
    });
    expect(await store.listDeadLetters('ledger/f')).toMatchObject([
      { parked: 1, envelope: { name: 'add', payload: { entry: 'f1', amount: 1 } } },
    ]);

    await resumeActor(store, h.backend.queue, 'ledger/f', { by: 'test' });
    await run();
    await run();
    expect(await h.state('ledger/f')).toEqual({ entries: ['f0', 'f1'], total: 2 });
    expect(await store.listDeadLetters('ledger/f')).toEqual([]);
    expect((await h.record('ledger/f'))?.parked).toBeUndefined();
  });

  it('parks a copy of a parked client message once, and applies it once on resume', async () => {
    await pauseActor(h.backend.store, h.backend.queue, 'ledger/t', { by: 'test' });
    await h.client.send(
      Ledger.ref('t'),
      'add',
      { entry: 't0', amount: 1 },
      { idempotencyKey: 'k' },
    );
    await h.run();
    const [original] = await h.backend.store.listDeadLetters('ledger/t');
    // The queue delivers a copy past its dedupe window.
    const { encodeEnvelope } = await import('@baton/core/adapter');
    await h.backend.queue.send([
      { group: 'ledger/t', dedupeId: 'copy', body: encodeEnvelope(original!.envelope) },
    ]);
    await h.run();
    expect(await h.backend.store.listDeadLetters('ledger/t')).toHaveLength(1);
    expect((await h.record('ledger/t'))?.parked).toBe(1);
    await resumeActor(h.backend.store, h.backend.queue, 'ledger/t', { by: 'test' });
    await h.run();
    expect(entries(await h.state('ledger/t'))).toEqual(['t0']);
  });
});

describe('copies of a client message across a pause', () => {
  let h: ReturnType<typeof setup>;
  beforeEach(() => {
    h = setup({ actors: [Ledger], batchSize: 4 });
  });

  /**
   * Sends t0 under key `k`; returns its queue message, to deliver a copy of later, and a read of
   * its outcome.
   */
  async function sendKept() {
    const { messageId } = await h.client.send(
      Ledger.ref('t'),
      'add',
      { entry: 't0', amount: 1 },
      { idempotencyKey: 'k' },
    );
    const [sent] = await h.backend.queue.receive({ max: 1, visibilityTimeoutMs: 1 });
    const message: QueueMessage = {
      group: sent!.group,
      dedupeId: sent!.dedupeId,
      body: sent!.body,
    };
    const outcome = async () => (await h.backend.store.readIdempotency(messageId))?.outcome;
    return { message, messageId, outcome };
  }

  /** The queue delivers a copy of `message` (past its dedupe window, or a client's retry). */
  const deliverCopy = (message: QueueMessage, name: string) =>
    h.backend.queue.send([{ ...message, dedupeId: name }]);

  it('applies nothing of a copy of a message applied before the pause, parked during it', async () => {
    const { message } = await sendKept();
    await h.run();
    expect(entries(await h.state('ledger/t'))).toEqual(['t0']);
    await pauseActor(h.backend.store, h.backend.queue, 'ledger/t', { by: 'test' });
    await deliverCopy(message, 'copy');
    await h.run();
    await resumeActor(h.backend.store, h.backend.queue, 'ledger/t', { by: 'test' });
    await h.run();
    expect(entries(await h.state('ledger/t'))).toEqual(['t0']);
    expect(await h.backend.store.listDeadLetters('ledger/t')).toEqual([]);
  });

  it('applies nothing of a copy that comes after the resume applied the parked message', async () => {
    await pauseActor(h.backend.store, h.backend.queue, 'ledger/t', { by: 'test' });
    const { message, messageId, outcome } = await sendKept();
    await deliverCopy(message, 'first');
    await h.run();
    // Held meanwhile with an outcome an ask waits past: ACTOR_PAUSED, waiting for the resume,
    // in words for the caller (not who paused the actor); a client reads no outcome yet.
    expect(await outcome()).toEqual({
      ok: false,
      error: {
        code: 'ACTOR_PAUSED',
        message:
          'ledger/t is paused: this message is held and applied, in order, when the actor is resumed',
        details: { actorId: 'ledger/t', awaitsRedrive: true },
      },
    });
    expect(await h.client.outcome(messageId)).toBeUndefined();
    const asked = h.client.ask(
      Ledger.ref('t'),
      'add',
      { entry: 't0', amount: 1 },
      { idempotencyKey: 'k', timeoutMs: 100 },
    );
    await expect(asked).rejects.toMatchObject({
      code: 'ASK_TIMEOUT',
      message: expect.stringContaining(
        'its message is parked at ledger/t, which is paused, and is applied when it is resumed',
      ),
      details: { parkedAt: 'ledger/t' },
    });
    await resumeActor(h.backend.store, h.backend.queue, 'ledger/t', { by: 'test' });
    await h.run();
    expect(entries(await h.state('ledger/t'))).toEqual(['t0']);
    expect(await outcome()).toMatchObject({ ok: true });
    await deliverCopy(message, 'later');
    await h.run();
    expect(entries(await h.state('ledger/t'))).toEqual(['t0']);
  });
});

describe('pausing an actor, with a message too large to park', () => {
  it('leaves it waiting in the inbox, retried after a minute, neither parked nor applied', async () => {
    // A payload may take half an item, and its parked letter adds the envelope and the error
    // around it: only items this small leave a payload that cannot be parked.
    const h = setup({ actors: [Ledger], limits: { maxItemBytes: 800 } });
    await pauseActor(h.backend.store, h.backend.queue, 'ledger/u', { by: 'test' });
    await h.run(); // the pause's wake-up
    const blob = 'b'.repeat(330);
    await h.client.send(Ledger.ref('u'), 'add', { entry: 'big', amount: 1, blob });
    expect(await h.worker.poll()).toBe(1);
    expect(await h.backend.store.listDeadLetters('ledger/u')).toEqual([]);
    expect(entries(await h.state('ledger/u'))).toEqual([]);
    h.clock.advance(59_999);
    expect(await h.worker.poll()).toBe(0);
    h.clock.advance(1);
    expect(await h.worker.poll()).toBe(1);
    expect(await h.backend.store.listDeadLetters('ledger/u')).toEqual([]);
  });
});
