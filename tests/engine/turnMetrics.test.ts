/**
 * The engine's per-turn hook (`onTurn`) and its Powertools Metrics adapter (`turnMetrics`):
 * every turn is counted — applied, rejected, dead-lettered, parked, retried, version conflicts —
 * and published as CloudWatch EMF log lines, with no call to CloudWatch.
 */
import { Metrics } from '@aws-lambda-powertools/metrics';
import { silentLogger } from '@baton/core';
import type { Commit, Store } from '@baton/core/adapter';
import { pauseActor, resumeActor, type TurnStats, turnMetrics, Worker } from '@baton/core/engine';
import { Ledger } from '@baton/testing/conformance';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runUntilIdle, setup } from './helpers.ts';

/**
 * A harness whose worker tells `onTurn` of each turn; `wrap` may stand between the worker and
 * the store.
 */
function withListener(onTurn: (stats: TurnStats) => void, wrap = (store: Store) => store) {
  const h = setup({ actors: [Ledger], batchSize: 10 });
  const worker = new Worker({
    actors: [Ledger],
    store: wrap(h.backend.store),
    queue: h.backend.queue,
    clock: h.clock,
    logger: silentLogger,
    onTurn,
  });
  return { ...h, run: () => runUntilIdle(worker, h.backend, h.clock) };
}

const sum = (turns: readonly TurnStats[], key: keyof TurnStats) =>
  turns.reduce((n, t) => n + Number(t[key]), 0);

describe('turn metrics', () => {
  afterEach(() => vi.restoreAllMocks());

  it('counts every message of every turn by what became of it', async () => {
    const turns: TurnStats[] = [];
    const h = withListener((stats) => turns.push(stats));
    await h.client.send(Ledger.ref('m'), 'add', { entry: 'a', amount: 1 });
    await h.client.send(Ledger.ref('m'), 'refuse', { entry: 'r' });
    await h.client.send(Ledger.ref('m'), 'flaky', { entry: 'f', failures: 9 });
    await h.client.send(Ledger.ref('m'), 'add', { entry: 'b', amount: 1 });
    await pauseActor(h.backend.store, h.backend.queue, 'ledger/p', { by: 'test' });
    await h.client.send(Ledger.ref('p'), 'add', { entry: 'held', amount: 1 });
    await h.run();

    expect(turns.every((t) => t.durationMs >= 0 && !t.failed)).toBe(true);
    expect(turns.every((t) => t.actorType === 'ledger')).toBe(true);
    expect(sum(turns, 'applied')).toBe(2);
    expect(sum(turns, 'rejected')).toBe(1);
    expect(sum(turns, 'deadLettered')).toBe(1);
    // Kept for its failures, not its size: not counted apart.
    expect(sum(turns, 'stateTooLarge')).toBe(0);
    expect(sum(turns, 'parked')).toBe(1);
    // The flaky message was left twice for the queue (and 'b' behind it), then dead-lettered.
    expect(sum(turns, 'retried')).toBe(4);
    expect(sum(turns, 'batchSize')).toBe(
      sum(turns, 'applied') +
        sum(turns, 'rejected') +
        sum(turns, 'deadLettered') +
        sum(turns, 'parked') +
        sum(turns, 'skipped') +
        sum(turns, 'retried'),
    );
  });

  it('counts a message kept because its state would pass the record limit among the dead letters and apart, and publishes it as MessagesStateTooLarge', async () => {
    const turns: TurnStats[] = [];
    const lines: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    const metrics = new Metrics({ namespace: 'baton-test', serviceName: 'worker' });
    const record = turnMetrics(metrics);
    const h = withListener((stats) => {
      turns.push(stats);
      record(stats);
    });
    const bytes = h.backend.store.limits.maxItemBytes + 1;
    await h.client.send(Ledger.ref('big'), 'pad', { bytes });
    await h.client.send(Ledger.ref('big'), 'refuse', { entry: 'r' });
    await h.client.send(Ledger.ref('big'), 'add', { entry: 'a', amount: 1 });
    await h.run();
    metrics.publishStoredMetrics();
    vi.restoreAllMocks();

    expect(sum(turns, 'rejected')).toBe(1);
    expect(sum(turns, 'deadLettered')).toBe(1);
    expect(sum(turns, 'stateTooLarge')).toBe(1);
    expect(sum(turns, 'applied')).toBe(1);
    const emf = lines.map((l) => JSON.parse(l)).filter((l) => l._aws?.CloudWatchMetrics);
    const published = (name: string) =>
      emf.reduce((n, l) => n + [l[name] ?? 0].flat().reduce((a: number, b: number) => a + b, 0), 0);
    expect(published('MessagesStateTooLarge')).toBe(1);
    expect(published('MessagesDeadLettered')).toBe(1);
    expect(published('MessagesRejected')).toBe(1);
  });

  it('counts a commit lost to another writer of the actor as a version conflict, then applies the message once', async () => {
    const turns: TurnStats[] = [];
    let raced = false;
    // An operator pauses and resumes the actor while its turn runs: the turn's commit, on the
    // version it read, conflicts, and the turn is done again on the new record.
    const h = withListener(
      (stats) => turns.push(stats),
      (store) =>
        new Proxy(store, {
          get(target, property) {
            if (property !== 'commit') {
              const value: unknown = Reflect.get(target, property, target);
              return typeof value === 'function' ? value.bind(target) : value;
            }
            return async (commit: Commit) => {
              if (!raced && commit.record.id === 'ledger/c') {
                raced = true;
                await pauseActor(target, h.backend.queue, 'ledger/c', { by: 'test' });
                await resumeActor(target, h.backend.queue, 'ledger/c', { by: 'test' });
              }
              return target.commit(commit);
            };
          },
        }),
    );
    await h.client.send(Ledger.ref('c'), 'add', { entry: 'a', amount: 1 });
    await h.run();

    expect(raced).toBe(true);
    // The turn of the message lost its first commit and won the next. (The pause's and the
    // resume's wake-ups come after, as turns that apply nothing.)
    const [first, ...wakeUps] = turns;
    expect(first).toMatchObject({ batchSize: 1, applied: 1, versionConflicts: 1 });
    expect(sum(wakeUps, 'applied')).toBe(0);
    expect((await h.backend.store.load('ledger/c'))?.state).toMatchObject({
      entries: ['a'],
      total: 1,
    });
  });

  it('publishes the turns as CloudWatch EMF through Powertools Metrics', async () => {
    const lines: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    const metrics = new Metrics({ namespace: 'baton-test', serviceName: 'worker' });
    const h = withListener(turnMetrics(metrics));
    await h.client.send(Ledger.ref('e'), 'add', { entry: 'a', amount: 1 });
    await h.client.send(Ledger.ref('e'), 'refuse', { entry: 'r' });
    await h.run();
    metrics.publishStoredMetrics();
    vi.restoreAllMocks();

    const emf = lines.map((l) => JSON.parse(l)).find((l) => l._aws?.CloudWatchMetrics);
    expect(emf._aws.CloudWatchMetrics[0].Namespace).toBe('baton-test');
    const names = emf._aws.CloudWatchMetrics[0].Metrics.map((m: { Name: string }) => m.Name);
    expect(names).toEqual(
      expect.arrayContaining([
        'TurnDuration',
        'MessagesApplied',
        'MessagesRejected',
        'VersionConflicts',
      ]),
    );
    expect(emf.MessagesApplied).toBe(1);
    expect(emf.MessagesRejected).toBe(1);
  });
});
