import { jsonLogger } from '@baton/core';
import { VirtualClock } from '@baton/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startTestServer } from './fixtures/startTestServer.ts';
import { TestSocket } from './fixtures/TestSocket.ts';
import type { AuthRequest } from './LocalServerOptions.ts';

let t: Awaited<ReturnType<typeof startTestServer>> | undefined;
afterEach(() => t?.close());

const users: Record<string, { userId: string; role?: string }> = {
  'admin-token': { userId: 'ada', role: 'admin' },
  'user-token': { userId: 'bob' },
};

async function auth({ token }: AuthRequest) {
  const user = token === undefined ? undefined : users[token];
  if (!user) throw new Error(`unknown token ${JSON.stringify(token)}`);
  return user;
}

describe('auth', () => {
  it('refuses a connection the auth hook rejects with close code 4401, telling it only "unauthorized" and logging why', async () => {
    const lines: string[] = [];
    const logger = jsonLogger({ write: (line) => lines.push(line) });
    t = await startTestServer({ auth, logger });
    const refused = await TestSocket.open(t.server.url, { query: '?token=forged' });
    expect(await refused.closed).toEqual({ code: 4401, reason: 'unauthorized' });
    expect(lines.map((line) => JSON.parse(line))).toContainEqual(
      expect.objectContaining({
        message: 'connection refused by auth',
        reason: 'unknown token "forged"',
      }),
    );
    const anonymous = await TestSocket.open(t.server.url);
    expect((await anonymous.closed).code).toBe(4401);
    expect(t.server.connections()).toEqual([]);
  });

  it('takes the token from the query string or the token.<token> subprotocol', async () => {
    const seen: AuthRequest[] = [];
    t = await startTestServer({
      auth: (request) => {
        seen.push(request);
        return auth(request);
      },
    });
    const byQuery = await t.open({ query: '?token=user-token' });
    const byProtocol = await t.open({ protocols: ['baton.v1', 'token.admin-token'] });
    expect(byProtocol.protocol).toBe('baton.v1');
    expect(seen.map((r) => r.token)).toEqual(['user-token', 'admin-token']);
    expect(seen[0]!.headers.host).toContain('127.0.0.1');
    expect(t.server.connections().map((c) => c.identity)).toEqual([
      { userId: 'bob' },
      { userId: 'ada', role: 'admin' },
    ]);
    await Promise.all([byQuery.roundTrip(), byProtocol.roundTrip()]);
  });

  it('errors only the subscription a query refuses for the identity; the others keep working', async () => {
    t = await startTestServer({ auth });
    const user = await t.open({ query: '?token=user-token', autoAck: true });
    const admin = await t.open({ query: '?token=admin-token', autoAck: true });
    const adminTotal = {
      v: 1,
      type: 'subscribe',
      query: 'adminTotal',
      args: { accounts: ['i1'] },
    } as const;
    user.send({ ...adminTotal, id: 'secret' });
    user.send({ v: 1, type: 'subscribe', id: 'mine', query: 'myBalance', args: {} });
    admin.send({ ...adminTotal, id: 'secret' });
    const refused = await user.next('error', (f) => f.id === 'secret');
    expect(refused.error).toMatchObject({ code: 'REJECTED', message: 'admins only' });
    expect(await user.push('mine')).toMatchObject({ value: 0 });
    expect(await admin.push('secret')).toMatchObject({ value: 0 });
    // The refused subscription does not disturb the rest of the socket.
    await t.deposit(user, 'bob', 4);
    await t.deposit(user, 'i1', 2);
    expect(user.values.get('mine')).toBe(4);
    await admin.push('secret');
    expect(admin.values.get('secret')).toBe(2);
    expect(user.unread().filter((f) => f.type === 'error')).toEqual([]);
  });

  it('drops a connection attempt whose auth hook is still running when the server closes', async () => {
    let called = () => {};
    const calling = new Promise<void>((resolve) => (called = resolve));
    let release = (_identity: unknown) => {};
    t = await startTestServer({
      auth: () => {
        called();
        return new Promise((resolve) => (release = resolve));
      },
    });
    const socket = new WebSocket(t.server.url, ['baton.v1']);
    const failed = new Promise((resolve) => socket.once('error', resolve));
    await calling;
    await t.server.close();
    release({ userId: 'late' });
    await failed;
    expect(t.server.connections()).toEqual([]);
  });
});

describe('an identity that ends (validUntil)', () => {
  const TOKEN_MS = 60_000;
  /** `user-token` lives a minute from its connect; `admin-token` has no end. */
  const expiring = (clock: VirtualClock) => (request: AuthRequest) => {
    if (request.token === 'user-token') request.validUntil(clock.now() + TOKEN_MS);
    return auth(request);
  };
  const subscribeMine = {
    v: 1,
    type: 'subscribe',
    id: 'mine',
    query: 'myBalance',
    args: {},
  } as const;
  const EXPIRED = { code: 4440, reason: 'the token expired: connect again with a fresh one' };

  it('closes the connection (4440) at its next push past the end, which it does not get', async () => {
    const clock = new VirtualClock();
    // The heartbeat never runs here: the push itself finds the end.
    t = await startTestServer({ engine: { clock }, heartbeatMs: 600_000, auth: expiring(clock) });
    const user = await t.open({ query: '?token=user-token', autoAck: true });
    const admin = await t.open({ query: '?token=admin-token', autoAck: true });
    user.send(subscribeMine);
    expect(await user.push('mine')).toMatchObject({ value: 0 });
    await t.deposit(admin, 'bob', 3);
    await user.push('mine');
    expect(user.values.get('mine')).toBe(3);
    await user.roundTrip(); // its ack is handled: no frame of its comes past the end

    clock.advance(TOKEN_MS);
    await t.deposit(admin, 'bob', 4);
    expect(await user.closed).toEqual(EXPIRED);
    expect(user.values.get('mine')).toBe(3);
    expect(t.server.connections().map((c) => c.identity)).toEqual([
      { userId: 'ada', role: 'admin' },
    ]);
  });

  it('refuses its frames past the end, closing it: a send then is never enqueued', async () => {
    const clock = new VirtualClock();
    t = await startTestServer({ engine: { clock }, heartbeatMs: 600_000, auth: expiring(clock) });
    const user = await t.open({ query: '?token=user-token' });
    const admin = await t.open({ query: '?token=admin-token', autoAck: true });
    clock.advance(TOKEN_MS - 1);
    await user.roundTrip(); // a millisecond before its end, it is served
    clock.advance(1);
    user.send({
      v: 1,
      type: 'send',
      requestId: 'late',
      to: 'account/bob',
      name: 'deposit',
      payload: { amount: 5 },
      idempotencyKey: 'late',
      visible: true,
    });
    expect(await user.closed).toEqual(EXPIRED);
    expect(user.unread()).toEqual([]);
    // An actor applies its messages in order: had the late one been enqueued, it came first.
    await t.deposit(admin, 'bob', 1);
    admin.send({
      v: 1,
      type: 'subscribe',
      id: 'bob',
      query: 'totalBalance',
      args: { accounts: ['bob'] },
    });
    expect(await admin.push('bob')).toMatchObject({ value: { total: 1 } });
  });

  it('closes an idle connection at the heartbeat after its end', async () => {
    const clock = new VirtualClock();
    t = await startTestServer({ engine: { clock }, heartbeatMs: 5, auth: expiring(clock) });
    const user = await t.open({ query: '?token=user-token' });
    const admin = await t.open({ query: '?token=admin-token' });
    clock.advance(TOKEN_MS);
    expect(await user.closed).toEqual(EXPIRED);
    await admin.roundTrip();
    expect(t.server.connections()).toHaveLength(1);
  });

  it.each([
    ['a time already past', (now: number) => now - 1, /valid until .* before now/],
    ['seconds, not milliseconds', (now: number) => Math.floor(now / 1000) + 3600, /exp \* 1000/],
    ['not a time', () => Number.NaN, /validUntil takes a time in epoch milliseconds, got NaN/],
  ])('refuses a connection given %s (4401), logging why', async (_what, until, why) => {
    const lines: string[] = [];
    t = await startTestServer({
      logger: jsonLogger({ write: (line) => lines.push(line) }),
      auth: (request) => {
        request.validUntil(until(Date.now()));
        return { userId: 'eve' };
      },
    });
    const refused = await TestSocket.open(t.server.url);
    expect(await refused.closed).toEqual({ code: 4401, reason: 'unauthorized' });
    const logged = lines.map((line) => JSON.parse(line)).find((l) => l.reason !== undefined);
    expect(logged.reason).toMatch(why);
  });

  it('refuses a connection whose identity is not plain JSON (4401), logging why', async () => {
    // Its JSON is {} for every user: they would share one scope (a query reading ctx.identity,
    // idempotency keys, the per-user connection cap).
    class Session {
      readonly #sub: string;
      constructor(sub: string) {
        this.#sub = sub;
      }
      get userId(): string {
        return this.#sub;
      }
    }
    const lines: string[] = [];
    t = await startTestServer({
      logger: jsonLogger({ write: (line) => lines.push(line) }),
      auth: ({ token }) => new Session(String(token)),
    });
    const refused = await TestSocket.open(t.server.url, { query: '?token=alice' });
    expect(await refused.closed).toEqual({ code: 4401, reason: 'unauthorized' });
    const logged = lines.map((line) => JSON.parse(line)).find((l) => l.reason !== undefined);
    expect(logged.reason).toMatch(/not plain JSON data \(identity is a Session\)/);
    expect(t.server.connections()).toEqual([]);
  });
});
