/**
 * The conformance suite: the same scenarios of the turn protocol on any backend. Each backend's
 * test file calls `conformanceSuite` with a way to open a fresh backend.
 */
import { ErrorCode, MAX_MESSAGE_BYTES } from '@baton/core';
import { actorMessageId, encodeEnvelope, type QueueMessage } from '@baton/core/adapter';
import { Client } from '@baton/core/client';
import { createEngine, runTurn, Sweeper, storedOutbox, Worker } from '@baton/core/engine';
import { describe, expect, it } from 'vitest';
import type { ConformanceBackend } from './ConformanceBackend.ts';
import { Ledger, ledgerRuns, notes } from './ledger.ts';
import { ProfileV1, ProfileV2 } from './profile.ts';
import { backendPerTest } from './suiteBackend.ts';
import { timerScenarios } from './timerScenarios.ts';
import { turnScenario } from './turnScenario.ts';

export function conformanceSuite(name: string, open: () => Promise<ConformanceBackend>): void {
  describe(`the turn protocol on ${name}`, () => {
    const fresh = backendPerTest(open);

    const start = turnScenario(fresh);

    it('applies a message sent twice with one idempotency key once', async () => {
      const { client, run, state } = await start();
      const ref = Ledger.ref('a');
      await client.send(ref, 'add', { entry: 'x', amount: 5 }, { idempotencyKey: 'k1' });
      await client.send(ref, 'add', { entry: 'x', amount: 5 }, { idempotencyKey: 'k1' });
      await run();
      expect(await state(ref.id)).toEqual({ entries: ['x'], total: 5 });
    });

    it('skips an ingress copy that arrives after the dedupe window, by its idempotency record', async () => {
      const { b, client, run, state } = await start();
      const ref = Ledger.ref('a');
      const { messageId } = await client.send(
        ref,
        'add',
        { entry: 'x', amount: 5 },
        { idempotencyKey: 'k2' },
      );
      await run();
      // The same envelope again under a fresh queue dedupe id: what a retry after 5 minutes is.
      const envelope = {
        id: messageId,
        from: 'ingress',
        seq: 0,
        to: ref.id,
        name: 'add',
        payload: { entry: 'x', amount: 5 },
        sentAt: Date.now(),
      };
      await b.queue.send([
        { group: ref.id, dedupeId: `${messageId}-later`, body: encodeEnvelope(envelope) },
      ]);
      await run();
      expect(await state(ref.id)).toEqual({ entries: ['x'], total: 5 });
    });

    it('delivers actor-to-actor messages exactly once and in send order', async () => {
      const { client, run, state } = await start();
      await client.send(Ledger.ref('src'), 'fanOut', { to: 'dst', count: 25 });
      await client.send(Ledger.ref('src'), 'fanOut', { to: 'dst', count: 5 });
      await run();
      const entries = (await state('ledger/dst'))?.entries ?? [];
      const expected = [
        ...Array.from({ length: 25 }, (_, i) => `n${i}`),
        ...Array.from({ length: 5 }, (_, i) => `n${i}`),
      ];
      expect(entries).toEqual(expected);
    });

    it('skips a re-sent actor message by its sender mark', async () => {
      const { b, client, run, state } = await start();
      await client.send(Ledger.ref('src'), 'fanOut', { to: 'dst', count: 1 });
      await run();
      const resent = {
        id: 'ledger/src:1',
        from: 'ledger/src',
        seq: 1,
        to: 'ledger/dst',
        name: 'add',
        payload: { entry: 'n0', amount: 1 },
        sentAt: 0,
      };
      await b.queue.send([
        { group: 'ledger/dst', dedupeId: 'ledger-src-1-again', body: encodeEnvelope(resent) },
      ]);
      await run();
      expect(await state('ledger/dst')).toEqual({ entries: ['n0'], total: 1 });
    });

    it('rejects a terminal error alone, leaving the state unchanged and telling the asker', async () => {
      const { client, run, state } = await start();
      const ref = Ledger.ref('a');
      await client.send(ref, 'add', { entry: 'one', amount: 1 });
      const { messageId } = await client.send(ref, 'refuse', { entry: 'bad' });
      await client.send(ref, 'add', { entry: 'two', amount: 2 });
      await run();
      expect(await state(ref.id)).toEqual({ entries: ['one', 'two'], total: 3 });
      expect(await client.outcome(messageId)).toMatchObject({
        ok: false,
        error: { code: ErrorCode.REJECTED },
      });
    });

    it('retries a retryable error and then applies the message once', async () => {
      const { client, run, state } = await start();
      const ref = Ledger.ref('flaky');
      const before = ledgerRuns.flaky;
      await client.send(ref, 'flaky', { entry: 'f', failures: 2 });
      await run();
      expect(await state(ref.id)).toEqual({ entries: ['f'], total: 0 });
      expect(ledgerRuns.flaky - before).toBe(3);
    });

    it('fences a worker with a stale cache: its commit is refused and the batch redone', async () => {
      const { b, client, run, state, engineOptions } = await start();
      const ref = Ledger.ref('a');
      const other = new Worker(engineOptions);
      await client.send(ref, 'add', { entry: 'one', amount: 1 });
      await run(); // the first worker caches version 1
      await client.send(ref, 'add', { entry: 'two', amount: 2 });
      await run(other); // the other worker commits version 2
      await client.send(ref, 'add', { entry: 'three', amount: 3 });
      await run(); // the first worker's cache is stale
      expect(await state(ref.id)).toEqual({ entries: ['one', 'two', 'three'], total: 6 });
      expect((await b.store.load(ref.id))?.ver).toBe(3);
    });

    it('drains with the sweeper an outbox that a crash left behind', async () => {
      const { b, run, state, engineOptions } = await start();
      const engine = createEngine(engineOptions);
      const envelope = {
        id: 'k-crash',
        from: 'ingress',
        seq: 0,
        to: 'ledger/src',
        name: 'fanOut',
        payload: { to: 'dst', count: 3 },
        sentAt: Date.now(),
      };
      // The turn commits, then the process dies before its drain and ack.
      await runTurn(engine, 'ledger/src', [{ envelope, queueSeq: '1' }]);
      expect(await storedOutbox(b.store, 'ledger/src')).toHaveLength(1);
      await b.pass(1);
      const swept = await new Sweeper(engine, { minAgeMs: 0 }).sweep();
      expect(swept.sent).toBe(3);
      await run();
      // Sent and retired: the record no longer holds them.
      expect(await storedOutbox(b.store, 'ledger/src')).toEqual([]);
      expect((await state('ledger/dst'))?.entries).toEqual(['n0', 'n1', 'n2']);
    });

    timerScenarios(start);

    it('answers an ask between actors once, to the continuation, with its context', async () => {
      const { b, client, run, state } = await start();
      await client.send(Ledger.ref('x'), 'add', { entry: 'e', amount: 7 });
      await client.send(Ledger.ref('asker'), 'askTotal', { of: 'x' });
      await client.send(Ledger.ref('asker'), 'askTotal', { of: 'y' });
      await run();
      expect((await state('ledger/asker'))?.entries.sort()).toEqual(['x=7', 'y=0']);
      expect(await b.store.listTimers('ledger/asker')).toEqual([]);
    });

    it('runs an effect after the commit, again with the same key after a failure', async () => {
      const { b, client, run, state } = await start();
      notes.length = 0;
      await client.send(Ledger.ref('fx'), 'note', { entry: 'plain' });
      await client.send(Ledger.ref('fx'), 'note', { entry: 'flaky one' });
      await run();
      expect((await state('ledger/fx'))?.entries).toEqual(['plain', 'flaky one']);
      const { life } = (await b.store.load('ledger/fx'))!;
      const key = (seq: number) => actorMessageId('ledger/fx', seq, life);
      expect(notes).toEqual([
        { entry: 'plain', key: key(1) },
        { entry: 'flaky one', key: key(2) },
        { entry: 'flaky one', key: key(2) },
      ]);
    });

    it('runs an effect once when a late sweep sends its request again after the dedupe window', async () => {
      const { b, client, run, state } = await start();
      notes.length = 0;
      const sent: QueueMessage[] = [];
      const send = b.queue.send.bind(b.queue);
      b.queue.send = (messages) => {
        sent.push(...messages);
        return send(messages);
      };
      await client.send(Ledger.ref('fx-late'), 'note', { entry: 'once' });
      await run();
      const request = sent.find((message) => message.group.startsWith('$effect/'));
      expect(request).toBeDefined();
      // A sweep more than 5 minutes after the drain sends the held request again, and the queue
      // no longer drops it as a copy: here, the same message under a dedupe id it has not seen.
      await send([{ ...request!, dedupeId: `${request!.dedupeId}/late` }]);
      await run();
      expect((await state('ledger/fx-late'))?.entries).toEqual(['once']);
      const { life } = (await b.store.load('ledger/fx-late'))!;
      expect(notes).toEqual([{ entry: 'once', key: actorMessageId('ledger/fx-late', 1, life) }]);
    });

    it('halts an actor: timers cancelled, state reset, record set to expire; a later message revives it', async () => {
      const { b, client, run, state } = await start();
      const ref = Ledger.ref('closing');
      await client.send(ref, 'add', { entry: 'x', amount: 5 });
      await client.send(ref, 'remind', { entry: 'never', delay: 3_600_000 });
      await run();
      expect(await b.store.listTimers(ref.id)).toHaveLength(1);
      await client.send(ref, 'close', {});
      await run();
      const halted = await b.store.load(ref.id);
      expect(halted?.state).toEqual({ entries: [], total: 0 });
      expect(halted?.expiresAt).toBeGreaterThan(b.clock.now() + 28 * 24 * 3_600_000);
      expect(await b.store.listTimers(ref.id)).toEqual([]);
      await client.send(ref, 'add', { entry: 'y', amount: 1 });
      await run();
      expect(await state(ref.id)).toEqual({ entries: ['y'], total: 1 });
      expect((await b.store.load(ref.id))?.expiresAt).toBeUndefined();
    });

    it('refuses the commit of a worker whose warm record is of an earlier life of the actor', async () => {
      const { b, client, run, state, engineOptions } = await start();
      // The halted record expires 2 s after the halt: twice this mark retention.
      const options = { ...engineOptions, markRetentionMs: 1_000, idempotencyRetentionMs: 2_000 };
      const [warm, other] = [new Worker(options), new Worker(options)];
      const ref = Ledger.ref('lives');
      await client.send(ref, 'add', { entry: 'old-life', amount: 1 });
      await run(warm); // warm keeps version 1 of the first life
      await client.send(ref, 'close', {});
      await run(other); // the first life ends at version 2
      await b.pass(2_001);
      await b.expire(ref.id);
      expect(await b.store.load(ref.id)).toBeUndefined();
      await client.send(ref, 'add', { entry: 'new-1', amount: 1 });
      await run(other); // version 1 of the second life
      await client.send(ref, 'add', { entry: 'new-2', amount: 1 });
      await run(warm); // its warm version 1 is the first life's: its commit must be refused
      expect(await state(ref.id)).toEqual({ entries: ['new-1', 'new-2'], total: 2 });
      expect((await b.store.load(ref.id))?.ver).toBe(2);
    });

    it('keeps a message that grows the state past the record limit as a dead letter, and keeps going', async () => {
      const { b, client, run, state } = await start();
      const ref = Ledger.ref('big');
      const { messageId } = await client.send(ref, 'pad', {
        bytes: b.store.limits.maxItemBytes + 1,
      });
      await client.send(ref, 'add', { entry: 'after', amount: 1 });
      await run();
      const cause = { code: ErrorCode.STATE_TOO_LARGE };
      expect(await client.outcome(messageId)).toMatchObject({
        ok: false,
        error: { code: ErrorCode.DEAD_LETTERED, details: { cause } },
      });
      expect(await state(ref.id)).toEqual({ entries: ['after'], total: 1 });
      expect(await b.store.listDeadLetters(ref.id)).toMatchObject([
        { messageId, redrivable: true, error: { details: { cause } } },
      ]);
    });

    it('refuses a message as large as SQS counts it, not as its text is: characters SQS takes escaped, ids it takes as attributes', async () => {
      const { b, client } = await start();
      // Within the limit as UTF-8 text (three bytes a character), past it as SQS takes it: U+FFFF
      // is a character SQS refuses, sent as a six-byte escape.
      const entry = '\uffff'.repeat(Math.floor(MAX_MESSAGE_BYTES / 3.5));
      await expect(
        client.send(Ledger.ref('wide'), 'add', { entry, amount: 1 }),
      ).rejects.toMatchObject({ code: ErrorCode.MESSAGE_TOO_LARGE });
      // At the limit as text, with a group id SQS cannot take (not ASCII), which goes in an
      // attribute that counts too.
      const body = 'x'.repeat(MAX_MESSAGE_BYTES);
      await expect(
        b.queue.send([{ group: 'ledger/zoë', dedupeId: 'at-the-limit', body }]),
      ).rejects.toMatchObject({ code: ErrorCode.MESSAGE_TOO_LARGE });
      expect(await b.pending()).toBe(0);
    });

    it('migrates a record written by an earlier version of its definition when it is next loaded', async () => {
      const { b, client, run, engineOptions } = await start([ProfileV1]);
      await client.send(ProfileV1.ref('ada'), 'rename', { name: 'Ada King Lovelace' });
      await run();
      expect(await b.store.load('profile/ada')).toMatchObject({
        state: { name: 'Ada King Lovelace' },
        stateVersion: 1,
      });

      // The same store, now served by version 2 of the definition.
      const actors = [ProfileV2];
      const worker = new Worker({ ...engineOptions, actors });
      const v2 = new Client({ actors, store: b.store, queue: b.queue, clock: b.clock }).asSystem();
      // Sent (enqueued) before the worker runs; the replies are read from their outcomes.
      const got = await v2.send(ProfileV2.ref('ada'), 'get', {});
      const fresh = await v2.send(ProfileV2.ref('grace'), 'get', {});
      await run(worker);
      expect(await v2.outcome(got.messageId)).toEqual({
        ok: true,
        value: { first: 'Ada', last: 'King Lovelace', renames: 0 },
      });
      expect(await v2.outcome(fresh.messageId)).toEqual({
        ok: true,
        value: { first: '', last: '', renames: 0 },
      });
      expect(await b.store.load('profile/ada')).toMatchObject({
        state: { first: 'Ada', last: 'King Lovelace', renames: 0 },
        stateVersion: 2,
      });
      // A new actor starts at the definition's version, with nothing to migrate.
      expect((await b.store.load('profile/grace'))?.stateVersion).toBe(2);
      const renamed = await v2.send(ProfileV2.ref('ada'), 'rename', {
        first: 'Ada',
        last: 'Lovelace',
      });
      await run(worker);
      expect(await v2.outcome(renamed.messageId)).toEqual({
        ok: true,
        value: { first: 'Ada', last: 'Lovelace', renames: 1 },
      });
    });

    it('splits a batch whose sends pass the transaction size into several commits', async () => {
      const { b, client, run, state } = await start();
      // Ten messages each sending three large payloads: more than one transaction can carry.
      const bytes = Math.floor(b.store.limits.maxTransactionBytes / 25);
      for (let i = 0; i < 10; i++)
        await client.send(Ledger.ref('src'), 'bulk', { to: 'dst', count: 3, bytes, tag: `m${i}` });
      await run();
      const src = await b.store.load('ledger/src');
      expect(src?.ver).toBeGreaterThan(1);
      expect(src?.sentSeq).toBe(30);
      const entries = (await state('ledger/dst'))?.entries ?? [];
      expect(entries).toEqual(
        Array.from({ length: 10 }, (_, i) => [0, 1, 2].map((j) => `m${i}.${j}`)).flat(),
      );
    });
  });
}
