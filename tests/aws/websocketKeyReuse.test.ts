/**
 * An idempotency key reused for another message while the first is still queued, on the AWS
 * WebSocket path (LocalWebSocketGateway → the WebSocket handler, the stream handler on DynamoDB
 * Local, ElasticMQ): the first message claimed the key, so the second request is refused when
 * it is sent, and only the first requester is answered with its outcome. The worker is started
 * by the test, once the second request was answered.
 */
import { randomUUID } from 'node:crypto';
import { ErrorCode } from '@baton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestSocket } from '../../packages/server/src/ws/fixtures/TestSocket.ts';
import { Account } from './fixtures/openAccount.ts';
import { startWebSocketStack, type WebSocketStack } from './fixtures/webSocketStack.ts';

let stack: WebSocketStack;

beforeAll(async () => {
  stack = await startWebSocketStack(undefined, { worker: false });
});

afterAll(async () => {
  await stack?.stop();
  expect(stack.errors).toEqual([]);
});

describe('an idempotency key reused over the AWS WebSocket path', () => {
  it('refuses a send and an ask of another payload under the key before the first is processed with IDEMPOTENCY_KEY_REUSED, and answers the first ask with its reply', async () => {
    const to = Account.ref(`reuse-${randomUUID().slice(0, 8)}`).id;
    const ask = (requestId: string, amount: number, idempotencyKey = 'same-key') =>
      ({
        v: 1,
        type: 'ask',
        requestId,
        to,
        name: 'deposit',
        payload: { amount },
        idempotencyKey,
      }) as const;
    const socket = await TestSocket.open(stack.gateway.url);
    try {
      socket.send(ask('r1', 5));
      await socket.next('accepted', (f) => f.requestId === 'r1', 15_000);
      socket.send(ask('r2', 7));
      socket.send({ ...ask('r4', 9), type: 'send' });
      for (const requestId of ['r2', 'r4']) {
        const refused = await socket.next('error', (f) => f.requestId === requestId, 15_000);
        expect(refused.error).toMatchObject({
          code: ErrorCode.IDEMPOTENCY_KEY_REUSED,
          message: expect.stringMatching(/use a fresh key for a new message/),
        });
      }
      expect(socket.frames.filter((f) => f.type === 'accepted')).toHaveLength(1);

      stack.startWorker(); // only now: the first message waited in the queue meanwhile
      const reply = await socket.next('reply', (f) => f.requestId === 'r1', 30_000);
      expect(reply.value).toBe(5);

      // Only the first message was applied.
      socket.send({ ...ask('r3', 0, 'read'), name: 'balance', payload: {} });
      expect((await socket.next('reply', (f) => f.requestId === 'r3', 30_000)).value).toBe(5);
    } finally {
      socket.close();
    }
  });
});
