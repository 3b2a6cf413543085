import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Commit } from '@baton/core/adapter';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmbeddedBackend, type EmbeddedBackend } from './createEmbeddedBackend.ts';
import { MemoryJournal } from './Journal.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function commitOf(id: string, ver: number, now: number): Commit {
  return {
    expectedVer: ver - 1,
    record: { id, ver, state: { n: ver }, inboxOffset: String(ver), marks: {}, sentSeq: ver },
    outbox: [{ actorId: id, seq: ver, createdAt: now, envelopes: [] }],
    idempotency: [
      {
        key: `${id}#${ver}`,
        actorId: id,
        outcome: { ok: true, value: ver },
        expiresAt: now + 60_000,
      },
    ],
  };
}

/** Everything observable about a backend's durable state. */
async function durableState(backend: EmbeddedBackend) {
  const records = backend.store.records().sort((a, b) => a.id.localeCompare(b.id));
  return {
    records,
    outbox: await Promise.all(records.map((r) => backend.store.readOutbox(r.id))),
    idempotency: backend.store.idempotencyRecords().sort((a, b) => a.key.localeCompare(b.key)),
    messages: backend.queue.messages().map((m) => ({ ...m, receiveCount: 0 })),
    deadLetters: backend.queue.deadLetters(),
  };
}

/** A workload over many commits, sends, acks, outbox deletes and a dead letter. */
async function workload(backend: EmbeddedBackend, clock: { t: number }) {
  for (let i = 1; i <= 30; i++) {
    const id = `counter/${i % 4}`;
    const ver = ((await backend.store.load(id))?.ver ?? 0) + 1;
    await backend.store.commit(commitOf(id, ver, clock.t));
    if (ver % 2 === 0) await backend.store.deleteOutbox(id, [ver - 1], undefined);
    await backend.queue.send([{ group: `g${i % 3}`, dedupeId: `d${i}`, body: String(i) }]);
    clock.t += 1_000;
  }
  for (const m of await backend.queue.receive({ max: 8, visibilityTimeoutMs: 10 })) {
    if (m.group !== 'g0') await backend.queue.ack([m.receipt]);
  }
  for (let i = 0; i < 3; i++) {
    clock.t += 10;
    await backend.queue.receive({ max: 1, visibilityTimeoutMs: 10 });
  }
}

describe('createEmbeddedBackend', () => {
  it('gives a store, a queue and a feed that work together in memory', async () => {
    const backend = createEmbeddedBackend();
    const seen: number[] = [];
    backend.feed.subscribe((record) => seen.push(record.ver));
    await backend.store.commit(commitOf('a/1', 1, Date.now()));
    await backend.queue.send([{ group: 'a/1', dedupeId: 'd', body: 'x' }]);
    expect(seen).toEqual([1]);
    expect(backend.queue.counts().total).toBe(1);
    expect(backend.journal).toBeUndefined();
    backend.close();
    await expect(backend.queue.receive()).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });

  it('rejects bad options with INVALID_ARGUMENT and a hint', () => {
    const bad: [unknown, RegExp][] = [
      [{ dataDir: '/tmp/x', journal: new MemoryJournal() }, /either dataDir .* or journal/],
      [{ dataDir: '' }, /leave it out to keep data in memory/],
      [{ limits: { maxTransactionItems: 0 } }, /limits.maxTransactionItems must be an integer ≥ 1/],
      [{ limits: { maxItemBytes: 1.5 } }, /limits.maxItemBytes/],
      [{ queue: { maxReceives: -1 } }, /queue.maxReceives must be an integer ≥ 1/],
      [{ queue: { dedupeWindowMs: Number.NaN } }, /queue.dedupeWindowMs must be a finite number/],
      [{ clock: {} }, /clock must be an object with a now\(\) method/],
    ];
    for (const [options, message] of bad) {
      expect(() => createEmbeddedBackend(options as never)).toThrow(message);
      try {
        createEmbeddedBackend(options as never);
      } catch (error) {
        expect(error).toMatchObject({ code: 'INVALID_ARGUMENT' });
      }
    }
  });

  it('restores everything from a MemoryJournal after a simulated restart', async () => {
    const clock = { t: 1_000_000, now: () => clock.t };
    const journal = new MemoryJournal();
    const before = createEmbeddedBackend({ journal, clock, queue: { maxReceives: 2 } });
    await workload(before, clock);
    expect(before.queue.deadLetters().map((m) => m.body)).toEqual(['3', '6']);
    const expected = await durableState(before);
    // No close(): the process "died".
    const after = createEmbeddedBackend({ journal, clock, queue: { maxReceives: 2 } });
    expect(await durableState(after)).toEqual(expected);
  });

  it('makes every unacknowledged message visible again after a restart, receive count anew', async () => {
    const clock = { t: 0, now: () => clock.t };
    const journal = new MemoryJournal();
    const before = createEmbeddedBackend({ journal, clock });
    await before.queue.send([{ group: 'g', dedupeId: 'd', body: 'x' }]);
    await before.queue.receive({ max: 1, visibilityTimeoutMs: 60_000 });
    const after = createEmbeddedBackend({ journal, clock });
    const [again] = await after.queue.receive({ max: 1, visibilityTimeoutMs: 60_000 });
    expect(again).toMatchObject({ body: 'x', receiveCount: 1 });
  });

  it('continues sequence numbers and keeps dedupe ids across a restart', async () => {
    const clock = { t: 0, now: () => clock.t };
    const journal = new MemoryJournal();
    const before = createEmbeddedBackend({ journal, clock });
    await before.queue.send([{ group: 'g', dedupeId: 'd1', body: '1' }]);
    const [m] = await before.queue.receive({ max: 1, visibilityTimeoutMs: 1 });
    await before.queue.ack([m!.receipt]);
    const after = createEmbeddedBackend({ journal, clock });
    await after.queue.send([
      { group: 'g', dedupeId: 'd1', body: 'duplicate' },
      { group: 'g', dedupeId: 'd2', body: '2' },
    ]);
    expect(after.queue.messages()).toMatchObject([{ body: '2', seq: '2' }]);
  });

  it('compacts a long journal on start and keeps everything', async () => {
    const clock = { t: 1_000_000, now: () => clock.t };
    const journal = new MemoryJournal();
    journal.append([{ t: 'other.note', text: 'kept as it is' }]);
    const before = createEmbeddedBackend({ journal, clock, queue: { maxReceives: 2 } });
    const timers = before.createQueue('timers');
    await timers.send([{ group: 't', dedupeId: 'once', body: 'tick' }]);
    await workload(before, clock);
    const expected = await durableState(before);
    const lengthBefore = journal.length;

    const after = createEmbeddedBackend({
      journal,
      clock,
      queue: { maxReceives: 2 },
      compactAfterEntries: 10,
    });
    expect(journal.length).toBeLessThan(lengthBefore / 2);
    expect(journal.replay()[0]).toEqual({ t: 'other.note', text: 'kept as it is' });
    expect(await durableState(after)).toEqual(expected);
    expect(after.createQueue('timers').messages()).toMatchObject([{ body: 'tick', seq: '1' }]);
    // The sequence counter and the dedupe ids survived compaction.
    await after.queue.send([
      { group: 'g1', dedupeId: 'd30', body: 'duplicate' },
      { group: 'g1', dedupeId: 'new', body: 'new' },
    ]);
    expect(after.queue.messages().at(-1)).toMatchObject({ body: 'new', seq: '31' });
  });

  it('compacts a file journal with an atomic rename', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'baton-backend-'));
    dirs.push(dataDir);
    const clock = { t: 1_000_000, now: () => clock.t };
    const before = createEmbeddedBackend({ dataDir, clock });
    await workload(before, clock);
    const expected = await durableState(before);
    before.close();
    const file = join(dataDir, 'journal.jsonl');
    const sizeBefore = statSync(file).size;
    const after = createEmbeddedBackend({ dataDir, clock, compactAfterEntries: 10 });
    try {
      expect(statSync(file).size).toBeLessThan(sizeBefore);
      expect(await durableState(after)).toEqual(expected);
    } finally {
      after.close();
    }
  });

  it('refuses two queues of one name', () => {
    const backend = createEmbeddedBackend();
    expect(() => backend.createQueue('inbox')).toThrow(/exists already/);
  });
});
