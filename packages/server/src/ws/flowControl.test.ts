import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer } from './fixtures/startTestServer.ts';

let t: Awaited<ReturnType<typeof startTestServer>>;
beforeEach(async () => {
  t = await startTestServer();
});
afterEach(() => t.close());

const pushes = (frames: readonly { type: string }[]) =>
  frames.filter((f) => f.type === 'result' || f.type === 'patch');

describe('flow control', () => {
  it('holds newer results while a push is unacknowledged, then sends only the newest', async () => {
    const a = await t.open();
    const b = await t.open();
    a.send({
      v: 1,
      type: 'subscribe',
      id: 's1',
      query: 'padded',
      args: { account: 'f1', size: 200 },
    });
    expect(await a.push('s1')).toMatchObject({ type: 'result', version: 1 });
    // Three commits, each re-run and pushed by the engine while the client has not acked.
    for (const amount of [1, 2, 3]) await t.deposit(b, 'f1', amount);
    await t.server.engine.flush();
    await a.roundTrip();
    expect(pushes(a.unread())).toEqual([]);
    expect(t.server.engine.stats().pushes).toBeGreaterThanOrEqual(4);

    a.ack('s1', 1);
    const newest = await a.push('s1');
    expect(newest).toMatchObject({ type: 'patch', version: 4, baseVersion: 1 });
    expect(a.values.get('s1')).toEqual({ balance: 6, padding: 'x'.repeat(200) });

    a.ack('s1', 4);
    await a.roundTrip();
    expect(pushes(a.unread())).toEqual([]); // nothing newer: nothing sent
    await t.deposit(b, 'f1', 4);
    expect(await a.push('s1')).toMatchObject({ type: 'patch', version: 5, baseVersion: 4 });
    expect(a.values.get('s1')).toMatchObject({ balance: 10 });
  });

  it('ignores an ack of a version that is not the one in flight', async () => {
    const a = await t.open();
    const b = await t.open();
    a.send({
      v: 1,
      type: 'subscribe',
      id: 's1',
      query: 'totalBalance',
      args: { accounts: ['f2'] },
    });
    await a.push('s1');
    await t.deposit(b, 'f2', 1);
    a.ack('s1', 7); // not sent: ignored
    a.ack('nope', 1); // no such subscription: ignored
    await a.roundTrip();
    expect(pushes(a.unread())).toEqual([]);
    a.ack('s1', 1);
    expect(await a.push('s1')).toMatchObject({ version: 2 });
  });

  it('sends an error at once, dropping a held result, and then the next result', async () => {
    const a = await t.open();
    const b = await t.open();
    await t.deposit(b, 'f3', 4);
    a.send({ v: 1, type: 'subscribe', id: 's1', query: 'share', args: { of: 'f3' } });
    expect(await a.push('s1')).toMatchObject({ version: 1, value: 25 });
    await t.deposit(b, 'f3', 1); // 20, held
    await t.deposit(b, 'f3', -5); // empty: the query refuses
    expect((await a.next('error', (f) => f.id === 's1')).error.code).toBe('REJECTED');
    a.ack('s1', 1);
    await a.roundTrip();
    expect(pushes(a.unread())).toEqual([]); // the held 20 was dropped for the error
    await t.deposit(b, 'f3', 10);
    expect(await a.push('s1')).toMatchObject({ version: 3, value: 10 });
  });

  it('keeps subscriptions of one connection independent: each has its own unacked push', async () => {
    const a = await t.open();
    const b = await t.open();
    a.send({ v: 1, type: 'subscribe', id: 'x', query: 'totalBalance', args: { accounts: ['f4'] } });
    a.send({ v: 1, type: 'subscribe', id: 'y', query: 'totalBalance', args: { accounts: ['f5'] } });
    await Promise.all([a.push('x'), a.push('y')]);
    a.ack('y', 1);
    await t.deposit(b, 'f4', 1);
    await t.deposit(b, 'f5', 1);
    expect(await a.push('y')).toMatchObject({ version: 2 });
    await a.roundTrip();
    expect(pushes(a.unread())).toEqual([]); // x waits for its ack
    a.ack('x', 1);
    expect(await a.push('x')).toMatchObject({ version: 2 });
  });

  it('takes the acks of several subscriptions in one `acks` frame, counted as one frame', async () => {
    await t.close();
    // Three subscribes, the deposit's frames and one `acks` fit in 6 frames; three acks would not.
    const frozen = { now: () => 1_700_000_000_250 };
    t = await startTestServer({ maxFramesPerSecond: 6, engine: { clock: frozen } });
    const a = await t.open();
    const b = await t.open();
    for (const id of ['x', 'y', 'z']) {
      a.send({ v: 1, type: 'subscribe', id, query: 'totalBalance', args: { accounts: ['f6'] } });
    }
    await Promise.all([a.push('x'), a.push('y'), a.push('z')]);
    await t.deposit(b, 'f6', 1);
    await t.server.engine.flush();
    await a.roundTrip();
    expect(pushes(a.unread())).toEqual([]); // each waits for its ack

    a.send({ v: 1, type: 'acks', versions: { x: 1, y: 1, z: 7 } }); // z: not the version sent
    expect(await a.push('x')).toMatchObject({ version: 2 });
    expect(await a.push('y')).toMatchObject({ version: 2 });
    await a.roundTrip();
    expect(pushes(a.unread())).toEqual([]); // z still waits for an ack of version 1
    expect(a.unread().filter((f) => f.type === 'error')).toEqual([]);
  });
});
