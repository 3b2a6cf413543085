import { Simulation } from '@baton/testing';
import { expect, it } from 'vitest';
import app from './app.ts';
import { Counter } from './counter.ts';

it('counts every add exactly once, whatever crashes and redeliveries happen', async () => {
  for (let seed = 1; seed <= 25; seed++) {
    // Each seed is another interleaving of workers, crashes and retries, on virtual time. The
    // whole app, so that an actor Counter sends to (once you add one) is there too.
    const sim = new Simulation({ ...app, seed });
    sim.send(Counter.ref('a'), 'add', { by: 1 }, { idempotencyKey: 'first' });
    sim.send(Counter.ref('a'), 'add', { by: 1 }, { idempotencyKey: 'first' }); // a retry
    const later = sim.send(Counter.ref('a'), 'addLater', { by: 10, inMs: 60_000 });
    await sim.run(); // until every message, and the timer, is processed
    expect((await sim.state(Counter.ref('a'))).count).toBe(11);
    expect(await sim.outcome(later)).toEqual({ ok: true });
  }
});
