import { ingressMessageId } from '@baton/core/adapter';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer } from './fixtures/startTestServer.ts';

let t: Awaited<ReturnType<typeof startTestServer>>;
beforeEach(async () => {
  t = await startTestServer();
});
afterEach(() => t.close());

const deposit = (requestId: string, key: string, amount: number, visible = true) =>
  ({
    v: 1,
    type: 'send',
    requestId,
    to: `account/${key}`,
    name: 'deposit',
    payload: { amount },
    idempotencyKey: `key-${requestId}`,
    visible,
  }) as const;

describe('read-your-writes', () => {
  it('sends visible after the result that includes the write', async () => {
    const a = await t.open({ autoAck: true });
    a.send({
      v: 1,
      type: 'subscribe',
      id: 's1',
      query: 'totalBalance',
      args: { accounts: ['v1'] },
    });
    await a.push('s1');
    a.send(deposit('r1', 'v1', 5));
    expect(await a.next('accepted')).toEqual({
      v: 1,
      type: 'accepted',
      requestId: 'r1',
      messageId: ingressMessageId('account/v1', 'key-r1'),
    });
    expect(await a.next('visible')).toMatchObject({
      requestId: 'r1',
      messageId: ingressMessageId('account/v1', 'key-r1'),
    });
    const visibleAt = a.frames.findIndex((f) => f.type === 'visible');
    const resultAt = a.frames.findIndex(
      (f) => (f.type === 'result' || f.type === 'patch') && f.version === 2,
    );
    expect(resultAt).toBeGreaterThan(-1);
    expect(resultAt).toBeLessThan(visibleAt);
    expect(a.values.get('s1')).toEqual({ total: 5, currency: 'EUR' });
  });

  it('waits for the ack that lets the newer result out before saying visible', async () => {
    const a = await t.open(); // acks by hand
    a.send({
      v: 1,
      type: 'subscribe',
      id: 's1',
      query: 'totalBalance',
      args: { accounts: ['v2'] },
    });
    a.send({
      v: 1,
      type: 'subscribe',
      id: 'other',
      query: 'totalBalance',
      args: { accounts: ['zz'] },
    });
    await Promise.all([a.push('s1'), a.push('other')]); // both version 1, unacked
    a.send(deposit('r1', 'v2', 5));
    await a.next('accepted');
    await t.server.engine.flush();
    await a.roundTrip();
    expect(a.unread().map((f) => f.type)).toEqual([]); // held behind the unacked push
    a.ack('s1', 1); // 'other' does not read account/v2: it is not waited for
    expect(await a.push('s1')).toMatchObject({ version: 2, value: { total: 5 } });
    expect(await a.next('visible')).toMatchObject({ requestId: 'r1' });
  });

  it('sends visible right after the commit when no subscription reads the actor', async () => {
    const a = await t.open();
    a.send({
      v: 1,
      type: 'subscribe',
      id: 's1',
      query: 'totalBalance',
      args: { accounts: ['v3'] },
    });
    await a.push('s1'); // unacked, but unrelated to the write
    a.send(deposit('r1', 'elsewhere', 1));
    expect(await a.next('visible')).toMatchObject({ requestId: 'r1' });
  });

  it('makes a re-sent send the same message, processed once', async () => {
    const a = await t.open({ autoAck: true });
    a.send({
      v: 1,
      type: 'subscribe',
      id: 's1',
      query: 'totalBalance',
      args: { accounts: ['v4'] },
    });
    await a.push('s1');
    a.send(deposit('r1', 'v4', 5));
    await a.next('visible');
    // After a reconnect the client sends it again with the same requestId and idempotencyKey.
    const again = await t.open({ autoAck: true });
    again.send({
      v: 1,
      type: 'subscribe',
      id: 's1',
      query: 'totalBalance',
      args: { accounts: ['v4'] },
    });
    await again.push('s1');
    again.send(deposit('r1', 'v4', 5));
    const messageId = ingressMessageId('account/v4', 'key-r1');
    expect(await again.next('accepted')).toMatchObject({ requestId: 'r1', messageId });
    expect(await again.next('visible')).toMatchObject({ requestId: 'r1', messageId });
    await t.app.idle();
    await t.server.engine.flush();
    await again.roundTrip();
    expect(again.values.get('s1')).toEqual({ total: 5, currency: 'EUR' });
  });

  it('answers a visible send that the actor rejected with its error', async () => {
    const a = await t.open();
    a.send({ ...deposit('r1', 'v5', 1), name: 'depositThenFail' });
    await a.next('accepted');
    expect((await a.next('error', (f) => f.requestId === 'r1')).error.code).toBe('REJECTED');
  });

  it('answers a send without visible with accepted only', async () => {
    const a = await t.open();
    a.send(deposit('r1', 'v6', 1, false));
    await a.next('accepted');
    await t.app.idle();
    await a.roundTrip();
    expect(a.unread()).toEqual([]);
  });
});
