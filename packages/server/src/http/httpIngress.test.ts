import { callerOf, jsonLogger, silentLogger } from '@baton/core';
import type { Store } from '@baton/core/adapter';
import { createEngine, Worker } from '@baton/core/engine';
import { createEmbeddedBackend } from '@baton/embedded';
import { afterEach, describe, expect, it } from 'vitest';
import { Counter } from '../ws/fixtures/startTestServer.ts';
import { bearerCaller, type HttpIngressRequest, httpIngress } from './httpIngress.ts';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/**
 * The ingress on an embedded backend, signing callers in from an `x-user` header. `reads` lists
 * each outcome lookup the store was asked for, with the send time it read from.
 */
function start() {
  const backend = createEmbeddedBackend();
  cleanups.push(() => backend.close());
  const actors = [Counter];
  const reads: Array<number | undefined> = [];
  const store: Store = backend.store;
  const readIdempotency = store.readIdempotency.bind(store);
  store.readIdempotency = (key: string, sentAt?: number) => {
    reads.push(sentAt);
    return readIdempotency(key, sentAt);
  };
  const ingress = httpIngress({
    actors,
    store,
    queue: backend.queue,
    caller: ({ headers }) => (headers?.['x-user'] ? callerOf(headers['x-user']) : callerOf('anna')),
  });
  const worker = new Worker(
    createEngine({ actors, store: backend.store, queue: backend.queue, logger: silentLogger }),
  );
  const call = async (request: HttpIngressRequest) => {
    const response = await ingress(request);
    return { status: response.statusCode, body: JSON.parse(response.body) };
  };
  return {
    call,
    reads,
    processAll: async () => {
      while ((await worker.poll()) > 0) {}
    },
  };
}

const sendBody = JSON.stringify({
  to: 'counter/a',
  name: 'increment',
  payload: { by: 2 },
  idempotencyKey: 'inc-2',
});

describe('the HTTP ingress', () => {
  it("reads an outcome from its key's claim on: never from an earlier sentAt, and not at all with no claim", async () => {
    const { call, processAll, reads } = start();
    const sent = await call({ method: 'POST', path: '/send', body: sendBody });
    await processAll();
    const outcome = (query: string) => call({ method: 'GET', path: '/outcome', query, body: '' });
    const known = 'to=counter/a&idempotencyKey=inc-2';
    // Without a sentAt, or with one before the send's, the lookup starts at the send (less an
    // hour, for a retry's copy sent from a clock behind the claim's).
    expect((await outcome(known)).body.outcome).toEqual({ ok: true, value: 2 });
    expect((await outcome(`${known}&sentAt=0`)).status).toBe(200);
    const hour = 60 * 60 * 1000;
    expect(reads).toEqual([sent.body.sentAt - hour, sent.body.sentAt - hour]);

    // A key nobody claimed has no outcome: no outcome page is read for it.
    reads.length = 0;
    const unknown = await outcome('to=counter/a&idempotencyKey=never-sent&sentAt=0');
    expect(unknown.status).toBe(404);
    expect(reads).toEqual([]);
  });

  it('reads an outcome by the actor and idempotency key it was sent with, for its caller only', async () => {
    const { call, processAll } = start();
    expect((await call({ method: 'POST', path: '/send', body: sendBody })).status).toBe(202);
    await processAll();
    const byKey = { method: 'GET', path: '/outcome', body: '' } as const;
    const query = 'to=counter/a&idempotencyKey=inc-2';
    expect(await call({ ...byKey, query })).toEqual({
      status: 200,
      body: { outcome: { ok: true, value: 2 } },
    });
    // Another caller's key names another message: nothing to read.
    expect((await call({ ...byKey, query, headers: { 'x-user': 'ben' } })).status).toBe(404);
    const missing = await call({ ...byKey, query: 'to=counter/a' });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toContain('idempotencyKey=<key>');
  });

  it('tells the size of an oversized body as it arrived, not as much of it as the host kept', async () => {
    const { call } = start();
    const refused = await call({
      method: 'POST',
      path: '/send',
      body: sendBody,
      bodyBytes: 3_000_000,
    });
    expect(refused.status).toBe(413);
    expect(refused.body.error.details).toEqual({ size: 3_000_000, limit: 256_000 });
  });

  it('names the keys a body has that a request does not, when one it needs is missing: a misspelt "name"', async () => {
    const { call } = start();
    const refused = await call({
      method: 'POST',
      path: '/ask',
      body: JSON.stringify({ to: 'counter/a', nam: 'increment', payload: { by: 1 } }),
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toBe(
      'invalid request: "name" must be a message name; the body has a key a request does not: "nam" (misspelt? a request has "to", "name", "payload" and "idempotencyKey")',
    );
    expect(refused.body.error.details.unknown).toEqual(['nam']);
    // Without one, the problem is said as before.
    const bare = await call({ method: 'POST', path: '/ask', body: '{"to":"counter/a"}' });
    expect(bare.body.error.message).toBe('invalid request: "name" must be a message name');
  });

  it('refuses a caller its hook refuses as UNAUTHENTICATED, saying how credentials go, and logs why', async () => {
    const backend = createEmbeddedBackend();
    cleanups.push(() => backend.close());
    const lines: string[] = [];
    const ingress = httpIngress({
      actors: [Counter],
      store: backend.store,
      queue: backend.queue,
      caller: () => {
        throw new Error('token expired at 12:00');
      },
      logger: jsonLogger({ write: (line) => lines.push(line) }),
    });
    const response = await ingress({ method: 'POST', path: '/send', body: sendBody });
    expect(response.statusCode).toBe(401);
    expect(JSON.parse(response.body).error).toEqual({
      code: 'UNAUTHENTICATED',
      message: 'unauthorized',
      details: {
        hint: "the credentials were missing or refused: send them as this ingress takes them (to an app's auth hook, an 'Authorization: Bearer <token>' header; to an IAM-authorized one, a SigV4-signed request); why they were refused is in its log",
      },
    });
    // The reason stays in the server's log.
    expect(response.body).not.toContain('expired');
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      { level: 'info', message: 'connection refused by auth', reason: 'token expired at 12:00' },
    ]);
  });
});

describe('the HTTP ingress on a failing store', () => {
  it('answers an unexpected failure without its text, which it logs', async () => {
    const backend = createEmbeddedBackend();
    cleanups.push(() => backend.close());
    const failing = new Proxy(backend.store, {
      get: (store, name) => {
        const value = Reflect.get(store, name);
        if (typeof value !== 'function') return value;
        return () => {
          throw new Error('connect ECONNREFUSED postgres://admin:pw@db');
        };
      },
    });
    const lines: string[] = [];
    const ingress = httpIngress({
      actors: [Counter],
      store: failing,
      queue: backend.queue,
      logger: jsonLogger({ write: (line) => lines.push(line) }),
    });
    const query = 'to=counter/a&idempotencyKey=k';
    const response = await ingress({ method: 'GET', path: '/outcome', query, body: '' });
    expect(response.statusCode).toBe(503);
    expect(response.body).not.toContain('postgres');
    expect(JSON.parse(response.body).error.message).toBe(
      "an unexpected error; its text is in the server's log",
    );
    expect(lines.join('\n')).toContain('postgres://admin:pw@db');
  });
});

describe('bearerCaller', () => {
  const request = (headers: Record<string, string>) => ({
    method: 'POST',
    path: '/send',
    headers,
    body: '',
  });
  const signIn = bearerCaller(({ token, validUntil }) => {
    if (token === undefined) throw new Error('no token');
    validUntil?.(token === 'stale' ? Date.now() - 1 : Date.now() + 60_000);
    return { userId: token };
  });

  it('signs the bearer token in with the app’s auth', async () => {
    await expect(signIn(request({ authorization: 'Bearer alice' }))).resolves.toEqual({
      kind: 'user',
      identity: { userId: 'alice' },
    });
    await expect(signIn(request({}))).rejects.toThrow('no token');
  });

  it('refuses a token whose identity the auth hook ended already, as the WebSocket hosts do', async () => {
    await expect(signIn(request({ authorization: 'Bearer stale' }))).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
    });
  });

  it('answers 503 UNAVAILABLE, and aborts the hook, when the auth hook runs past its time: the client tries again later', async () => {
    const backend = createEmbeddedBackend();
    cleanups.push(() => backend.close());
    let signal: AbortSignal | undefined;
    // A hook that never settles, as one whose key server hangs would.
    const hanging = bearerCaller(
      (attempt) => {
        signal = attempt.signal;
        return new Promise(() => {});
      },
      { timeoutMs: 30 },
    );
    const ingress = httpIngress({
      actors: [Counter],
      store: backend.store,
      queue: backend.queue,
      caller: hanging,
      logger: silentLogger,
    });
    const response = await ingress({
      method: 'POST',
      path: '/send',
      headers: { authorization: 'Bearer alice', 'content-type': 'application/json' },
      body: sendBody,
    });
    expect(response.statusCode).toBe(503);
    expect(JSON.parse(response.body).error).toMatchObject({
      code: 'UNAVAILABLE',
      message: 'the server could not check the token within 30 ms: try again later',
    });
    expect(signal?.aborted).toBe(true);
    // Nothing was sent.
    expect(backend.queue.counts().total).toBe(0);
  });
});
