/**
 * The engine's hooks (`onTurnStart`, `onCommit`, `onDeadLetter`, beside `onTurn`): what a tool
 * sees of each turn without wrapping the Worker or the Store, in order, and a hook that throws
 * leaves the turn alone.
 */
import { jsonLogger } from '@baton/core';
import type { Commit, DeadLetter } from '@baton/core/adapter';
import {
  type EngineOptions,
  pauseActor,
  resumeActor,
  startWorkerLoops,
  type TurnStart,
  Worker,
} from '@baton/core/engine';
import { queueWaiter, startEmbedded } from '@baton/embedded';
import { Ledger } from '@baton/testing/conformance';
import { describe, expect, it } from 'vitest';
import { runUntilIdle, setup } from './helpers.ts';

type Hooks = Pick<EngineOptions, 'onTurnStart' | 'onCommit' | 'onTurn' | 'onDeadLetter'>;

function withHooks(hooks: Hooks, logs: string[] = []) {
  const h = setup({ actors: [Ledger], batchSize: 10 });
  const worker = new Worker({
    actors: [Ledger],
    store: h.backend.store,
    queue: h.backend.queue,
    clock: h.clock,
    logger: jsonLogger({ level: 'warn', write: (line) => logs.push(line) }),
    ...hooks,
  });
  return { ...h, run: () => runUntilIdle(worker, h.backend, h.clock) };
}

describe('engine hooks', () => {
  it('tells of each turn its start with the messages, its commits once applied, its dead letters and its end', async () => {
    const events: string[] = [];
    const starts: TurnStart[] = [];
    const letters: DeadLetter[] = [];
    const h = withHooks({
      onTurnStart: (turn) => {
        starts.push(turn);
        events.push(`start ${turn.actorId}`);
      },
      onCommit: (commit) => {
        events.push(`commit ${commit.record.id} v${commit.record.ver}`);
      },
      onDeadLetter: (letter) => {
        letters.push(letter);
        events.push(`dead ${letter.actorId}`);
      },
      onTurn: (stats) => events.push(`end ${stats.actorId} retried ${stats.retried}`),
    });
    const { messageId } = await h.client.send(Ledger.ref('a'), 'add', { entry: 'x', amount: 1 });
    await h.client.send(Ledger.ref('a'), 'flaky', { entry: 'f', failures: 9 });
    await h.run();

    expect(starts[0]).toEqual({
      actorId: 'ledger/a',
      messages: [
        { id: messageId, name: 'add', from: 'ingress' },
        expect.objectContaining({ name: 'flaky', from: 'ingress' }),
      ],
    });
    // Two turns leave the flaky message to the queue, each counting its attempt in the record
    // (the first with the message before it); the third (maxAttempts 3) dead-letters it.
    expect(events).toEqual([
      'start ledger/a',
      'commit ledger/a v1',
      'end ledger/a retried 1',
      'start ledger/a',
      'commit ledger/a v2',
      'end ledger/a retried 1',
      'start ledger/a',
      'commit ledger/a v3',
      'dead ledger/a',
      'end ledger/a retried 0',
    ]);
    expect(letters).toMatchObject([{ actorId: 'ledger/a', envelope: { name: 'flaky' } }]);
    expect(await h.backend.store.load('ledger/a')).toMatchObject({
      state: { entries: ['x'], total: 1 },
    });
  });

  it('logs a hook that throws and finishes the turn as if it were not there', async () => {
    const logs: string[] = [];
    const boom = () => {
      throw new Error('boom');
    };
    const hooks = { onTurnStart: boom, onCommit: boom, onTurn: boom, onDeadLetter: boom };
    const h = withHooks(hooks, logs);
    await h.client.send(Ledger.ref('b'), 'add', { entry: 'y', amount: 2 });
    await h.client.send(Ledger.ref('b'), 'flaky', { entry: 'f', failures: 9 });
    await h.client.send(Ledger.ref('b'), 'add', { entry: 'z', amount: 3 });
    await h.run();
    expect(await h.backend.store.load('ledger/b')).toMatchObject({
      state: { entries: ['y', 'z'], total: 5 },
    });
    expect(await h.backend.store.listDeadLetters('ledger/b')).toHaveLength(1);
    const warned = logs.map((line) => JSON.parse(line).message);
    for (const hook of ['onTurnStart', 'onCommit', 'onTurn', 'onDeadLetter']) {
      expect(warned).toContain(`the ${hook} listener threw; the turn is unaffected`);
    }
  });
});

describe('onDeadLetter', () => {
  it('is not told of the messages a paused actor parks: they are not failures', async () => {
    const letters: DeadLetter[] = [];
    const h = withHooks({ onDeadLetter: (letter) => letters.push(letter) });
    await pauseActor(h.backend.store, h.backend.queue, 'ledger/p', { by: 'test' });
    await h.client.send(Ledger.ref('p'), 'add', { entry: 'x', amount: 1 });
    await h.run();
    expect(await h.backend.store.listDeadLetters('ledger/p')).toMatchObject([{ parked: 1 }]);
    expect(letters).toEqual([]);

    await resumeActor(h.backend.store, h.backend.queue, 'ledger/p', { by: 'test' });
    await h.client.send(Ledger.ref('p'), 'flaky', { entry: 'f', failures: 9 });
    await h.run();
    expect(letters).toMatchObject([{ actorId: 'ledger/p', envelope: { name: 'flaky' } }]);
  });
});

describe('the worker runner', () => {
  it('runs startEmbedded’s loops with the hooks it is given, and stops them', async () => {
    const commits: Commit[] = [];
    const app = startEmbedded({ actors: [Ledger], onCommit: (commit) => commits.push(commit) });
    await app.client.send(Ledger.ref('c'), 'add', { entry: 'z', amount: 3 });
    await app.idle();
    await app.stop();
    expect(commits.map((commit) => commit.record.id)).toEqual(['ledger/c']);
  });

  it('polls until stopped, sleeping in waitForWork while the queue is empty', async () => {
    const h = setup({ actors: [Ledger] });
    const waiter = queueWaiter(h.backend.queue);
    let waits = 0;
    const loops = startWorkerLoops(h.worker, {
      concurrency: 2,
      waitForWork: () => {
        waits++;
        return waiter.waitForWork();
      },
      wake: waiter.wake,
    });
    await h.client.send(Ledger.ref('d'), 'add', { entry: 'w', amount: 4 });
    // Applied by the loops (a hundred event-loop turns were not always enough on a loaded host).
    await expect
      .poll(() => h.backend.store.load('ledger/d'))
      .toMatchObject({ state: { total: 4 } });
    await loops.stop();
    waiter.close();
    expect(waits).toBeGreaterThan(0);
  });
});
