import { VirtualClock } from '@baton/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer } from './fixtures/startTestServer.ts';

let t: Awaited<ReturnType<typeof startTestServer>> | undefined;
afterEach(() => t?.close());

describe('connection leases', () => {
  it('closes a connection that sent no frame for leaseMs (4408) and drops its subscriptions', async () => {
    const clock = new VirtualClock();
    t = await startTestServer({ engine: { clock }, leaseMs: 90_000, heartbeatMs: 5 });
    const quiet = await t.open({ autoAck: true });
    const chatty = await t.open({ autoAck: true });
    for (const socket of [quiet, chatty]) {
      socket.send({
        v: 1,
        type: 'subscribe',
        id: 's',
        query: 'totalBalance',
        args: { accounts: ['l'] },
      });
      await socket.push('s');
    }
    clock.advance(60_000);
    await chatty.roundTrip(); // a frame renews the lease
    clock.advance(30_000); // the quiet one has been silent for 90 s
    expect(await quiet.closed).toEqual({
      code: 4408,
      reason: 'no frame within 90000 ms: lease expired',
    });
    expect(t.server.engine.stats()).toMatchObject({ subscriptions: 1, instances: 1 });
    expect(t.server.connections()).toHaveLength(1);
    await t.deposit(chatty, 'l', 1);
    expect(chatty.values.get('s')).toMatchObject({ total: 1 });
  });

  it('keeps subscriptions of a connection that keeps pinging', async () => {
    const clock = new VirtualClock();
    t = await startTestServer({ engine: { clock }, leaseMs: 1_000, heartbeatMs: 5 });
    const a = await t.open({ autoAck: true });
    a.send({ v: 1, type: 'subscribe', id: 's', query: 'totalBalance', args: { accounts: ['l2'] } });
    await a.push('s');
    for (let i = 0; i < 10; i++) {
      clock.advance(500);
      await a.roundTrip();
    }
    expect(t.server.engine.stats().subscriptions).toBe(1);
    expect(t.server.connections()).toHaveLength(1);
  });
});
