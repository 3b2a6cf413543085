import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import type { BatonClient } from './BatonClient.ts';
import type { Timers } from './BatonClientOptions.ts';
import type { ConnectionState } from './ConnectionState.ts';
import { FakeServer } from './fixtures/FakeServer.ts';
import { recorder, testClient } from './fixtures/testClient.ts';

let server: FakeServer;
let client: BatonClient;

beforeEach(async () => {
  server = await FakeServer.start();
});

afterEach(async () => {
  client?.close();
  await server.close();
});

/** Real timers that remember every delay asked for. */
function recordingTimers(): Timers & { delays: number[] } {
  const delays: number[] = [];
  return {
    delays,
    setTimeout: (callback, ms) => {
      delays.push(ms);
      return setTimeout(callback, ms);
    },
    clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  };
}

/**
 * An unsigned JWT issued now that lives `lifeS` seconds (the client reads only its `iat` and
 * `exp`): refreshed a quarter of its life ahead.
 */
function shortJwt(claims: Record<string, unknown> = {}, lifeS = 2): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const iat = Date.now() / 1000;
  return `${part({ alg: 'RS256' })}.${part({ sub: 'u', ...claims, iat, exp: iat + lifeS })}.sig`;
}

/** Subscribes to `count`, answered on the first connection (version 1, acked): that connection. */
async function answeredOnce(client: BatonClient) {
  client.subscribe('count', {}, recorder<number>().listener);
  const first = await server.connection(0);
  const { id } = await first.take('subscribe');
  first.send({ v: 1, type: 'result', id, version: 1, hash: 'h1', value: 1 });
  await first.take('ack');
  return first;
}

/** A JWT's exp, in epoch ms. */
function expiry(jwt: string): number {
  return JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()).exp * 1000;
}

describe('BatonClient reconnects', () => {
  it('backs off exponentially with jitter, up to the maximum, and resets once connected', async () => {
    server.accepting = false;
    const timers = recordingTimers();
    const states: ConnectionState[] = [];
    client = testClient(server.url, {
      timers,
      random: () => 1, // the top of each jitter range
      reconnect: { minMs: 10, maxMs: 80, stableMs: 100 },
    });
    client.subscribeConnectionState((state) => states.push(state));
    // Each wait is asked for once a refused attempt has closed on the client's side.
    await vi.waitFor(() => expect(timers.delays.length).toBeGreaterThanOrEqual(6));
    expect(client.connectionState).toBe('connecting');
    expect(timers.delays.slice(0, 6)).toEqual([10, 20, 40, 80, 80, 80]);

    server.accepting = true;
    await server.connection(0);
    await vi.waitFor(() => expect(client.connectionState).toBe('open'));
    await new Promise((resolve) => setTimeout(resolve, 150)); // past stableMs
    server.connections[0]!.terminate();
    await vi.waitFor(() => expect(server.connections).toHaveLength(2));
    // After a connection that stayed up stableMs the backoff starts again from minMs.
    expect(timers.delays.filter((ms) => ms <= 80).at(-1)).toBe(10);
    await vi.waitFor(() => expect(client.connectionState).toBe('open'));
    expect(states).toEqual(['open', 'reconnecting', 'open']);
  });

  it('backs off as for a failed attempt when the server refuses it right after the open (4429)', async () => {
    const timers = recordingTimers();
    const errors: string[] = [];
    client = testClient(server.url, {
      timers,
      random: () => 1,
      reconnect: { minMs: 10, maxMs: 80 },
      onError: (error) => errors.push(error.message),
    });
    for (let i = 0; i < 4; i++) (await server.connection(i)).close(4429, 'too many connections');
    await vi.waitFor(() => expect(timers.delays.filter((ms) => ms <= 80)).toHaveLength(4));
    expect(timers.delays.filter((ms) => ms <= 80)).toEqual([10, 20, 40, 80]);
    expect(errors[0]).toBe('the server closed the connection: too many connections');
  });

  it('reports a close for a policy violation (1008: it flooded), and backs off as for a failed attempt', async () => {
    const timers = recordingTimers();
    const errors: unknown[] = [];
    client = testClient(server.url, {
      timers,
      random: () => 1,
      reconnect: { minMs: 10, maxMs: 80 },
      onError: (error) => errors.push(error),
    });
    const reason =
      'sent more than 400 frames in one second (twice the cap of 200): closed; reconnect and send fewer';
    for (let i = 0; i < 4; i++) (await server.connection(i)).close(1008, reason);
    await vi.waitFor(() => expect(timers.delays.filter((ms) => ms <= 80)).toHaveLength(4));
    expect(timers.delays.filter((ms) => ms <= 80)).toEqual([10, 20, 40, 80]);
    expect(errors[0]).toMatchObject({
      code: 'UNAVAILABLE',
      message: `the server closed the connection: ${reason}`,
      details: { closeCode: 1008, reason },
    });
  });

  it('keeps backing off while each socket it opens is closed at once (a server in a crash loop)', async () => {
    const timers = recordingTimers();
    const states: ConnectionState[] = [];
    client = testClient(server.url, {
      timers,
      random: () => 1,
      reconnect: { minMs: 10, maxMs: 80 },
    });
    client.subscribeConnectionState((state) => states.push(state));
    for (let i = 0; i < 5; i++) (await server.connection(i)).close(1011, 'internal error');
    await vi.waitFor(() => expect(timers.delays.filter((ms) => ms <= 80)).toHaveLength(5));
    expect(timers.delays.filter((ms) => ms <= 80)).toEqual([10, 20, 40, 80, 80]);
    expect(states.slice(0, 2)).toEqual(['open', 'reconnecting']); // each socket did open
  });

  it('draws each wait between half and all of the ceiling', async () => {
    server.accepting = false;
    const timers = recordingTimers();
    client = testClient(server.url, { timers, random: () => 0 });
    await vi.waitFor(() => expect(timers.delays.length).toBeGreaterThanOrEqual(3));
    expect(timers.delays.slice(0, 3)).toEqual([5, 10, 20]);
  });

  it('resumes its subscriptions with the version and hash it holds after the server drops it', async () => {
    client = testClient(server.url, { reconnect: { minMs: 200 } });
    const seen = recorder<{ balance: number }>();
    client.subscribe('balance', { account: 'alice' }, seen.listener);
    const first = await server.connection(0);
    const subscribe = await first.take('subscribe');
    first.send({
      v: 1,
      type: 'result',
      id: subscribe.id,
      version: 4,
      hash: 'h4',
      value: { balance: 5 },
    });
    await first.take('ack');
    const held = seen.last()!;

    first.terminate();
    await vi.waitFor(() => expect(client.connectionState).toBe('reconnecting'));
    expect(client.getQueryState('balance', { account: 'alice' })).toBe(held); // data stays

    const second = await server.connection(1);
    const resumed = await second.take('subscribe');
    expect(resumed).toMatchObject({
      query: 'balance',
      args: { account: 'alice' },
      resume: { version: 4, hash: 'h4' },
    });
    second.send({ v: 1, type: 'unchanged', id: resumed.id, version: 6, hash: 'h4' });
    expect(await second.take('ack')).toMatchObject({ id: resumed.id, version: 6 });
    expect(seen.last()!.data).toBe(held.data);

    second.send({
      v: 1,
      type: 'patch',
      id: resumed.id,
      version: 7,
      hash: 'h7',
      baseVersion: 6,
      ops: [{ op: 'replace', path: '/balance', value: 12 }],
    });
    await vi.waitFor(() =>
      expect(seen.last()).toMatchObject({ data: { balance: 12 }, version: 7 }),
    );
  });

  it('ignores pushes for the subscription id of a dropped socket', async () => {
    client = testClient(server.url);
    const seen = recorder<number>();
    client.subscribe('count', {}, seen.listener);
    const first = await server.connection(0);
    const old = await first.take('subscribe');
    first.terminate();
    const second = await server.connection(1);
    const now = await second.take('subscribe');
    second.send({ v: 1, type: 'result', id: old.id, version: 9, hash: 'x', value: 9 });
    second.send({ v: 1, type: 'result', id: now.id, version: 1, hash: 'h', value: 1 });
    await second.take('ack');
    expect(seen.states.map((s) => s.data)).toEqual([1]);
  });

  it('counts the frames of each socket from its first: a received frame acks only its own', async () => {
    server.selects = 'baton.v1.received';
    client = testClient(server.url);
    const seen = recorder<number>();
    client.subscribe('count', {}, seen.listener);
    const first = await server.connection(0);
    const old = await first.take('subscribe');
    first.send({ v: 1, type: 'pong', t: 0 });
    first.send({ v: 1, type: 'result', id: old.id, version: 1, hash: 'h1', value: 1 });
    expect(await first.take('received')).toEqual({ v: 1, type: 'received', frames: 2 });
    first.terminate();
    const second = await server.connection(1);
    const now = await second.take('subscribe');
    second.send({ v: 1, type: 'result', id: now.id, version: 2, hash: 'h2', value: 2 });
    expect(await second.take('received')).toEqual({ v: 1, type: 'received', frames: 1 });
    expect(seen.last()?.data).toBe(2);
  });

  it('pings, and drops a connection that stops answering', async () => {
    client = testClient(server.url, { pingMs: 30, pongTimeoutMs: 200 });
    const first = await server.connection(0);
    const ping = await first.take('ping');
    first.send({ v: 1, type: 'pong', t: ping.t });
    await first.take('ping'); // not answered this time
    const second = await server.connection(1);
    expect(second.protocols).toContain('baton.v1');
    await vi.waitFor(() => expect(first.closed).toBe(true));
  });

  it('renews the connection ahead of its maximum age, resuming at once', async () => {
    client = testClient(server.url, { maxConnectionMs: 100, reconnect: { minMs: 5_000 } });
    const first = await answeredOnce(client);
    const second = await server.connection(1); // well before the 5 s backoff
    expect(await second.take('subscribe')).toMatchObject({ resume: { version: 1, hash: 'h1' } });
    await vi.waitFor(() => expect(first.closed).toBe(true));
  });

  it('renews the connection with a fresh JWT from its token function ahead of the old one’s exp', async () => {
    const tokens: string[] = [];
    let firstClosedAtFetch: boolean | undefined;
    const token = () => {
      if (tokens.length === 1) firstClosedAtFetch = server.connections[0]!.closed;
      tokens.push(shortJwt({ n: tokens.length }));
      return tokens.at(-1)!;
    };
    client = testClient(server.url, { token, reconnect: { minMs: 60_000 } });
    const first = await answeredOnce(client);
    const second = await server.connection(1); // no backoff, and before the first token's exp
    expect(Date.now()).toBeLessThan(expiry(tokens[0]!));
    expect(await second.take('subscribe')).toMatchObject({ resume: { version: 1, hash: 'h1' } });
    expect(first.protocols).toContain(`token.${tokens[0]}`);
    expect(second.protocols).toContain(`token.${tokens[1]}`);
    expect(firstClosedAtFetch).toBe(false); // the old socket served until the new token came
    await vi.waitFor(() => expect(first.closed).toBe(true));
  });

  it.each([
    ['hands out no fresher token', (first: string) => first, []],
    [
      'fails',
      () => {
        throw new Error('the identity provider is down');
      },
      [expect.stringContaining('the identity provider is down')],
    ],
  ])(
    'keeps its socket when, at the refresh, the token function %s',
    async (_what, refresh, told) => {
      const errors: string[] = [];
      let calls = 0;
      const first = shortJwt();
      const token = () => (++calls === 1 ? first : refresh(first));
      client = testClient(server.url, { token, onError: (error) => errors.push(error.message) });
      await server.connection(0);
      await vi.waitFor(() => expect(calls).toBe(2), { timeout: 3_000 });
      await new Promise((resolve) => setTimeout(resolve, 100)); // a renewal would have begun
      expect(server.connections).toHaveLength(1);
      expect(client.connectionState).toBe('open');
      expect(errors).toEqual(told);
    },
  );

  it('renews the connection at the refresh with a token of another user, even one that expires sooner', async () => {
    let calls = 0;
    const first = shortJwt({ sub: 'alice' });
    const bobs = shortJwt({ sub: 'bob' }, 1);
    client = testClient(server.url, { token: () => (++calls === 1 ? first : bobs) });
    await server.connection(0);
    const second = await server.connection(1);
    expect(expiry(bobs)).toBeLessThan(expiry(first));
    expect(second.protocols).toContain(`token.${bobs}`);
  });

  it('never refreshes a token given as a string, even a JWT about to expire', async () => {
    const timers = recordingTimers();
    client = testClient(server.url, {
      token: shortJwt(),
      timers,
      maxConnectionMs: 7_000_000,
      reconnect: { stableMs: 60_000 },
    });
    await server.connection(0);
    await vi.waitFor(() => expect(client.connectionState).toBe('open'));
    expect(timers.delays).toContain(7_000_000);
    expect(timers.delays.filter((ms) => ms < 10_000)).toEqual([]);
  });

  it('reconnects at once when asked to, instead of waiting for its backoff', async () => {
    client = testClient(server.url, { reconnect: { minMs: 60_000 } });
    const first = await server.connection(0);
    await vi.waitFor(() => expect(client.connectionState).toBe('open'));
    first.terminate();
    await vi.waitFor(() => expect(client.connectionState).toBe('reconnecting'));
    client.reconnect(); // what `online` and `visibilitychange` do in a browser
    await server.connection(1);
    await vi.waitFor(() => expect(client.connectionState).toBe('open'));
  });

  it('reconnects at once when the browser comes back online or the tab becomes visible', async () => {
    const win = new EventTarget();
    const doc = Object.assign(new EventTarget(), { visibilityState: 'hidden' });
    vi.stubGlobal('window', win);
    vi.stubGlobal('document', doc);
    try {
      client = testClient(server.url, { reconnect: { minMs: 60_000 } });
      const first = await server.connection(0);
      await vi.waitFor(() => expect(client.connectionState).toBe('open'));
      first.terminate();
      await vi.waitFor(() => expect(client.connectionState).toBe('reconnecting'));
      win.dispatchEvent(new Event('online'));
      const second = await server.connection(1);
      await vi.waitFor(() => expect(client.connectionState).toBe('open'));

      second.terminate();
      await vi.waitFor(() => expect(client.connectionState).toBe('reconnecting'));
      doc.dispatchEvent(new Event('visibilitychange')); // still hidden: keeps waiting
      doc.visibilityState = 'visible';
      doc.dispatchEvent(new Event('visibilitychange'));
      await server.connection(2);
      expect(server.connections).toHaveLength(3);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('reports a close by the server with its own code, and reconnects', async () => {
    const errors: unknown[] = [];
    client = testClient(server.url, { onError: (error) => errors.push(error) });
    const first = await server.connection(0);
    first.close(4408, 'lease expired');
    await server.connection(1);
    expect(errors).toEqual([
      expect.objectContaining({
        code: 'UNAVAILABLE',
        details: { closeCode: 4408, reason: 'lease expired' },
      }),
    ]);
  });

  it('refuses a URL it could never connect to, and a missing WebSocket', () => {
    expect(() => testClient('localhost:8787')).toThrow(/ws:\/\/ or wss:\/\//);
    vi.stubGlobal('WebSocket', undefined);
    try {
      expect(() => testClient(server.url, { WebSocket: undefined })).toThrow(/no WebSocket here/);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('stops for good on close', async () => {
    client = testClient(server.url);
    await server.connection(0);
    await vi.waitFor(() => expect(client.connectionState).toBe('open'));
    client.close();
    expect(client.connectionState).toBe('closed');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.connections).toHaveLength(1);
  });

  it('opens no socket when closed in the turn it was made (React StrictMode mounts effects twice)', async () => {
    let sockets = 0;
    class Counted extends WebSocket {
      constructor(...args: ConstructorParameters<typeof WebSocket>) {
        super(...args);
        sockets++;
      }
    }
    const once = testClient(server.url, { WebSocket: Counted as never });
    once.close();
    client = testClient(server.url, { WebSocket: Counted as never });
    await vi.waitFor(() => expect(client.connectionState).toBe('open'));
    expect(sockets).toBe(1);
    expect(server.connections).toHaveLength(1);
  });
});
