import { ErrorCode, silentLogger } from '@baton/core';
import { createEngine, Worker } from '@baton/core/engine';
import { createEmbeddedBackend } from '@baton/embedded';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLocalServer, type LocalServer } from './createLocalServer.ts';
import { actors, Counter, queries } from './fixtures/startTestServer.ts';
import { TestSocket } from './fixtures/TestSocket.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A server on an embedded backend with no worker running: the test processes the queue. */
async function start() {
  const backend = createEmbeddedBackend();
  cleanups.push(() => backend.close());
  const server: LocalServer = await createLocalServer({
    actors,
    queries,
    backend: { store: backend.store, queue: backend.queue, feed: backend.feed },
    logger: silentLogger,
  });
  cleanups.push(() => server.close());
  const worker = new Worker(
    createEngine({ actors, store: backend.store, queue: backend.queue, logger: silentLogger }),
  );
  const socket = await TestSocket.open(server.url);
  cleanups.push(() => socket.close());
  return { socket, worker, backend };
}

const increment = (requestId: string, by: number, type: 'ask' | 'send' = 'ask') =>
  ({
    v: 1,
    type,
    requestId,
    to: Counter.ref('reuse').id,
    name: 'increment',
    payload: { by },
    idempotencyKey: 'same-key',
    ...(type === 'send' ? { visible: true } : {}),
  }) as never;

describe('an idempotency key reused while its first message waits in the queue', () => {
  it('refuses another message under the key at once with IDEMPOTENCY_KEY_REUSED, for an ask, a visible send and a send alike, and answers the first ask with its reply', async () => {
    const { socket, worker, backend } = await start();
    socket.send(increment('r1', 5));
    await socket.next('accepted', (f) => f.requestId === 'r1');
    const plain = { ...(increment('r4', 11, 'send') as object), visible: false } as never;
    for (const frame of [increment('r2', 7), increment('r3', 9, 'send'), plain]) {
      socket.send(frame);
    }
    const refusals = await vi.waitFor(() => {
      const found = socket.frames.filter((f) => f.type === 'error');
      expect(found).toHaveLength(3);
      return found;
    });
    for (const requestId of ['r2', 'r3', 'r4']) {
      expect(refusals.find((f) => f.requestId === requestId)).toMatchObject({
        error: {
          code: ErrorCode.IDEMPOTENCY_KEY_REUSED,
          message: expect.stringMatching(/use a fresh key for a new message/),
        },
      });
    }
    // Refused before anything was enqueued: none of them was ever accepted.
    expect(socket.frames.filter((f) => f.type === 'accepted')).toHaveLength(1);
    expect(backend.queue.counts().total).toBe(1);

    while ((await worker.poll()) > 0) {}
    const reply = await socket.next('reply', (f) => f.requestId === 'r1');
    expect(reply.value).toBe(5);
  });
});
