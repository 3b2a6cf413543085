import { silentLogger } from '@baton/core';
import type { Store } from '@baton/core/adapter';
import { startEmbedded } from '@baton/embedded';
import { afterEach, describe, expect, it } from 'vitest';
import { createLocalServer, type LocalServer } from './createLocalServer.ts';
import { actors, queries } from './fixtures/startTestServer.ts';
import { TestSocket } from './fixtures/TestSocket.ts';

let server: LocalServer | undefined;
let stopApp: (() => Promise<void>) | undefined;
afterEach(async () => {
  await server?.close();
  await stopApp?.();
});

/** A local server over an embedded app's store, that lists every store call it makes. */
async function start() {
  const app = startEmbedded({ actors, logger: silentLogger });
  stopApp = () => app.stop();
  const calls: string[] = [];
  const store = new Proxy(app.backend.store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(String(property));
        return value.apply(target, args);
      };
    },
  }) as Store;
  // Its own client over the counted store: the app's would read the store unseen.
  const backend = { store, queue: app.backend.queue, feed: app.backend.feed };
  server = await createLocalServer({ actors, queries, backend, logger: silentLogger });
  return { calls, url: server.url };
}

const request = (requestId: string, name: string, more: object = {}) => ({
  v: 1 as const,
  type: 'ask' as const,
  requestId,
  to: 'counter/c',
  name,
  payload: {},
  idempotencyKey: requestId,
  ...more,
});

describe('a request its caller may not make', () => {
  it('costs the store nothing: no outcome wait, no read', async () => {
    const { calls, url } = await start();
    const socket = await TestSocket.open(url);
    await socket.roundTrip();
    calls.length = 0;
    socket.send(request('ask', 'reset'));
    expect((await socket.next('error', (f) => f.requestId === 'ask')).error.code).toBe('FORBIDDEN');
    socket.send({ ...request('visible', 'reset'), type: 'send', visible: true });
    const visible = await socket.next('error', (f) => f.requestId === 'visible');
    expect(visible.error.code).toBe('FORBIDDEN');
    await socket.roundTrip();
    expect(calls).toEqual([]);
    // A request it may make reads its key's claim (a key sent before would have an outcome):
    // the count above would have seen it.
    socket.send(request('allowed', 'increment'));
    expect((await socket.next('reply', (f) => f.requestId === 'allowed')).value).toBe(1);
    expect(calls).toContain('readClaim');
    socket.close();
  });
});
