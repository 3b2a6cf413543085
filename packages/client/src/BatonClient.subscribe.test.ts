import { type ErrorCode, query } from '@baton/core';
import { encodeMessage, splitFrame } from '@baton/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import type { BatonClient } from './BatonClient.ts';
import { FakeServer } from './fixtures/FakeServer.ts';
import { recorder, testClient } from './fixtures/testClient.ts';

const history = query({
  name: 'history',
  public: true,
  args: z.object({ account: z.string(), limit: z.number().default(10) }),
  handler: async () => ({ balance: 0, entries: [] as { amount: number }[] }),
});

let server: FakeServer;
let client: BatonClient;

beforeEach(async () => {
  server = await FakeServer.start();
});

afterEach(async () => {
  client?.close();
  await server.close();
});

/** A `result` push of `{ balance }`, at version `balance`. */
const balanceResult = (id: string, balance: number) =>
  ({
    v: 1,
    type: 'result',
    id,
    version: balance,
    hash: `h${balance}`,
    value: { balance },
  }) as const;

/** `client` subscribed to alice's and bob's balances, and the server's side of both. */
async function aliceAndBob() {
  const alice = recorder<{ balance: number }>();
  const bob = recorder<{ balance: number }>();
  client.subscribe('balance', { account: 'alice' }, alice.listener);
  client.subscribe('balance', { account: 'bob' }, bob.listener);
  const connection = await server.connection(0);
  const [a, b] = [await connection.take('subscribe'), await connection.take('subscribe')];
  return { alice, bob, connection, a, b };
}

describe('BatonClient subscriptions', () => {
  it('sends no ack to a server that selected baton.v1.unacked', async () => {
    server.selects = 'baton.v1.unacked';
    client = testClient(server.url);
    const seen = recorder<{ balance: number }>();
    client.subscribe('balance', { account: 'alice' }, seen.listener);
    const connection = await server.connection(0);
    const { id } = await connection.take('subscribe');
    for (const balance of [1, 2]) connection.send(balanceResult(id, balance));
    await vi.waitFor(() => expect(seen.last()?.data).toEqual({ balance: 2 }));
    await new Promise((resolve) => setTimeout(resolve, 20)); // past when an ack would have left
    client.subscribe('balance', { account: 'bob' }, () => {});
    await connection.take('subscribe');
    expect(connection.received.map((m) => m.type)).toEqual(['subscribe', 'subscribe']);
  });

  it('acks the pushes of one read in one acks frame', async () => {
    client = testClient(server.url);
    const { alice, bob, connection, a, b } = await aliceAndBob();
    connection.sendTogether([balanceResult(a.id, 1), balanceResult(b.id, 2)]);
    expect(await connection.take('acks')).toEqual({
      v: 1,
      type: 'acks',
      versions: { [a.id]: 1, [b.id]: 2 },
    });
    connection.send(balanceResult(a.id, 3)); // alone: a plain ack
    expect(await connection.take('ack')).toEqual({ v: 1, type: 'ack', id: a.id, version: 3 });
    expect(connection.received.filter((m) => m.type === 'ack' || m.type === 'acks')).toHaveLength(
      2,
    );
    expect([alice.last()?.data, bob.last()?.data]).toEqual([{ balance: 3 }, { balance: 2 }]);
  });

  it('acks by count on baton.v1.received: one received frame per read, chunks counted one each', async () => {
    server.selects = 'baton.v1.received';
    client = testClient(server.url);
    const { alice, bob, connection, a, b } = await aliceAndBob();
    connection.sendTogether([balanceResult(a.id, 1), balanceResult(b.id, 2)]);
    expect(await connection.take('received')).toEqual({ v: 1, type: 'received', frames: 2 });
    // A pong is read and counted, but acks nothing: no frame goes out for it alone.
    connection.send({ v: 1, type: 'pong', t: 1 });
    // A push past 128 KiB comes in chunks, each a frame of its own.
    const big = { ...balanceResult(a.id, 3), value: { balance: 3, note: 'x'.repeat(200_000) } };
    const pieces = splitFrame(encodeMessage(big));
    expect(pieces.length).toBeGreaterThan(1);
    for (const piece of pieces) connection.sendRaw(piece);
    expect(await connection.take('received')).toEqual({
      v: 1,
      type: 'received',
      frames: 3 + pieces.length,
    });
    // One frame per read, and no per-subscription acks.
    expect(connection.received.filter((m) => m.type === 'received')).toHaveLength(2);
    expect(connection.received.filter((m) => m.type.startsWith('ack'))).toEqual([]);
    expect(alice.last()?.data).toMatchObject({ balance: 3 });
    expect(bob.last()?.data).toEqual({ balance: 2 });
  });

  it('subscribes over the baton.v1 subprotocol with the token, and acks each result', async () => {
    client = testClient(server.url, { token: 'secret-1' });
    const seen = recorder<{ balance: number }>();
    client.subscribe('balance', { account: 'alice' }, seen.listener);
    const connection = await server.connection(0);
    expect(connection.protocols).toEqual([
      'baton.v1.received',
      'baton.v1',
      'baton.v1.unacked',
      'token.secret-1',
    ]);
    const subscribe = await connection.take('subscribe');
    expect(subscribe).toMatchObject({ query: 'balance', args: { account: 'alice' } });
    expect(subscribe.resume).toBeUndefined();

    connection.send({
      v: 1,
      type: 'result',
      id: subscribe.id,
      version: 1,
      hash: 'h1',
      value: { balance: 5 },
    });
    expect(await connection.take('ack')).toEqual({
      v: 1,
      type: 'ack',
      id: subscribe.id,
      version: 1,
    });
    expect(seen.last()).toEqual({
      status: 'success',
      data: { balance: 5 },
      error: undefined,
      version: 1,
    });
  });

  it('sends a token that is not a subprotocol name as ?token=, asking the token function each time', async () => {
    const token = vi.fn(async () => 'a b/c');
    client = testClient(server.url, { token });
    const connection = await server.connection(0);
    expect(connection.protocols).toEqual(['baton.v1.received', 'baton.v1', 'baton.v1.unacked']);
    expect(new URL(connection.url, 'ws://x').searchParams.get('token')).toBe('a b/c');
    expect(token).toHaveBeenCalledTimes(1);
  });

  it('shares one subscription between listeners of the same query and args, in any key order', async () => {
    client = testClient(server.url);
    const a = recorder();
    const b = recorder();
    const stopA = client.subscribe(history, { account: 'alice', limit: 5 }, a.listener);
    const connection = await server.connection(0);
    const subscribe = await connection.take('subscribe');
    client.subscribe('history', { limit: 5, account: 'alice' }, b.listener);
    connection.send({ v: 1, type: 'result', id: subscribe.id, version: 1, hash: 'h', value: 1 });
    await vi.waitFor(() => expect(b.last()?.status).toBe('success'));
    expect(a.last()).toBe(b.last()); // the same object
    expect(connection.received.filter((m) => m.type === 'subscribe')).toHaveLength(1);

    // A late listener gets the current state at once.
    const c = recorder();
    client.subscribe(history, { account: 'alice', limit: 5 }, c.listener);
    expect(c.states).toEqual([a.last()]);

    stopA();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(connection.received.some((m) => m.type === 'unsubscribe')).toBe(false);
  });

  it('unsubscribes after the last listener leaves', async () => {
    client = testClient(server.url);
    const stop = client.subscribe('balance', {}, () => {});
    const connection = await server.connection(0);
    const subscribe = await connection.take('subscribe');
    stop();
    expect(await connection.take('unsubscribe')).toMatchObject({ id: subscribe.id });
    expect(client.getQueryState('balance', {}).status).toBe('pending');
  });

  it('keeps the same data object for a result with the same hash, and shares unpatched parts', async () => {
    client = testClient(server.url);
    const seen = recorder<{
      balance: number;
      entries: { amount: number }[];
      owner: { name: string };
    }>();
    client.subscribe('history', { account: 'alice' }, seen.listener);
    const connection = await server.connection(0);
    const { id } = await connection.take('subscribe');
    const value = { balance: 5, entries: [{ amount: 5 }], owner: { name: 'Alice' } };
    connection.send({ v: 1, type: 'result', id, version: 1, hash: 'h1', value });
    await connection.take('ack');
    const first = seen.last()!;

    // Same hash again: same data object.
    connection.send({ v: 1, type: 'result', id, version: 2, hash: 'h1', value });
    await connection.take('ack');
    expect(seen.last()!.version).toBe(2);
    expect(seen.last()!.data).toBe(first.data);

    // A patch: the parts it does not touch are the same objects.
    connection.send({
      v: 1,
      type: 'patch',
      id,
      version: 3,
      hash: 'h3',
      baseVersion: 2,
      ops: [
        { op: 'replace', path: '/balance', value: 8 },
        { op: 'add', path: '/entries/-', value: { amount: 3 } },
      ],
    });
    expect(await connection.take('ack')).toMatchObject({ version: 3 });
    const patched = seen.last()!;
    expect(patched.data).toEqual({
      balance: 8,
      entries: [{ amount: 5 }, { amount: 3 }],
      owner: { name: 'Alice' },
    });
    expect(patched.data!.owner).toBe(first.data!.owner);
    expect(patched.data!.entries[0]).toBe(first.data!.entries[0]);
    expect(first.data).toEqual(value); // untouched

    // `unchanged` keeps the data.
    connection.send({ v: 1, type: 'unchanged', id, version: 4, hash: 'h3' });
    expect(await connection.take('ack')).toMatchObject({ version: 4 });
    expect(seen.last()!.data).toBe(patched.data);
    expect(seen.last()!.version).toBe(4);
  });

  it('subscribes afresh when a patch does not fit the value it holds', async () => {
    client = testClient(server.url);
    const seen = recorder<number>();
    client.subscribe('count', {}, seen.listener);
    const connection = await server.connection(0);
    const first = await connection.take('subscribe');
    connection.send({ v: 1, type: 'result', id: first.id, version: 1, hash: 'h1', value: 1 });
    await connection.take('ack');
    connection.send({
      v: 1,
      type: 'patch',
      id: first.id,
      version: 3,
      hash: 'h3',
      baseVersion: 2, // the client holds 1
      ops: [{ op: 'replace', path: '', value: 3 }],
    });
    expect(await connection.take('unsubscribe')).toMatchObject({ id: first.id });
    const again = await connection.take('subscribe');
    expect(again.id).not.toBe(first.id);
    expect(again.resume).toBeUndefined();
    expect(seen.last()).toMatchObject({ status: 'success', data: 1, version: 1 });
    connection.send({ v: 1, type: 'result', id: again.id, version: 3, hash: 'h3', value: 3 });
    await vi.waitFor(() => expect(seen.last()).toMatchObject({ data: 3, version: 3 }));
  });

  it('ignores a push that a newer one of the same subscription overtook', async () => {
    client = testClient(server.url);
    const seen = recorder<{ balance: number }>();
    client.subscribe('history', { account: 'alice' }, seen.listener);
    const connection = await server.connection(0);
    const { id } = await connection.take('subscribe');
    // On API Gateway the answer to a subscribe and a stream handler's push leave from two
    // invocations; a throttled one is retried later. Here the answer (version 1) comes last.
    connection.send(balanceResult(id, 2));
    expect(await connection.take('ack')).toMatchObject({ version: 2 });
    connection.send(balanceResult(id, 1));
    connection.send({ v: 1, type: 'unchanged', id, version: 1, hash: 'h1' });
    connection.send(balanceResult(id, 3));
    // Only version 3 is acked: the two older pushes are neither applied nor answered.
    expect(await connection.take('ack')).toMatchObject({ version: 3 });
    const shown = seen.states.filter((state) => state.status === 'success');
    expect(shown.map((state) => state.data!.balance)).toEqual([2, 3]);
    expect(connection.received.filter((m) => m.type === 'unsubscribe')).toHaveLength(0);
  });

  it('takes any version under a new subscription id: an instance made anew counts from 1', async () => {
    client = testClient(server.url);
    const seen = recorder<{ balance: number }>();
    client.subscribe('history', { account: 'alice' }, seen.listener);
    const connection = await server.connection(0);
    const first = await connection.take('subscribe');
    connection.send(balanceResult(first.id, 5));
    await connection.take('ack');
    // A patch on a base the client does not hold: it starts over, without resume.
    connection.send({
      v: 1,
      type: 'patch',
      id: first.id,
      version: 7,
      hash: 'h7',
      baseVersion: 6,
      ops: [{ op: 'replace', path: '/balance', value: 7 }],
    });
    const again = await connection.take('subscribe');
    expect(again.resume).toBeUndefined();
    connection.send({ ...balanceResult(again.id, 1), value: { balance: 9 } });
    expect(await connection.take('ack')).toMatchObject({ id: again.id, version: 1 });
    expect(seen.last()).toMatchObject({ data: { balance: 9 }, version: 1 });
  });

  it('keeps the last good data on an error, and recovers on the next result', async () => {
    client = testClient(server.url);
    const seen = recorder<number>();
    client.subscribe('mine', {}, seen.listener);
    const connection = await server.connection(0);
    const { id } = await connection.take('subscribe');
    connection.send({ v: 1, type: 'result', id, version: 1, hash: 'h1', value: 7 });
    await connection.take('ack');
    connection.send({
      v: 1,
      type: 'error',
      id,
      error: { code: 'REJECTED', message: 'sign in again', details: {} },
    });
    await vi.waitFor(() => expect(seen.last()?.status).toBe('error'));
    const failed = seen.last()!;
    expect(failed.data).toBe(7);
    expect(failed.version).toBe(1);
    expect(failed.error).toMatchObject({ code: 'REJECTED', message: 'sign in again' });
    connection.send({ v: 1, type: 'result', id, version: 2, hash: 'h2', value: 9 });
    await vi.waitFor(() =>
      expect(seen.last()).toEqual({ status: 'success', data: 9, error: undefined, version: 2 }),
    );
  });

  it.each(['LIMIT_EXCEEDED', 'RATE_LIMITED'] as const)(
    'subscribes again, after a backoff, to a query the server refused for now (%s), not to one refused for good',
    async (code) => {
      client = testClient(server.url);
      const seen = recorder<number>();
      client.subscribe('forbidden', {}, recorder().listener);
      client.subscribe('count', {}, seen.listener);
      const connection = await server.connection(0);
      const forbidden = await connection.take('subscribe');
      const refused = await connection.take('subscribe');
      const error = (id: string, code: ErrorCode, details = {}) =>
        connection.send({ v: 1, type: 'error', id, error: { code, message: 'no', details } });
      error(forbidden.id, 'FORBIDDEN');
      // The subscription cap's refusal names its limit.
      error(refused.id, code, code === 'LIMIT_EXCEEDED' ? { limit: 100 } : {});
      await vi.waitFor(() => expect(seen.last()?.error?.code).toBe(code));

      const again = await connection.take('subscribe');
      expect(again).toMatchObject({ query: 'count' });
      expect(again.id).not.toBe(refused.id);
      connection.send({ v: 1, type: 'result', id: again.id, version: 1, hash: 'h1', value: 1 });
      await vi.waitFor(() => expect(seen.last()).toMatchObject({ status: 'success', data: 1 }));
      await new Promise((resolve) => setTimeout(resolve, 100)); // past several backoffs
      const subscribes = connection.received.filter((m) => m.type === 'subscribe');
      expect(subscribes.map((m) => m.query)).toEqual(['forbidden', 'count', 'count']);
    },
  );

  it('does not subscribe again to a query whose own limits it passed (LIMIT_EXCEEDED of a run)', async () => {
    client = testClient(server.url);
    const seen = recorder<number>();
    client.subscribe('count', {}, seen.listener);
    const connection = await server.connection(0);
    const { id } = await connection.take('subscribe');
    const details = { query: 'count', read: 4000, maxReads: 4000 };
    connection.send({
      v: 1,
      type: 'error',
      id,
      error: { code: 'LIMIT_EXCEEDED', message: 'read fewer', details },
    });
    await vi.waitFor(() => expect(seen.last()?.error?.code).toBe('LIMIT_EXCEEDED'));
    await new Promise((resolve) => setTimeout(resolve, 100)); // past several backoffs
    expect(connection.received.filter((m) => m.type === 'subscribe')).toHaveLength(1);
  });

  it('reassembles a result sent in chunks', async () => {
    client = testClient(server.url);
    const seen = recorder<{ rows: string[] }>();
    client.subscribe('big', {}, seen.listener);
    const connection = await server.connection(0);
    const { id } = await connection.take('subscribe');
    const value = { rows: Array.from({ length: 3000 }, (_, i) => `row ${i} ${'é'.repeat(40)}`) };
    const frames = splitFrame(
      encodeMessage({ v: 1, type: 'result', id, version: 1, hash: 'big', value }),
    );
    expect(frames.length).toBeGreaterThan(1);
    for (const frame of frames.reverse()) connection.sendRaw(frame); // any order
    expect(await connection.take('ack')).toMatchObject({ version: 1 });
    expect(seen.last()!.data).toEqual(value);
  });

  it('reports a malformed frame and keeps serving', async () => {
    const errors: unknown[] = [];
    client = testClient(server.url, { onError: (error) => errors.push(error) });
    const seen = recorder<number>();
    client.subscribe('count', {}, seen.listener);
    const connection = await server.connection(0);
    const { id } = await connection.take('subscribe');
    connection.sendRaw('{not json');
    connection.sendRaw('{"v":1,"type":"result","id":"x"}');
    connection.send({ v: 1, type: 'result', id, version: 1, hash: 'h', value: 1 });
    await vi.waitFor(() => expect(seen.last()?.status).toBe('success'));
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatchObject({ code: 'INVALID_PAYLOAD', details: { reason: 'NOT_JSON' } });
    expect(client.connectionState).toBe('open');
  });
});
