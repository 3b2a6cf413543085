import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { BatonClient } from './BatonClient.ts';
import { FakeServer } from './fixtures/FakeServer.ts';
import { testClient } from './fixtures/testClient.ts';

const alice = { type: 'account', key: 'alice', id: 'account/alice' } as const;

let server: FakeServer;
let client: BatonClient;

beforeEach(async () => {
  server = await FakeServer.start();
});

afterEach(async () => {
  client?.close();
  await server.close();
});

describe('BatonClient sends', () => {
  it('resolves a send once it is accepted', async () => {
    client = testClient(server.url);
    const sent = client.send(alice, 'deposit', { amount: 5 }, { idempotencyKey: 'dep-1' });
    const connection = await server.connection(0);
    const frame = await connection.take('send');
    expect(frame).toMatchObject({
      to: 'account/alice',
      name: 'deposit',
      payload: { amount: 5 },
      idempotencyKey: 'dep-1',
    });
    expect(frame.visible).toBeUndefined();
    connection.send({ v: 1, type: 'accepted', requestId: frame.requestId, messageId: 'dep-1' });
    await expect(sent).resolves.toEqual({ messageId: 'dep-1' });
  });

  it('with visible: true, resolves on visible rather than accepted', async () => {
    client = testClient(server.url);
    let done = false;
    const sent = client.send(alice, 'deposit', { amount: 5 }, { visible: true });
    void sent.then(() => {
      done = true;
    });
    const connection = await server.connection(0);
    const frame = await connection.take('send');
    expect(frame.visible).toBe(true);
    expect(frame.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    connection.send({ v: 1, type: 'accepted', requestId: frame.requestId, messageId: 'm1' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(done).toBe(false);
    connection.send({ v: 1, type: 'visible', requestId: frame.requestId, messageId: 'm1' });
    await expect(sent).resolves.toEqual({ messageId: 'm1' });
  });

  it('resolves an ask with its reply and rejects with the error code', async () => {
    client = testClient(server.url);
    const asked = client.ask(alice, 'balance', {});
    const refused = client.ask(alice, 'withdraw', { amount: 100 });
    const connection = await server.connection(0);
    const first = await connection.take('ask');
    const second = await connection.take('ask');
    connection.send({ v: 1, type: 'accepted', requestId: first.requestId, messageId: 'a1' });
    connection.send({ v: 1, type: 'reply', requestId: first.requestId, value: 30 });
    connection.send({
      v: 1,
      type: 'error',
      requestId: second.requestId,
      error: { code: 'REJECTED', message: 'insufficient funds', details: { balance: 30 } },
    });
    await expect(asked).resolves.toBe(30);
    await expect(refused).rejects.toMatchObject({
      name: 'BatonError',
      code: 'REJECTED',
      message: 'insufficient funds',
      details: { balance: 30 },
    });
  });

  it('re-sends what is in flight after a reconnect with the same requestId and idempotencyKey', async () => {
    client = testClient(server.url);
    const first = await server.connection(0);
    await vi.waitFor(() => expect(client.connectionState).toBe('open'));
    const sent = client.send(alice, 'deposit', { amount: 5 }, { visible: true });
    const asked = client.ask(alice, 'balance', {});
    const send1 = await first.take('send');
    const ask1 = await first.take('ask');
    first.send({ v: 1, type: 'accepted', requestId: send1.requestId, messageId: 'm1' });
    first.terminate(); // before `visible` and before the reply

    const second = await server.connection(1);
    const send2 = await second.take('send');
    const ask2 = await second.take('ask');
    expect(send2).toEqual(send1);
    expect(ask2).toEqual(ask1);
    second.send({ v: 1, type: 'visible', requestId: send2.requestId, messageId: 'm1' });
    second.send({ v: 1, type: 'reply', requestId: ask2.requestId, value: 5 });
    await expect(sent).resolves.toEqual({ messageId: 'm1' });
    await expect(asked).resolves.toBe(5);
  });

  it('holds a send made while disconnected until the connection opens', async () => {
    server.accepting = false;
    client = testClient(server.url);
    const sent = client.send(alice, 'deposit', { amount: 1 });
    await vi.waitFor(() => expect(server.refused).toBeGreaterThan(0));
    server.accepting = true;
    const connection = await server.connection(0);
    const frame = await connection.take('send');
    connection.send({ v: 1, type: 'accepted', requestId: frame.requestId, messageId: 'm' });
    await expect(sent).resolves.toEqual({ messageId: 'm' });
  });

  it('times out an ask without a reply, naming the key to ask again under', async () => {
    client = testClient(server.url);
    const connection = await server.connection(0);
    const asked = client.ask(alice, 'balance', {}, { timeoutMs: 30, idempotencyKey: 'b1' });
    await connection.take('ask');
    await expect(asked).rejects.toMatchObject({
      code: 'ASK_TIMEOUT',
      message:
        'no reply to ask "balance" to account/alice within 30 ms; it may still be processed: ask again with { idempotencyKey: "b1" } to get its outcome',
      details: { messageId: 'b1', sent: true },
    });
  });

  it('says a request that never went out was not applied, and drops it, when it times out', async () => {
    server.accepting = false;
    client = testClient(server.url);
    const asked = client.ask(alice, 'balance', {}, { timeoutMs: 30 });
    const sent = client.send(alice, 'deposit', { amount: 1 }, { timeoutMs: 30 });
    for (const [request, what] of [
      [asked, 'ask "balance"'],
      [sent, 'send "deposit"'],
    ] as const) {
      await expect(request).rejects.toMatchObject({
        code: 'UNAVAILABLE',
        message: expect.stringMatching(
          new RegExp(
            `^${what} to account/alice was not sent within 30 ms: the client had no connection to the server \\(it is (connecting|reconnecting)\\), so it was not applied, and it goes out no more`,
          ),
        ),
        details: { sent: false },
      });
    }
    // Connected later, neither goes out.
    server.accepting = true;
    const connection = await server.connection(0);
    const later = client.send(alice, 'deposit', { amount: 2 }, { idempotencyKey: 'dep-2' });
    const frame = await connection.take('send');
    expect(frame).toMatchObject({ name: 'deposit', payload: { amount: 2 } });
    connection.send({ v: 1, type: 'accepted', requestId: frame.requestId, messageId: 'dep-2' });
    await expect(later).resolves.toEqual({ messageId: 'dep-2' });
  });

  it('times out a send given timeoutMs that went out unanswered: it may have been accepted', async () => {
    client = testClient(server.url);
    const connection = await server.connection(0);
    const sent = client.send(
      alice,
      'deposit',
      { amount: 1 },
      { idempotencyKey: 'd3', timeoutMs: 30 },
    );
    await connection.take('send');
    await expect(sent).rejects.toMatchObject({
      code: 'TIMED_OUT',
      message:
        'no answer to send "deposit" to account/alice within 30 ms; it may have been accepted: send again with { idempotencyKey: "d3" }, which makes the two one message',
    });
  });

  it('rejects what is in flight on close, and later sends at once', async () => {
    client = testClient(server.url);
    const sent = client.send(alice, 'deposit', { amount: 1 }, { idempotencyKey: 'dep-9' });
    client.close();
    // It may have reached the server: the error says how to retry it safely.
    await expect(sent).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringMatching(
        /before send dep-9 was answered; it may or may not have been applied: send it again with the same idempotencyKey/,
      ),
      details: { idempotencyKey: 'dep-9' },
    });
    await expect(client.send(alice, 'deposit', { amount: 1 })).rejects.toMatchObject({
      code: 'UNAVAILABLE',
    });
  });

  it('splits a send past 128 KiB into chunks', async () => {
    client = testClient(server.url);
    const connection = await server.connection(0);
    await vi.waitFor(() => expect(client.connectionState).toBe('open'));
    void client.send(alice, 'note', { text: 'x'.repeat(300_000) }).catch(() => {});
    const chunk = await connection.take('chunk');
    expect(chunk.count).toBe(3);
  });
});
