import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { BatonClient } from './BatonClient.ts';
import type { ConnectionState } from './ConnectionState.ts';
import { type FakeConnection, FakeServer } from './fixtures/FakeServer.ts';
import { recorder, testClient } from './fixtures/testClient.ts';

const alice = { type: 'account', key: 'alice', id: 'account/alice' } as const;

const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
/** An unsigned JWT with these claims: the client reads its payload only. */
const jwt = (claims: Record<string, unknown>) => `${part({ alg: 'RS256' })}.${part(claims)}.sig`;

let server: FakeServer;
let client: BatonClient;

beforeEach(async () => {
  server = await FakeServer.start();
});

afterEach(async () => {
  client?.close();
  await server.close();
});

/** Subscribes to `count` and answers it on connection `n` (version 1, value 1). */
async function answered(n: number, seen: ReturnType<typeof recorder<number>>) {
  if (n === 0) client.subscribe('count', {}, seen.listener);
  const connection = await server.connection(n);
  const { id } = await connection.take('subscribe');
  connection.send({ v: 1, type: 'result', id, version: 1, hash: 'h1', value: 1 });
  await connection.take('ack');
  return connection;
}

const unauthenticated = (details: Record<string, unknown>) => ({
  status: 'error',
  data: 1,
  version: 1,
  error: expect.objectContaining({ code: 'UNAUTHENTICATED', details }),
});

/** How the API Gateway host tells a connection its identity ended, before it deletes it. */
function expireOnAws(connection: FakeConnection): void {
  connection.send({
    v: 1,
    type: 'error',
    error: { code: 'UNAUTHENTICATED', message: "the connection's token expired", details: {} },
  });
}

describe('BatonClient when the server ends its auth', () => {
  it.each([
    [4401, 'unauthorized'],
    [4440, 'the token expired: connect again with a fresh one'],
  ])(
    'with a fixed token (%i): every query shows UNAUTHENTICATED with its last data, and the client stops for good',
    async (code, reason) => {
      const states: ConnectionState[] = [];
      const errors: string[] = [];
      client = testClient(server.url, {
        token: 'alice',
        onError: (error) => errors.push(error.code),
      });
      client.subscribeConnectionState((state) => states.push(state));
      const seen = recorder<number>();
      const first = await answered(0, seen);
      first.close(code, reason);

      await vi.waitFor(() => expect(client.connectionState).toBe('closed'));
      expect(seen.last()).toEqual(unauthenticated({ closeCode: code, reason }));
      expect(seen.last()?.error?.message).toMatch(/stopped reconnecting.*sign in again/);
      expect(states).toEqual(['open', 'closed']);
      expect(errors).toEqual(['UNAUTHENTICATED']);
      // A query subscribed since says so at once, rather than waiting for ever.
      const later = recorder<number>();
      client.subscribe('other', {}, later.listener);
      expect(later.last()).toMatchObject({ status: 'error', error: { code: 'UNAUTHENTICATED' } });
      await new Promise((resolve) => setTimeout(resolve, 100)); // past several backoffs
      expect(server.connections).toHaveLength(1);
    },
  );

  it('without a token: says the connection sent none and how to give the client one, not that a token was refused', async () => {
    const errors: { code: string; message: string; details?: unknown }[] = [];
    client = testClient(server.url, { onError: (error) => errors.push(error) });
    const first = await server.connection(0);
    expect(first.protocols.some((p) => p.startsWith('token.'))).toBe(false);
    first.close(4401, 'unauthorized');

    await vi.waitFor(() => expect(client.connectionState).toBe('closed'));
    expect(errors).toEqual([
      expect.objectContaining({
        code: 'UNAUTHENTICATED',
        message: expect.stringMatching(
          /^the server refused the connection, which sent no token \(close code 4401: unauthorized\): the client stopped reconnecting\. If the app's auth expects a token, give the client one: `new BatonClient\(\{ url, token \}\)`/,
        ),
        details: { closeCode: 4401, reason: 'unauthorized', tokenSent: false },
      }),
    ]);
  });

  it('with a token function that returns none: says so, and asks it again', async () => {
    let calls = 0;
    const errors: string[] = [];
    client = testClient(server.url, {
      token: () => (calls++ === 0 ? '' : 'alice'),
      onError: (error) => errors.push(error.message),
    });
    (await server.connection(0)).close(4401, 'unauthorized');
    const second = await server.connection(1);
    expect(second.protocols).toContain('token.alice');
    expect(errors[0]).toMatch(
      /^the server refused the connection, which sent no token .*: the token function returned none/,
    );
  });

  it('with a fixed token, rejects a send in flight saying it may have been applied and how to retry, and later sends as not sent', async () => {
    client = testClient(server.url, { token: 'alice' });
    const first = await server.connection(0);
    const sent = client.send(alice, 'deposit', { amount: 5 }, { idempotencyKey: 'dep-1' });
    const asked = client.ask(alice, 'balance', {}, { idempotencyKey: 'bal-1' });
    await first.take('send');
    await first.take('ask');
    first.close(4401, 'unauthorized');

    await expect(sent).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
      message: expect.stringMatching(
        /^send dep-1 got no answer .* may or may not have been applied: send it again with the same idempotencyKey/,
      ),
      details: { closeCode: 4401, idempotencyKey: 'dep-1' },
    });
    await expect(asked).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
      message: expect.stringMatching(/ask again with the same idempotencyKey to get its outcome/),
    });
    await expect(client.send(alice, 'deposit', { amount: 5 })).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
      message: expect.stringMatching(/^not sent: /),
    });
  });

  it('with a token function: queries show UNAUTHENTICATED, then it reconnects with a fresh token, re-sends what is in flight with its keys, and the queries recover', async () => {
    let calls = 0;
    client = testClient(server.url, { token: () => `token${++calls}` });
    const seen = recorder<number>();
    const first = await answered(0, seen);
    const sent = client.send(alice, 'deposit', { amount: 5 }, { idempotencyKey: 'dep-1' });
    const frame = await first.take('send');
    first.close(4401, 'unauthorized');

    await vi.waitFor(() =>
      expect(seen.last()).toEqual(unauthenticated({ closeCode: 4401, reason: 'unauthorized' })),
    );
    expect(seen.last()?.error?.message).toMatch(
      /reconnecting with a token from the token function/,
    );
    const second = await server.connection(1);
    expect(second.protocols).toContain('token.token2');
    expect(await second.take('send')).toEqual(frame); // same requestId and idempotencyKey
    const resumed = await second.take('subscribe');
    expect(resumed.resume).toEqual({ version: 1, hash: 'h1' });
    second.send({ v: 1, type: 'unchanged', id: resumed.id, version: 1, hash: 'h1' });
    second.send({ v: 1, type: 'accepted', requestId: frame.requestId, messageId: 'dep-1' });
    await expect(sent).resolves.toEqual({ messageId: 'dep-1' });
    await vi.waitFor(() => expect(seen.last()).toMatchObject({ status: 'success', data: 1 }));
  });

  it('does not send again as another user what went out as the one signed in before', async () => {
    // The page signs alice out and bob in while alice's transfer and ask are unanswered.
    let user = 'alice';
    client = testClient(server.url, { token: () => jwt({ sub: user }) });
    const first = await server.connection(0);
    const failed = [
      client.send(alice, 'transfer', { to: 'bob', amount: 50 }).catch((e: unknown) => e),
      client.ask(alice, 'balance', {}).catch((e: unknown) => e),
    ];
    expect((await first.take('send')).payload).toEqual({ to: 'bob', amount: 50 });
    await first.take('ask');
    user = 'bob';
    first.terminate();

    // Nothing of alice's goes out on bob's connection; bob's own sends do.
    const second = await server.connection(1);
    await vi.waitFor(() => expect(client.connectionState).toBe('open'));
    const bobs = client.send(alice, 'deposit', { amount: 1 });
    const resent = await second.take('send');
    expect(resent.payload).toEqual({ amount: 1 });
    second.send({ v: 1, type: 'accepted', requestId: resent.requestId, messageId: 'm' });
    await expect(bobs).resolves.toEqual({ messageId: 'm' });
    const [transfer, ask] = await Promise.all(failed);
    const error = { code: 'UNAUTHENTICATED', details: { madeAs: 'alice', subject: 'bob' } };
    expect(transfer).toMatchObject(error);
    expect(String(transfer)).toMatch(
      /send .* was made while the client was connected as user alice.*now connected as user bob.*signed in as user alice/,
    );
    expect(ask).toMatchObject(error);
  });

  it('does not send as the next user what was made while the client was reconnecting', async () => {
    let user = 'alice';
    let calls = 0;
    let signIn: () => void = () => {};
    const signedIn = new Promise<void>((resolve) => {
      signIn = resolve;
    });
    client = testClient(server.url, {
      token: async () => {
        if (++calls > 1) await signedIn;
        return jwt({ sub: user });
      },
    });
    const first = await server.connection(0);
    await vi.waitFor(() => expect(client.connectionState).toBe('open'));
    first.terminate();
    await vi.waitFor(() => expect(client.connectionState).toBe('reconnecting'));
    // Alice sends while the client is offline; then the page signs bob in.
    const transfer = client
      .send(alice, 'transfer', { to: 'mallory', amount: 50 })
      .catch((e: unknown) => e);
    user = 'bob';
    signIn();

    const second = await server.connection(1);
    await vi.waitFor(() => expect(client.connectionState).toBe('open'));
    expect(await transfer).toMatchObject({
      code: 'UNAUTHENTICATED',
      details: { madeAs: 'alice', subject: 'bob' },
    });
    const bobs = client.send(alice, 'deposit', { amount: 1 });
    const frame = await second.take('send');
    expect(frame.payload).toEqual({ amount: 1 });
    second.send({ v: 1, type: 'accepted', requestId: frame.requestId, messageId: 'm' });
    await expect(bobs).resolves.toEqual({ messageId: 'm' });
  });

  it('sends again what went out before a reconnect as the same user, with a fresh token', async () => {
    let calls = 0;
    client = testClient(server.url, { token: () => jwt({ sub: 'alice', n: ++calls }) });
    const first = await server.connection(0);
    const sent = client.send(alice, 'deposit', { amount: 5 });
    const frame = await first.take('send');
    first.terminate();

    const second = await server.connection(1);
    expect(await second.take('send')).toEqual(frame);
    second.send({ v: 1, type: 'accepted', requestId: frame.requestId, messageId: 'm' });
    await expect(sent).resolves.toEqual({ messageId: 'm' });
  });

  it('treats an UNAUTHENTICATED frame for no request (the API Gateway host) as the end of its auth', async () => {
    client = testClient(server.url, { token: 'alice' });
    const seen = recorder<number>();
    expireOnAws(await answered(0, seen));
    await vi.waitFor(() => expect(client.connectionState).toBe('closed'));
    expect(seen.last()).toMatchObject({
      status: 'error',
      data: 1,
      error: { code: 'UNAUTHENTICATED' },
    });
    expect(seen.last()?.error?.message).toMatch(/the connection's token expired/);
    await vi.waitFor(() => expect(server.connections[0]!.closed).toBe(true));
    expect(server.connections).toHaveLength(1);
  });
});
