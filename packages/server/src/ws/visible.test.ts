import { ingressMessageId } from '@baton/core/adapter';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_WAITING_REQUESTS } from './Connection.ts';
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

  it('refuses a visible send past MAX_WAITING_REQUESTS waiting behind a push never acked, and answers the others once the client acks', async () => {
    await t.close();
    t = await startTestServer({ maxFramesPerSecond: 100_000 });
    const a = await t.open(); // acks by hand, and not yet
    a.send({
      v: 1,
      type: 'subscribe',
      id: 's1',
      query: 'totalBalance',
      args: { accounts: ['v7'] },
    });
    expect(await a.push('s1')).toMatchObject({ version: 1 });
    for (let i = 0; i < MAX_WAITING_REQUESTS; i++) a.send(deposit(`r${i}`, 'v7', 1));
    for (let i = 0; i < MAX_WAITING_REQUESTS; i++) {
      await a.next('accepted', (f) => f.requestId === `r${i}`);
    }
    await t.app.idle();
    await t.server.engine.flush();
    // One more is refused, and not sent: the balance stays what the others made it.
    a.send(deposit('over', 'v7', 1_000));
    const refused = await a.next('error', (f) => f.requestId === 'over');
    expect(refused.error).toMatchObject({
      code: 'LIMIT_EXCEEDED',
      message: expect.stringContaining(
        `this connection has ${MAX_WAITING_REQUESTS} asks and visible sends waiting for their answers`,
      ),
    });
    await a.roundTrip();
    expect(a.unread().filter((f) => f.type !== 'pong')).toEqual([]);

    // The ack lets the newest result out: every waiting send is answered, and there is room again.
    a.ack('s1', 1);
    const newest = await a.push('s1');
    expect(a.values.get('s1')).toEqual({ total: MAX_WAITING_REQUESTS, currency: 'EUR' });
    for (let i = 0; i < MAX_WAITING_REQUESTS; i++) {
      await a.next('visible', (f) => f.requestId === `r${i}`);
    }
    a.ack('s1', newest.version);
    a.send(deposit('after', 'v7', 1));
    expect(await a.push('s1')).toMatchObject({ version: newest.version + 1 });
    a.ack('s1', newest.version + 1);
    expect(await a.next('visible')).toMatchObject({ requestId: 'after' });
  });
});
