import { once } from 'node:events';
import type { Socket } from 'node:net';
import { RECEIVED_SUBPROTOCOL } from '@baton/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { CloseCode } from './CloseCode.ts';
import { UNREAD_GRACE_MS } from './FrameWriter.ts';
import { startTestServer } from './fixtures/startTestServer.ts';
import type { TestSocket } from './fixtures/TestSocket.ts';

let t: Awaited<ReturnType<typeof startTestServer>>;
beforeEach(async () => {
  t = await startTestServer();
});
afterEach(() => t.close());

const pushes = (frames: readonly { type: string }[]) =>
  frames.filter((f) => f.type === 'result' || f.type === 'patch');

/** Subscribes `a` to the total of `account` as `id`; resolves with the first push. */
function subscribeTotal(a: TestSocket, id: string, account: string) {
  a.send({ v: 1, type: 'subscribe', id, query: 'totalBalance', args: { accounts: [account] } });
  return a.push(id);
}

/**
 * Subscribes `a` three times (x, y, z) to the total of `account`, takes each first push, then
 * deposits: each subscription's next result is held for its ack.
 */
async function threeHeld(a: TestSocket, account: string): Promise<TestSocket> {
  await Promise.all(['x', 'y', 'z'].map((id) => subscribeTotal(a, id, account)));
  await t.deposit(await t.open(), account, 1);
  await t.server.engine.flush();
  await a.roundTrip();
  expect(pushes(a.unread())).toEqual([]); // each waits for its ack
  return a;
}

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
    const a = await threeHeld(await t.open(), 'f6');

    a.send({ v: 1, type: 'acks', versions: { x: 1, y: 1, z: 7 } }); // z: not the version sent
    expect(await a.push('x')).toMatchObject({ version: 2 });
    expect(await a.push('y')).toMatchObject({ version: 2 });
    await a.roundTrip();
    expect(pushes(a.unread())).toEqual([]); // z still waits for an ack of version 1
    expect(a.unread().filter((f) => f.type === 'error')).toEqual([]);
  });
});

describe('flow control by count (baton.v1.received)', () => {
  const counted = { protocols: ['baton.v1.received', 'baton.v1'] };
  /** The number of the wire frame that carried `push`, counted from 1. */
  const frameOf = (socket: { raw: string[] }, push: { id: string; version: number }) =>
    socket.raw.findIndex((text) => {
      const frame = JSON.parse(text) as { id?: string; version?: number };
      return frame.id === push.id && frame.version === push.version;
    }) + 1;

  it('is selected when the client offers it, and baton.v1 otherwise', async () => {
    expect((await t.open(counted)).protocol).toBe('baton.v1.received');
    expect((await t.open({ protocols: ['baton.v1'] })).protocol).toBe('baton.v1');
  });

  it('holds newer results until a received frame counts the push, then sends only the newest', async () => {
    const a = await t.open(counted);
    const b = await t.open();
    const first = await subscribeTotal(a, 's1', 'c1');
    for (const amount of [1, 2]) await t.deposit(b, 'c1', amount);
    await t.server.engine.flush();
    a.received(frameOf(a, first) - 1); // stops short of the push: it is not acknowledged
    await a.roundTrip();
    expect(pushes(a.unread())).toEqual([]);

    a.received(frameOf(a, first));
    expect(await a.push('s1')).toMatchObject({ version: 3 });
    expect(a.values.get('s1')).toMatchObject({ total: 3 });
    await a.roundTrip();
    expect(pushes(a.unread())).toEqual([]); // version 2 was skipped
  });

  it('acknowledges the pushes of every subscription with one frame', async () => {
    const a = await threeHeld(await t.open(counted), 'c2');
    a.received();
    const next = await Promise.all([a.push('x'), a.push('y'), a.push('z')]);
    expect(next.map((push) => push.version)).toEqual([2, 2, 2]);
  });

  it('counts a chunked push by its last chunk', async () => {
    const a = await t.open(counted);
    const b = await t.open();
    const args = { account: 'c3', size: 200_000 };
    a.send({ v: 1, type: 'subscribe', id: 's1', query: 'padded', args });
    await a.push('s1');
    const chunks = a.raw.filter((text) => text.includes('"type":"chunk"')).length;
    expect(chunks).toBeGreaterThan(1);
    await t.deposit(b, 'c3', 5);
    await t.server.engine.flush();
    a.received(a.raw.length - 1); // all but the last chunk
    await a.roundTrip();
    expect(pushes(a.unread())).toEqual([]);
    a.received();
    expect(await a.push('s1')).toMatchObject({ type: 'patch', version: 2 });
    expect(a.values.get('s1')).toMatchObject({ balance: 5 });
  });

  it('forgets the unacknowledged pushes of ended subscriptions, and still releases live ones', async () => {
    const a = await t.open(counted);
    const b = await t.open();
    await subscribeTotal(a, 'live', 'c4');
    // More ended subscriptions, never acked, than the connection keeps before dropping them
    // (64 and two per live one), within the connection's 200 frames a second.
    for (let i = 0; i < 80; i++) {
      const id = `gone${i}`;
      await subscribeTotal(a, id, `c4-${i}`);
      a.send({ v: 1, type: 'unsubscribe', id });
    }
    await t.deposit(b, 'c4', 7);
    await t.server.engine.flush();
    a.received();
    expect(await a.push('live')).toMatchObject({ version: 2 });
    expect(a.values.get('live')).toMatchObject({ total: 7 });
  });
});

describe('a client that stops reading', () => {
  it('is closed (4413) once more than maxUnreadBytes stays unread in its socket past the grace', async () => {
    await t.close();
    let now = 1_700_000_000_000;
    const clock = { now: () => now };
    // The heartbeat closes it: its frames wait unread, so no write of an answer finds it.
    t = await startTestServer({ maxUnreadBytes: 256 * 1024, heartbeatMs: 50, engine: { clock } });
    const ws = new WebSocket(t.server.url, [RECEIVED_SUBPROTOCOL]);
    await once(ws, 'open');
    const closed = new Promise<{ code: number; reason: string }>((resolve) => {
      ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() }));
    });
    const send = (frame: object) => ws.send(JSON.stringify({ v: 1, ...frame }));
    const raw = (ws as unknown as { _socket: Socket })._socket;
    raw.pause(); // from now on the client reads nothing
    // 30 MB of first results, more than the sockets' buffers hold.
    for (let i = 0; i < 30; i++) {
      const args = { account: `slow-${i}`, size: 1_000_000 };
      send({ type: 'subscribe', id: `s${i}`, query: 'padded', args });
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(t.server.connections()).toHaveLength(1); // within the grace: open still
    // A grace later, a heartbeat finds the backlog as it was. On a busy host the first results
    // may take longer than a second to write: then the grace begins with a later write.
    for (let round = 0; round < 50 && t.server.connections().length > 0; round++) {
      now += UNREAD_GRACE_MS;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    raw.resume();
    const timedOut = new Promise((resolve) => setTimeout(() => resolve('still open'), 5_000));
    expect(await Promise.race([closed, timedOut])).toEqual({
      code: CloseCode.NOT_READING,
      reason: 'over 262144 bytes sent were left unread: read, then connect again',
    });
  });

  it('has its frames left unread while it leaves its answers unread, so the server does not write on without bound', async () => {
    await t.close();
    const maxUnreadBytes = 64 * 1024;
    t = await startTestServer({ maxUnreadBytes, maxFramesPerSecond: 100_000 });
    const ws = new WebSocket(t.server.url, [RECEIVED_SUBPROTOCOL]);
    await once(ws, 'open');
    (ws as unknown as { _socket: Socket })._socket.pause(); // reads nothing from now on
    // 20,000 frames, each answered with a refusal of some 300 bytes: about 6 MB of answers, more
    // than the sockets' buffers hold.
    const frame = JSON.stringify({
      v: 1,
      type: 'subscribe',
      id: 's',
      query: 'q'.repeat(128),
      args: {},
    });
    for (let i = 0; i < 20_000; i++) ws.send(frame);
    let peak = 0;
    for (let i = 0; i < 100; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      peak = Math.max(peak, t.server.connections()[0]?.unreadBytes ?? 0);
    }
    // Past maxUnreadBytes it was held: what is written past it is one read of frames' answers.
    expect(peak).toBeGreaterThan(maxUnreadBytes);
    expect(peak).toBeLessThan(maxUnreadBytes + 1024 * 1024);
    // A client that reads again gets every answer, in order, and its frames are read again.
    const errors: number[] = [];
    ws.on('message', (data) => {
      if (JSON.parse(String(data)).type === 'error') errors.push(errors.length);
    });
    (ws as unknown as { _socket: Socket })._socket.resume();
    for (let i = 0; i < 300 && errors.length < 20_000; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(errors).toHaveLength(20_000);
    ws.close();
  });

  it('is not a client that reads: twelve views of 1 MB at once, as a page subscribes on load', async () => {
    const a = await t.open({ autoAck: true });
    for (let i = 0; i < 12; i++) {
      const args = { account: `big-${i}`, size: 1_000_000 };
      a.send({ v: 1, type: 'subscribe', id: `s${i}`, query: 'padded', args });
    }
    for (let i = 0; i < 12; i++)
      expect(await a.push(`s${i}`, 20_000)).toMatchObject({ id: `s${i}` });
    expect(t.server.connections()).toHaveLength(1);
  });
});

describe('a client that subscribes to much and reads nothing', () => {
  it('is written about maxUnreadBytes and one result past what the sockets hold: the other first results wait for it to read, then all come', async () => {
    await t.close();
    const maxUnreadBytes = 256 * 1024;
    t = await startTestServer({ maxUnreadBytes });
    const a = await t.open();
    const raw = (a.socket as unknown as { _socket: Socket })._socket;
    raw.pause(); // reads nothing until told
    // 40 views of 1 MB each: far more than the sockets' buffers hold.
    for (let i = 0; i < 40; i++) {
      const args = { account: `held-${i}`, size: 1_000_000 };
      a.send({ v: 1, type: 'subscribe', id: `s${i}`, query: 'padded', args });
    }
    let peak = 0;
    for (let i = 0; i < 100; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      peak = Math.max(peak, t.server.connections()[0]?.unreadBytes ?? 0);
    }
    expect(peak).toBeGreaterThan(maxUnreadBytes);
    expect(peak).toBeLessThan(maxUnreadBytes + 1_100_000);
    // Once it reads, every view's first result comes.
    raw.resume();
    for (let i = 0; i < 40; i++) {
      expect(await a.push(`s${i}`, 20_000)).toMatchObject({ type: 'result', version: 1 });
    }
    expect(t.server.connections()).toHaveLength(1);
  });

  it('lets held pushes go at a heartbeat once the backlog is back under maxUnreadBytes, which no drain may say when it is under the socket high-water mark', async () => {
    await t.close();
    t = await startTestServer({
      maxUnreadBytes: 1_000,
      heartbeatMs: 100,
      maxSubscriptions: 2_000,
      maxFramesPerSecond: 100_000,
    });
    const a = await t.open({ autoAck: true });
    const b = await t.open();
    for (let i = 0; i < 10; i++) {
      a.send({
        v: 1,
        type: 'subscribe',
        id: `w${i}`,
        query: 'totalBalance',
        args: { accounts: [`w-${i}`] },
      });
      await a.push(`w${i}`);
    }
    const raw = (a.socket as unknown as { _socket: Socket })._socket;
    raw.pause(); // reads nothing while the sockets fill
    for (let i = 0; i < 600; i++) {
      const args = { account: `g-${i}`, size: 12_000 };
      a.send({ v: 1, type: 'subscribe', id: `s${i}`, query: 'padded', args });
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    for (let i = 0; i < 10; i++) await t.deposit(b, `w-${i}`, 5);
    await t.server.engine.flush();
    raw.resume();
    // Each watched view's new total comes.
    for (let i = 0; i < 10; i++) {
      expect(await a.push(`w${i}`, 20_000)).toMatchObject({ version: 2 });
    }
  });
});
