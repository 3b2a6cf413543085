/**
 * The HTTP ingress's workflow routes over loopback HTTP, on the embedded backend: a caller
 * without the TypeScript client starts an instance (`POST /workflows/<name>/start`) and reads
 * its status and output (`GET /workflows/<name>/<id>`), under the workflow's `authorize`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { callerOf, defineApp, silentLogger, workflow } from '@baton/core';
import { type EmbeddedRuntime, startEmbedded } from '@baton/embedded';
import { httpIngress } from '@baton/server/http';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { Greeter } from './greeter.ts';

/** An internal workflow: only trusted code may start or read it. */
const Audit = workflow({
  name: 'audit',
  input: z.object({}),
  run: async () => 'audited',
});

let runtime: EmbeddedRuntime | undefined;
let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  await runtime?.stop();
  server = undefined;
  runtime = undefined;
});

/** The app's ingress on a loopback port, signing the caller in from an `x-user` header. */
async function serve(): Promise<{
  app: EmbeddedRuntime;
  call: (user: string, method: string, path: string, body?: unknown) => Promise<Answer>;
}> {
  const { actors } = defineApp({ workflows: [Greeter, Audit] });
  const app = startEmbedded({ actors, logger: silentLogger });
  runtime = app;
  const ingress = httpIngress({
    actors,
    store: app.backend.store,
    queue: app.backend.queue,
    logger: silentLogger,
    caller: ({ headers }) =>
      callerOf(headers?.['x-user'] ? { userId: headers['x-user'] } : undefined),
  });
  server = createServer(async (request, response) => {
    let body = '';
    for await (const chunk of request) body += chunk;
    const url = new URL(request.url ?? '/', 'http://localhost');
    const answer = await ingress({
      method: request.method ?? 'GET',
      path: url.pathname,
      query: url.search.slice(1),
      // The host passes the headers the ingress reads: the caller's, and the body's type.
      headers: {
        'x-user': request.headers['x-user'] as string | undefined,
        'content-type': request.headers['content-type'],
      },
      body,
    });
    response.writeHead(answer.statusCode, answer.headers).end(answer.body);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const call = async (user: string, method: string, path: string, body?: unknown) => {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, {
      method,
      headers: { 'x-user': user, 'content-type': 'application/json' },
      ...(body === undefined
        ? {}
        : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    return { status: response.status, body: await response.json() };
  };
  return { app, call };
}

interface Answer {
  readonly status: number;
  readonly body: Record<string, any>;
}

describe('the workflow routes of the HTTP ingress', () => {
  it('start an instance and read its status, then its output once it completes', async () => {
    const { app, call } = await serve();
    const start = { id: 'alice:1', input: { greeting: 'hi' } };
    const started = await call('alice', 'POST', '/workflows/greeter/start', start);
    expect(started).toEqual({
      status: 202,
      body: { id: 'alice:1', messageId: expect.any(String), sentAt: expect.any(Number) },
    });
    await app.idle();
    expect(await call('alice', 'GET', '/workflows/greeter/alice:1')).toMatchObject({
      status: 200,
      body: { id: 'alice:1', status: 'waiting' },
    });

    // Signalled through POST /send, as before: it completes.
    const signal = {
      to: Greeter.ref('alice:1').id,
      name: 'signal',
      payload: { name: 'go', payload: null },
      idempotencyKey: 'go-1',
    };
    expect((await call('alice', 'POST', '/send', signal)).status).toBe(202);
    await app.idle();
    expect(await call('alice', 'GET', '/workflows/greeter/alice:1')).toMatchObject({
      status: 200,
      body: { id: 'alice:1', status: 'completed', output: 'hi, alice' },
    });
  });

  it('wait, with ?waitMs, for the instance to end: the read answers once it completes', async () => {
    const { call } = await serve();
    await call('alice', 'POST', '/workflows/greeter/start', {
      id: 'alice:1',
      input: { greeting: 'hi' },
    });
    // Read before the start is applied: a waiting read takes `new` as not yet settled.
    const waiting = call('alice', 'GET', '/workflows/greeter/alice:1?waitMs=10000');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const signal = {
      to: Greeter.ref('alice:1').id,
      name: 'signal',
      payload: { name: 'go', payload: null },
      idempotencyKey: 'go-1',
    };
    expect((await call('alice', 'POST', '/send', signal)).status).toBe(202);
    expect(await waiting).toMatchObject({
      status: 200,
      body: { id: 'alice:1', status: 'completed', output: 'hi, alice' },
    });
  });

  it('answer a waiting read when its waitMs passes, with the status it has then', async () => {
    const { call } = await serve();
    await call('alice', 'POST', '/workflows/greeter/start', {
      id: 'alice:1',
      input: { greeting: 'hi' },
    });
    const started = Date.now();
    const read = await call('alice', 'GET', '/workflows/greeter/alice:1?waitMs=300');
    expect(read).toMatchObject({ status: 200, body: { id: 'alice:1', status: 'waiting' } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    // Never started: the wait passes, then 404 as without it.
    expect((await call('alice', 'GET', '/workflows/greeter/alice:9?waitMs=50')).status).toBe(404);
  });

  it('answer a waiting read of an id never started with 404 after a short grace, not at the end of its wait', async () => {
    const { call } = await serve();
    const started = Date.now();
    const read = await call('alice', 'GET', '/workflows/greeter/alice:never?waitMs=25000');
    expect(read).toMatchObject({
      status: 404,
      body: {
        error: {
          code: 'NOT_FOUND',
          message: expect.stringContaining('a start sent moments ago may not be applied yet'),
        },
      },
    });
    // The grace is 3 s: well short of the 25 s that held an ingress function for nothing.
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('answer 400 for a waitMs that is not a whole number of ms up to askTimeoutMs', async () => {
    const { call } = await serve();
    for (const waitMs of ['soon', '-1', '1.5', '25001']) {
      const read = await call('alice', 'GET', `/workflows/greeter/alice:1?waitMs=${waitMs}`);
      expect(read.status).toBe(400);
      expect(read.body.error).toMatchObject({
        code: 'INVALID_ARGUMENT',
        message: `waitMs must be a whole number of milliseconds from 0 to 25000 (the ingress's askTimeoutMs), not "${waitMs}": to wait longer, read again`,
      });
    }
  });

  it('take an instance id %-escaped in the path', async () => {
    const { app, call } = await serve();
    const id = 'alice:a/b c';
    const started = await call('alice', 'POST', '/workflows/greeter/start', {
      id,
      input: { greeting: 'yo' },
    });
    expect(started.status).toBe(202);
    await app.idle();
    const read = await call('alice', 'GET', `/workflows/greeter/${encodeURIComponent(id)}`);
    expect(read).toMatchObject({ status: 200, body: { id, status: 'waiting' } });
  });

  it("let the workflow's authorize decide who starts and reads an instance: 403 to the others", async () => {
    const { app, call } = await serve();
    await call('alice', 'POST', '/workflows/greeter/start', {
      id: 'alice:1',
      input: { greeting: 'hi' },
    });
    await app.idle();

    const read = await call('bob', 'GET', '/workflows/greeter/alice:1');
    expect(read.status).toBe(403);
    expect(read.body.error).toMatchObject({
      code: 'FORBIDDEN',
      message:
        'not allowed: this caller may not read workflow "greeter" instance alice:1; a client starts, signals and reads only a workflow declared with public: true, whose authorize lets it',
    });

    const start = await call('bob', 'POST', '/workflows/greeter/start', {
      id: 'alice:2',
      input: { greeting: 'hi' },
    });
    expect(start.status).toBe(403);
    expect(start.body.error.code).toBe('FORBIDDEN');
    await app.idle();
    expect((await call('alice', 'GET', '/workflows/greeter/alice:2')).status).toBe(404);

    // Owners are read exactly: user alice-x's instance is not alice's, though its id begins
    // with "alice-".
    const theirs = await call('alice-x', 'POST', '/workflows/greeter/start', {
      id: 'alice-x:1',
      input: { greeting: 'hi' },
    });
    expect(theirs.status).toBe(202);
    await app.idle();
    expect((await call('alice', 'GET', '/workflows/greeter/alice-x:1')).status).toBe(403);
    expect((await call('alice-x', 'GET', '/workflows/greeter/alice-x:1')).status).toBe(200);
    const squat = await call('alice', 'POST', '/workflows/greeter/start', {
      id: 'alice-x:2',
      input: { greeting: 'hi' },
    });
    expect(squat.status).toBe(403);
  });

  it('answer 404 for an instance never started, saying how to start it, and for a workflow clients may not reach', async () => {
    const { call } = await serve();
    const never = await call('alice', 'GET', '/workflows/greeter/alice:9');
    expect(never.status).toBe(404);
    expect(never.body.error).toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringContaining('start it with POST /workflows/greeter/start'),
    });

    // An internal workflow reads as an unknown one: its name is not a client's to learn.
    for (const name of ['nope', 'audit']) {
      const unknown = await call('alice', 'GET', `/workflows/${name}/x`);
      expect(unknown.status).toBe(404);
      expect(unknown.body.error.message).toBe(
        `no workflow "${name}" takes requests from clients (workflows that do: greeter)`,
      );
      const start = await call('alice', 'POST', `/workflows/${name}/start`, { id: 'x', input: {} });
      expect(start.status).toBe(404);
    }
  });

  it('answer 400 for a start body it cannot take, saying what it takes, and start nothing', async () => {
    const { app, call } = await serve();
    const path = '/workflows/greeter/start';
    const malformed = await call('alice', 'POST', path, '{"id": ');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.message).toBe(
      'the body is not valid JSON: send {"id": "order-17", "input": {...}}',
    );

    const misspelt = await call('alice', 'POST', path, {
      ID: 'alice:1',
      input: { greeting: 'hi' },
    });
    expect(misspelt.status).toBe(400);
    expect(misspelt.body.error.message).toBe(
      'invalid start: "id" must be the instance id, a non-empty string; the body has a key a request does not: "ID" (misspelt? a request has "id", "input" and "idempotencyKey")',
    );

    const wrongInput = await call('alice', 'POST', path, { id: 'alice:1', input: { greeting: 5 } });
    expect(wrongInput.status).toBe(400);
    expect(wrongInput.body.error.code).toBe('INVALID_PAYLOAD');

    await app.idle();
    expect(app.backend.queue.counts().total).toBe(0);
    expect((await call('alice', 'GET', '/workflows/greeter/alice:1')).status).toBe(404);
  });
});
