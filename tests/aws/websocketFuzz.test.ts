/**
 * Random and malformed frames into the `$default` route: the handler never throws, answers
 * what it cannot read with an `error` frame to that connection only, and another connection's
 * subscription keeps working.
 */
import { BatonClient } from '@baton/client';
import { CLIENT_MESSAGE_TYPES, decodeClientMessage } from '@baton/protocol';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { Account } from './fixtures/openAccount.ts';
import {
  balance,
  rawConnection,
  startWebSocketStack,
  until,
  type WebSocketStack,
} from './fixtures/webSocketStack.ts';

let stack: WebSocketStack;
beforeAll(async () => {
  stack = await startWebSocketStack();
});
afterAll(async () => {
  await stack?.stop();
  expect(stack?.errors ?? []).toEqual([]);
});

/** Frames: near-valid messages with one field gone wrong, arbitrary JSON, and arbitrary text. */
const frames = fc.oneof(
  fc.string(),
  fc.json(),
  fc
    .record(
      {
        v: fc.oneof(fc.constant(1), fc.anything()),
        type: fc.constantFrom(...CLIENT_MESSAGE_TYPES, 'result', 'nope'),
        id: fc.oneof(fc.string({ maxLength: 8 }), fc.integer()),
        requestId: fc.oneof(fc.string({ maxLength: 8 }), fc.constant(undefined)),
        query: fc.constantFrom('balance', 'privateBalance', 'missing'),
        args: fc.oneof(fc.record({ account: fc.string({ maxLength: 6 }) }), fc.anything()),
        to: fc.constantFrom('account/fuzz-x', 'nobody/x', 'no-slash', ''),
        name: fc.constantFrom('deposit', 'balance', 'explode'),
        payload: fc.oneof(fc.record({ amount: fc.integer({ min: -2, max: 3 }) }), fc.anything()),
        idempotencyKey: fc.uuid(),
        t: fc.oneof(fc.integer(), fc.string()),
        version: fc.oneof(fc.nat(), fc.string()),
        chunkId: fc.string({ maxLength: 4 }),
        index: fc.nat(3),
        count: fc.integer({ min: 0, max: 3 }),
        data: fc.string({ maxLength: 10 }),
      },
      { requiredKeys: ['type'] },
    )
    .map((message) => JSON.stringify(message)),
  fc.constant('x'.repeat(128 * 1024 + 1)),
);

describe('the $default route under random frames', () => {
  it('never throws, answers unreadable frames with an error, and leaves other connections alone', async () => {
    const key = `fuzz-${Math.random().toString(36).slice(2, 8)}`;
    const watcher = new BatonClient({ url: stack.gateway.url, WebSocket: WebSocket as never });
    watcher.subscribe(balance, { account: key }, () => {});
    await until(() => watcher.getQueryState(balance, { account: key }).data === 0, 'the watcher');
    const { socket: fuzzer, received, event } = await rawConnection(stack);

    await fc.assert(
      fc.asyncProperty(frames, async (frame) => {
        const before = received.length;
        const response = await stack.handle(event(frame));
        expect(response.statusCode).toBe(200);
        let readable = true;
        try {
          const decoded = decodeClientMessage(frame);
          // A lone chunk of a several-part message is refused too (no chunking over API Gateway).
          readable = decoded.type !== 'chunk' || decoded.count === 1;
        } catch {
          readable = false;
        }
        if (!readable) {
          await until(() => received.length > before, `an error frame for ${frame.slice(0, 80)}`);
          expect(received.slice(before).some((m) => m.type === 'error')).toBe(true);
        }
      }),
      { numRuns: 60 },
    );

    const sender = new BatonClient({ url: stack.gateway.url, WebSocket: WebSocket as never });
    await sender.send(Account.ref(key), 'deposit', { amount: 4 });
    await until(
      () => watcher.getQueryState(balance, { account: key }).data === 4,
      'the new balance',
    );
    for (const client of [watcher, sender]) client.close();
    fuzzer.close();
    await until(
      async () => (await stack.registryItems()).every((i) => !i.pk.startsWith('C#')),
      'disconnects',
    );
  });
});
