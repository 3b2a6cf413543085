import { ErrorCode } from '@baton/core';
import type { ActorRecord, ChangeFeed, OutcomeReadOptions } from '@baton/core/adapter';
import { OUTCOME_READ_MAX_PAGES } from '@baton/core/client';
import { EmbeddedStore } from '@baton/embedded';
import { describe, expect, it } from 'vitest';
import { CommitTracker } from './CommitTracker.ts';

const DAY = 24 * 60 * 60 * 1000;

/** A change feed that delivers what the test hands it, when it does: a lagging stream. */
function laggingFeed() {
  const listeners = new Set<(record: ActorRecord) => void>();
  const feed: ChangeFeed = {
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  const deliver = (record: ActorRecord) => {
    for (const listener of listeners) listener(record);
  };
  return { feed, deliver };
}

function record(ver: number, life: string, extra: Partial<ActorRecord> = {}): ActorRecord {
  return {
    id: 'account/a',
    ver,
    life,
    state: {},
    inboxOffset: '0',
    marks: {},
    sentSeq: 0,
    ...extra,
  };
}

describe('CommitTracker', () => {
  it('waits for the feed to deliver the new life’s commit, not an old life’s higher version', async () => {
    let now = Date.UTC(2026, 0, 1);
    const store = new EmbeddedStore({ clock: { now: () => now } });
    const { feed, deliver } = laggingFeed();
    const tracker = new CommitTracker(store, feed);
    const oldLife: ActorRecord[] = [];
    for (let ver = 1; ver <= 6; ver++) {
      const halt = ver === 6 ? { expiresAt: now + DAY } : {};
      oldLife.push(record(ver, 'oldlife00001', halt));
      await store.commit({
        expectedVer: ver - 1,
        record: oldLife.at(-1)!,
        outbox: [],
        idempotency: [],
      });
    }
    const wait = tracker.wait('m-1', 'account/a', { onFeed: true });
    let settled = false;
    void wait.record.then(() => {
      settled = true;
    });
    // The feed lags: the old life's halt arrives while the message waits.
    deliver(oldLife.at(-1)!);

    // The halted record expires and is deleted; the message is the new life's first commit.
    now += 2 * DAY;
    store.purgeExpired();
    const outcome = {
      key: 'm-1',
      actorId: 'account/a',
      outcome: { ok: true as const, value: null },
      expiresAt: now + DAY,
    };
    const first = record(1, 'newlife00001');
    await store.commit({ expectedVer: 0, record: first, outbox: [], idempotency: [outcome] });
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);

    deliver(first);
    await expect(wait.record).resolves.toMatchObject({ key: 'm-1' });
    tracker.close();
  });

  it.each([
    ['pushed', false],
    ['polled', true],
  ] as const)(
    "waits past an outcome (%s) that waits for its dead letter's redrive, for the one that replaces it",
    async (_how, polled) => {
      const now = Date.UTC(2026, 0, 1);
      const embedded = new EmbeddedStore({ clock: { now: () => now } });
      const store = polled
        ? (new Proxy(embedded, {
            get: (target, prop) => {
              if (prop === 'watchOutcomes') return undefined;
              const value = Reflect.get(target, prop, target);
              return typeof value === 'function' ? value.bind(target) : value;
            },
          }) as EmbeddedStore)
        : embedded;
      const tracker = new CommitTracker(store, laggingFeed().feed);
      const wait = tracker.wait('m-1', 'account/a', { onFeed: false });
      // When it was sent, as the host tells it once the message is accepted.
      wait.sentAt(now);
      let settled = false;
      void wait.record.then(() => {
        settled = true;
      });
      const error = { code: ErrorCode.DEAD_LETTERED, message: 'kept', details: {} };
      const kept = {
        key: 'm-1',
        actorId: 'account/a',
        outcome: { ok: false as const, error: { ...error, details: { awaitsRedrive: true } } },
        expiresAt: now + DAY,
      };
      await store.commit({
        expectedVer: 0,
        record: record(1, 'life00000001'),
        outbox: [],
        idempotency: [kept],
      });
      await new Promise((resolve) => setTimeout(resolve, polled ? 100 : 0));
      expect(settled).toBe(false);

      // Its purge: DEAD_LETTERED for good.
      const purged = { ...kept, outcome: { ok: false as const, error } };
      await store.commit({
        expectedVer: 1,
        record: record(2, 'life00000001'),
        outbox: [],
        idempotency: [],
        replaceIdempotency: [purged],
      });
      await expect(wait.record).resolves.toMatchObject({ outcome: { ok: false, error } });
      tracker.close();
    },
  );

  it("polls a store that pushes no outcomes with the message's sentAt, once told it; before, reads only a claimed key's, from its claim", async () => {
    const store = new EmbeddedStore();
    // A store without `watchOutcomes` (as DynamoDB's): the tracker polls it.
    const reads: Array<[string, number | undefined]> = [];
    const bounds: Array<number | undefined> = [];
    const polled = Object.create(store, {
      watchOutcomes: { value: undefined },
      readClaim: { value: (key: string) => store.readClaim(key) },
      readIdempotency: {
        value: (key: string, sentAt?: number, options?: OutcomeReadOptions) => {
          reads.push([key, sentAt]);
          bounds.push(options?.maxPages);
          return store.readIdempotency(key);
        },
      },
    });
    const tracker = new CommitTracker(polled, laggingFeed().feed);
    // A key sent before: its claim names when.
    const sentBefore = 1_700_000_000_000;
    await store.claimKey({
      key: 'm-0',
      fingerprint: 'f',
      expiresAt: Date.now() + DAY,
      sentAt: sentBefore,
    });
    const again = tracker.wait('m-0', 'account/a', { onFeed: false });
    // A fresh key: nothing is read until its send says when it was sent.
    const fresh = tracker.wait('m-1', 'account/a', { onFeed: false });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(reads).toEqual([['m-0', sentBefore - 60 * 60 * 1000]]);
    fresh.sentAt(sentBefore + 5);
    await expect
      .poll(() => reads.filter(([key]) => key === 'm-1').length)
      .toBeGreaterThanOrEqual(2);
    for (const wait of [again, fresh]) wait.cancel();
    tracker.close();
    // Each read from its send, through as many outcome pages as a client's read, no more: a
    // frame must not read them all (a retry's outcome further back is brought forward by its
    // actor), nor make the store walk a busy actor's pages for a key nobody sent.
    expect(new Set(reads.filter(([key]) => key === 'm-1').map(([, at]) => at))).toEqual(
      new Set([sentBefore + 5]),
    );
    expect(new Set(bounds)).toEqual(new Set([OUTCOME_READ_MAX_PAGES]));
  });
});
