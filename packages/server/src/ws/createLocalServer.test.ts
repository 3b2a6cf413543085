import { ingressMessageId } from '@baton/core/adapter';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer } from './fixtures/startTestServer.ts';

let t: Awaited<ReturnType<typeof startTestServer>>;
beforeEach(async () => {
  t = await startTestServer();
});
afterEach(() => t.close());

const subscribe = (id: string, accounts: string[]) =>
  ({ v: 1, type: 'subscribe', id, query: 'totalBalance', args: { accounts } }) as const;

describe('createLocalServer', () => {
  it('listens on a free loopback port and echoes the baton.v1 subprotocol', async () => {
    expect(t.server.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);
    expect(t.server.port).toBeGreaterThan(0);
    const a = await t.open();
    expect(a.protocol).toBe('baton.v1');
    expect(t.server.connections()).toHaveLength(1);
  });

  it('answers a subscribe with the query result and its version and hash', async () => {
    const a = await t.open();
    a.send(subscribe('s1', ['alice']));
    const result = await a.next('result');
    expect(result).toMatchObject({ id: 's1', version: 1, value: { total: 0, currency: 'EUR' } });
    expect(result.hash).toEqual(expect.any(String));
  });

  it('pushes a send made on another connection to the first connection', async () => {
    const a = await t.open({ autoAck: true });
    const b = await t.open();
    a.send(subscribe('s1', ['alice', 'bob']));
    await a.next('result');
    b.send({
      v: 1,
      type: 'send',
      requestId: 'r1',
      to: 'account/bob',
      name: 'deposit',
      payload: { amount: 7 },
      idempotencyKey: 'k-r1',
    });
    expect(await b.next('accepted')).toMatchObject({
      requestId: 'r1',
      messageId: ingressMessageId('account/bob', 'k-r1'),
    });
    expect(await a.push('s1')).toMatchObject({ version: 2 });
    expect(a.values.get('s1')).toEqual({ total: 7, currency: 'EUR' });
    expect(b.unread().filter((f) => f.type === 'result' || f.type === 'patch')).toEqual([]);
  });

  it('answers a ping with a pong echoing t', async () => {
    const a = await t.open();
    a.send({ v: 1, type: 'ping', t: 1234.5 });
    expect(await a.next('pong')).toEqual({ v: 1, type: 'pong', t: 1234.5 });
  });

  it('errors a subscribe to an unknown query (FORBIDDEN, like an internal one) or with bad args, naming the subscription', async () => {
    const a = await t.open();
    a.send({ v: 1, type: 'subscribe', id: 'nope', query: 'noSuchQuery', args: {} });
    a.send({ v: 1, type: 'subscribe', id: 'bad', query: 'totalBalance', args: { accounts: 3 } });
    expect((await a.next('error', (f) => f.id === 'nope')).error.code).toBe('FORBIDDEN');
    const bad = await a.next('error', (f) => f.id === 'bad');
    expect(bad.error.code).toBe('INVALID_PAYLOAD');
    expect(bad.error.message).toContain('accounts');
    expect(t.server.engine.stats().subscriptions).toBe(0);
  });

  it('answers an ask with accepted then the reply, and a rejected ask with its error', async () => {
    const a = await t.open();
    const ask = { v: 1, type: 'ask', to: 'counter/c1', name: 'increment' } as const;
    a.send({ ...ask, requestId: 'q1', payload: { by: 2 }, idempotencyKey: 'inc-1' });
    expect(await a.next('accepted')).toMatchObject({
      requestId: 'q1',
      messageId: ingressMessageId('counter/c1', 'inc-1'),
    });
    expect(await a.next('reply')).toEqual({ v: 1, type: 'reply', requestId: 'q1', value: 2 });
    a.send({ ...ask, requestId: 'q1-again', payload: { by: 2 }, idempotencyKey: 'inc-1' });
    expect((await a.next('reply')).value).toBe(2); // the same message: processed once
    a.send({
      v: 1,
      type: 'ask',
      requestId: 'q2',
      to: 'account/x',
      name: 'depositThenFail',
      payload: { amount: 1 },
      idempotencyKey: 'fail-1',
    });
    const error = await a.next('error', (f) => f.requestId === 'q2');
    expect(error.error).toMatchObject({ code: 'REJECTED', message: expect.stringMatching(/mind/) });
  });

  it('errors a send to an unknown actor or message (FORBIDDEN, like an internal one), or with a bad payload, by request id', async () => {
    const a = await t.open();
    const send = { v: 1, type: 'send', payload: { amount: 1 } } as const;
    a.send({ ...send, requestId: 'u1', to: 'ghost/x', name: 'deposit', idempotencyKey: 'u1' });
    a.send({ ...send, requestId: 'u2', to: 'account/x', name: 'steal', idempotencyKey: 'u2' });
    a.send({ ...send, requestId: 'u3', to: 'account', name: 'deposit', idempotencyKey: 'u3' });
    a.send({
      ...send,
      requestId: 'u4',
      to: 'account/x',
      name: 'deposit',
      idempotencyKey: 'u4',
      payload: {},
    });
    const code = async (requestId: string) =>
      (await a.next('error', (f) => f.requestId === requestId)).error.code;
    expect(await code('u1')).toBe('FORBIDDEN');
    expect(await code('u2')).toBe('FORBIDDEN');
    expect(await code('u3')).toBe('INVALID_REF');
    expect(await code('u4')).toBe('INVALID_PAYLOAD');
  });

  it('drops the subscriptions of a connection when its socket closes', async () => {
    const a = await t.open({ autoAck: true });
    const b = await t.open({ autoAck: true });
    a.send(subscribe('s1', ['alice']));
    a.send(subscribe('s2', ['bob']));
    b.send(subscribe('s1', ['alice']));
    await Promise.all([a.next('result'), a.next('result'), b.next('result')]);
    expect(t.server.engine.stats()).toMatchObject({ instances: 2, subscriptions: 3 });
    a.close();
    await a.closed;
    await expect.poll(() => t.server.engine.stats().subscriptions).toBe(1);
    expect(t.server.engine.stats().instances).toBe(1);
    expect(t.server.connections()).toEqual([expect.objectContaining({ subscriptions: 1 })]);
  });

  it('stops a subscription on unsubscribe, and replaces one subscribed again under its id', async () => {
    const a = await t.open({ autoAck: true });
    a.send(subscribe('s1', ['alice']));
    await a.next('result');
    a.send(subscribe('s1', ['bob']));
    await a.next('result', (f) => f.version === 1);
    expect(t.server.engine.stats()).toMatchObject({ instances: 1, subscriptions: 1 });
    a.send({ v: 1, type: 'unsubscribe', id: 's1' });
    await a.roundTrip();
    expect(t.server.engine.stats()).toMatchObject({ instances: 0, subscriptions: 0 });
  });

  it('closes every socket and the engine on close()', async () => {
    const a = await t.open();
    await t.server.close();
    expect((await a.closed).code).toBe(1001);
    await expect(t.server.close()).resolves.toBeUndefined();
  });
});
