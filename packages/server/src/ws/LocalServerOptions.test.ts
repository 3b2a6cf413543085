import { request } from 'node:http';
import { silentLogger } from '@baton/core';
import type { KeyClaim, Store } from '@baton/core/adapter';
import { startEmbedded } from '@baton/embedded';
import { describe, expect, it } from 'vitest';
import { Account } from '../fixtures/bank.ts';
import { createLocalServer } from './createLocalServer.ts';
import { actors, queries } from './fixtures/startTestServer.ts';
import { TestSocket } from './fixtures/TestSocket.ts';
import { resolveLocalServerOptions } from './LocalServerOptions.ts';

/** Subscribes, deposits with `visible`, and checks the order: the new result, then visible. */
async function readYourWrite(url: string) {
  const a = await TestSocket.open(url, { autoAck: true });
  a.send({ v: 1, type: 'subscribe', id: 's', query: 'totalBalance', args: { accounts: ['o'] } });
  await a.push('s');
  a.send({
    v: 1,
    type: 'send',
    requestId: 'r',
    to: 'account/o',
    name: 'deposit',
    payload: { amount: 2 },
    idempotencyKey: 'o-2',
    visible: true,
  });
  await a.next('visible');
  expect(a.values.get('s')).toMatchObject({ total: 2 });
  a.close();
}

describe('local server options', () => {
  it('serves an embedded app it is given, and leaves it running on close', async () => {
    const app = startEmbedded({ actors, logger: silentLogger });
    const server = await createLocalServer({ actors, queries, backend: app, logger: silentLogger });
    await readYourWrite(server.url);
    await server.close();
    await app.client.send(Account.ref('o'), 'deposit', { amount: 1 }, { idempotencyKey: 'after' });
    await app.idle();
    expect((await app.backend.store.load('account/o'))?.state).toMatchObject({ balance: 3 });
    await app.stop();
  });

  it('refuses to start without a backend, saying how to pass one', async () => {
    await expect(
      createLocalServer({ actors, queries, logger: silentLogger } as never),
    ).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('backend is required: pass startEmbedded({ actors })'),
    });
  });

  it('refuses an idempotency retention beside an app, whose client has its engine’s', async () => {
    const app = startEmbedded({ actors, logger: silentLogger });
    const options = { actors, queries, backend: app, logger: silentLogger };
    await expect(
      createLocalServer({ ...options, idempotencyRetentionMs: 40 * 86_400_000 }),
    ).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('idempotencyRetentionMs is for a backend given as ports'),
    });
    await app.stop();
  });

  it('runs on the bare ports of a backend, polling outcomes when the store cannot push them', async () => {
    const app = startEmbedded({ actors, logger: silentLogger });
    const { store, queue, feed } = app.backend;
    const pollingStore = {
      limits: store.limits,
      load: (id: string) => store.load(id),
      readIdempotency: (key: string) => store.readIdempotency(key),
      claimKey: (claim: KeyClaim) => store.claimKey(claim),
    } as unknown as Store;
    const server = await createLocalServer({
      actors,
      queries,
      backend: { store: pollingStore, queue, feed },
      logger: silentLogger,
    });
    await readYourWrite(server.url);
    await server.close();
    await app.stop();
  });

  it('bounds the connection attempts waiting for auth by default: 100 at once, for 10 s each', async () => {
    const app = startEmbedded({ actors, logger: silentLogger });
    const settings = resolveLocalServerOptions({ actors, queries, backend: app });
    expect(settings).toMatchObject({ maxPendingAuth: 100, authTimeoutMs: 10_000 });
    await app.stop();
  });

  it('collects every problem with the options into one INVALID_ARGUMENT error', async () => {
    const bad = createLocalServer({
      actors: 'Account' as never,
      queries,
      leaseMs: -1,
      maxFrameBytes: 10,
      maxAnonymousConnections: 0,
      maxPendingAuth: 1.5,
      authTimeoutMs: 2 ** 31,
      auth: 'yes' as never,
      backend: { store: {}, queue: {}, feed: {} } as never,
    });
    await expect(bad).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringMatching(
        /actors must be .*auth must be .*leaseMs must be .*maxFrameBytes must be .*maxAnonymousConnections must be an integer ≥ 1, got 0.*maxPendingAuth must be an integer ≥ 1, got 1.5.*authTimeoutMs must be at most 2147483647.*backend.store .*backend.queue .*backend.feed/,
      ),
    });
  });

  it('answers a plain HTTP request with 426 Upgrade Required', async () => {
    const app = startEmbedded({ actors, logger: silentLogger });
    const server = await createLocalServer({ actors, queries, backend: app, logger: silentLogger });
    const status = await new Promise<number | undefined>((resolve, reject) => {
      request(`http://127.0.0.1:${server.port}/`, (response) => {
        response.resume();
        resolve(response.statusCode);
      })
        .on('error', reject)
        .end();
    });
    expect(status).toBe(426);
    await server.close();
    await app.stop();
  });
});
