/**
 * Pausing an actor (`pauseActor`, `resumeActor`): while paused it applies nothing, its messages
 * are parked in order — never retried, never dead-lettered — and other actors go on; resumed,
 * it applies every parked message exactly once, in order, before anything that came later.
 */
import { pauseActor, resumeActor } from '@baton/core/engine';
import { Ledger, ledgerRuns } from '@baton/testing/conformance';
import { beforeEach, describe, expect, it } from 'vitest';
import { setup } from './helpers.ts';

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
});
