/**
 * An idempotency key reused for another message while the first is still queued, on the AWS
 * WebSocket path (LocalWebSocketGateway → the WebSocket handler, the stream handler on DynamoDB
 * Local, ElasticMQ): both requests wait under one message id, the queue keeps only the first,
 * and only the first requester may be answered with its outcome. The worker is started by the
 * test, once both requests are pending.
 */
import { randomUUID } from 'node:crypto';
import { ErrorCode } from '@baton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestSocket } from '../../packages/server/src/ws/fixtures/TestSocket.ts';
import { Account } from './fixtures/openAccount.ts';
import { startWebSocketStack, until, type WebSocketStack } from './fixtures/webSocketStack.ts';

let stack: WebSocketStack;

beforeAll(async () => {
  stack = await startWebSocketStack(undefined, { worker: false });
});

afterAll(async () => {
  await stack?.stop();
  expect(stack.errors).toEqual([]);
});

describe('an idempotency key reused over the AWS WebSocket path', () => {
  it('answers the first ask with its reply and the second, another payload under the same key before the first is processed, with IDEMPOTENCY_KEY_REUSED', async () => {
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
      await socket.next('accepted', (f) => f.requestId === 'r2', 15_000);

      stack.startWorker(); // only now: both requests wait for the one message the queue kept
      const reply = await socket.next('reply', (f) => f.requestId === 'r1', 30_000);
      expect(reply.value).toBe(5);
      // Its answer, whatever it is: a reply (the first message's outcome) fails the check below.
      const answered = await until(
        () =>
          socket.frames.find(
            (f) => 'requestId' in f && f.requestId === 'r2' && f.type !== 'accepted',
          ),
        'the answer to r2',
      );
      expect(answered).toMatchObject({
        type: 'error',
        error: {
          code: ErrorCode.IDEMPOTENCY_KEY_REUSED,
          message: expect.stringMatching(/use a fresh key for a new message/),
        },
      });

      // Only the first message was applied.
      socket.send({ ...ask('r3', 0, 'read'), name: 'balance', payload: {} });
      expect((await socket.next('reply', (f) => f.requestId === 'r3', 30_000)).value).toBe(5);
    } finally {
      socket.close();
    }
  });
});
