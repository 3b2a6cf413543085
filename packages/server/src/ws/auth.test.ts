import { jsonLogger } from '@baton/core';
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
