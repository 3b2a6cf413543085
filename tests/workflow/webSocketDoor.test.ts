/**
 * A public workflow through the local WebSocket host and the browser's `BatonClient`: the user
 * the app's auth hook signed in starts their instance, watches it live with the
 * `workflowStatus` query, signals it on or cancels it; another user may neither start, signal,
 * cancel nor read it
 * (FORBIDDEN), and the run sees its starter as `ctx.caller`.
 */

import { BatonClient } from '@baton/client';
import { defineApp, silentLogger } from '@baton/core';
import { type EmbeddedRuntime, startEmbedded } from '@baton/embedded';
import { createLocalServer, type LocalServer } from '@baton/server/ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { Greeter } from './greeter.ts';

const app = defineApp({ workflows: [Greeter] });
let runtime: EmbeddedRuntime;
let server: LocalServer;
const clients: BatonClient[] = [];

beforeAll(async () => {
  runtime = startEmbedded({ actors: app.actors, logger: silentLogger });
  server = await createLocalServer({
    actors: app.actors,
    queries: app.queries,
    backend: runtime,
    // The token is the user's name: enough for a test of who may do what.
    auth: ({ token }) => {
      if (!token) throw new Error('no token');
      return { userId: token };
    },
    logger: silentLogger,
  });
});

afterAll(async () => {
  for (const client of clients) client.close();
  await server?.close();
  await runtime?.stop();
});

const connect = (user: string) => {
  const client = new BatonClient({ url: server.url, token: user, WebSocket: WebSocket as never });
  clients.push(client);
  return client;
};

/** The newest state of a live `workflowStatus` of `id` on `client`, once `done` holds. */
async function watch(client: BatonClient, id: string, done: (state: any) => boolean) {
  return new Promise<any>((resolve) => {
    const stop = client.subscribe('workflowStatus', { workflow: 'greeter', id }, (state) => {
      if (!done(state)) return;
      stop();
      resolve(state);
    });
  });
}

describe('a public workflow through the WebSocket host', () => {
  it('is started, watched and signalled by its user only, and the run sees that user', async () => {
    const alice = connect('alice');
    const bob = connect('bob');
    const ref = Greeter.ref('alice:1');

    await expect(bob.start(Greeter, 'alice:1', { greeting: 'hi' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    expect(await alice.start(Greeter, 'alice:1', { greeting: 'hi' })).toEqual(ref);
    await runtime.idle();
    const waiting = await watch(alice, 'alice:1', (s) => s.data?.status === 'waiting');
    expect(waiting.data).toMatchObject({ status: 'waiting' });

    const refused = await watch(bob, 'alice:1', (s) => s.status === 'error');
    expect(refused.error).toMatchObject({ code: 'FORBIDDEN' });
    await expect(bob.signal(ref, 'go', null)).rejects.toMatchObject({ code: 'FORBIDDEN' });

    const completed = watch(alice, 'alice:1', (s) => s.data?.status === 'completed');
    await alice.signal(ref, 'go', null);
    await runtime.idle();
    expect((await completed).data).toMatchObject({ status: 'completed', output: 'hi, alice' });

    // Its id is taken: a start with another input is refused, saying so; one with the same
    // input is accepted, as before; an ask of a signal after the end is told it was not taken.
    await expect(alice.start(Greeter, 'alice:1', { greeting: 'yo' })).rejects.toMatchObject({
      code: 'REJECTED',
      message: expect.stringContaining('started with another input: this start was not taken'),
    });
    expect(await alice.start(Greeter, 'alice:1', { greeting: 'hi' })).toEqual(ref);
    const late = alice.ask(ref, 'signal', { name: 'go', payload: null });
    await runtime.idle();
    await expect(late).rejects.toMatchObject({
      code: 'REJECTED',
      details: { id: 'alice:1', event: 'go', status: 'completed' },
    });
  });

  it('is cancelled by its user only, with the reason given', async () => {
    const alice = connect('alice');
    const bob = connect('bob');
    const ref = await alice.start(Greeter, 'alice:2', { greeting: 'hey' });
    await runtime.idle();
    await expect(bob.cancel(ref)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    const cancelled = watch(alice, 'alice:2', (s) => s.data?.status === 'cancelled');
    await alice.cancel(ref, { reason: 'changed my mind' });
    await runtime.idle();
    expect((await cancelled).data).toMatchObject({
      status: 'cancelled',
      error: { code: 'CANCELLED', message: expect.stringContaining('changed my mind') },
    });
  });

  it('is followed by subscribeWorkflow, with its output, and a workflow the app does not have is NOT_FOUND', async () => {
    const alice = connect('alice');
    const ref = await alice.start(Greeter, 'alice:3', { greeting: 'hello' });
    const seen: string[] = [];
    const completed = new Promise<string | undefined>((resolve) => {
      const stop = alice.subscribeWorkflow(ref, ({ data }) => {
        if (data) seen.push(data.status);
        if (data?.status !== 'completed') return;
        stop();
        resolve(data.output);
      });
    });
    await runtime.idle();
    await expect.poll(() => seen).toContain('waiting');
    await alice.signal(ref, 'go', null);
    await runtime.idle();
    expect(await completed).toBe('hello, alice');
  });
});
