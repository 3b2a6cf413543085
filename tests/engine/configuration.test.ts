/**
 * Configuration the engine refuses at start: an inbox queue that dead-letters a message itself
 * at or before the engine's `maxAttempts` would take a failing message — and the messages behind
 * it in its group — before the engine ends it in the actor's turn and keeps it to redrive.
 */
import { ErrorCode, silentLogger } from '@baton/core';
import { Client } from '@baton/core/client';
import { Worker } from '@baton/core/engine';
import { createEmbeddedBackend } from '@baton/embedded';
import { describe, expect, it } from 'vitest';
import { bank } from './bank.ts';

function worker(maxReceives: number, maxAttempts: number) {
  const { Account, Audit } = bank();
  const backend = createEmbeddedBackend({ queue: { maxReceives } });
  const options = {
    actors: [Account, Audit],
    store: backend.store,
    queue: backend.queue,
    logger: silentLogger,
    maxAttempts,
  };
  return { Account, backend, worker: new Worker(options), client: new Client(options) };
}

describe('a worker on an embedded inbox', () => {
  it.each([
    [3, 3],
    [2, 3],
    [1, 1],
  ])(
    'refuses maxReceives %i with maxAttempts %i before it receives anything',
    async (maxReceives, maxAttempts) => {
      const { Account, backend, worker: w, client } = worker(maxReceives, maxAttempts);
      await client.send(Account.ref('a'), 'deposit', { amount: 1 });

      const refused = w.poll();
      await expect(refused).rejects.toMatchObject({
        code: ErrorCode.INVALID_ARGUMENT,
        message: expect.stringMatching(/maxReceives.*maxAttempts/s),
        details: { maxReceives, maxAttempts },
      });
      await expect(w.check()).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENT });
      // Nothing was received: the message is not one receive nearer the dead-letter queue.
      expect(backend.queue.messages()).toMatchObject([{ receiveCount: 0 }]);
    },
  );

  it('runs with maxReceives above maxAttempts', async () => {
    const { Account, backend, worker: w, client } = worker(4, 3);
    await client.send(Account.ref('a'), 'deposit', { amount: 1 });
    await w.check();
    expect(await w.poll()).toBe(1);
    expect((await backend.store.load('account/a'))?.state).toMatchObject({ balance: 1 });
  });
});
