import { once } from 'node:events';
import type { Socket } from 'node:net';
import { jsonLogger } from '@baton/core';
import { MAX_ID_LENGTH, splitFrame } from '@baton/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { startTestServer } from './fixtures/startTestServer.ts';

/** A clock that stands still: every frame falls in the same second, whatever the machine's speed. */
const frozen = { now: () => 1_700_000_000_250 };

describe('per-connection limits of the local WebSocket host', () => {
  let t: Awaited<ReturnType<typeof startTestServer>> | undefined;
  afterEach(() => t?.close());

  it('answers frames past maxFramesPerSecond with RATE_LIMITED, dropping them, and leaves other connections alone', async () => {
    t = await startTestServer({ maxFramesPerSecond: 3, engine: { clock: frozen } });
    const a = await t.open();
    const b = await t.open();
    for (let i = 0; i < 5; i++) a.send({ v: 1, type: 'ping', t: i });
    const refusals = [await a.next('error'), await a.next('error')];
    const pongs = [await a.next('pong'), await a.next('pong'), await a.next('pong')];

    expect(pongs.map((p) => p.t)).toEqual([0, 1, 2]);
    expect(refusals.map((r) => r.error.code)).toEqual(['RATE_LIMITED', 'RATE_LIMITED']);
    // Retry after the second ends: 750 ms from the frozen clock's time.
    expect(refusals[0]!.error.message).toContain('after 750 ms');
    expect(a.unread().filter((f) => f.type === 'pong')).toEqual([]);
    b.send({ v: 1, type: 'ping', t: 9 });
    expect((await b.next('pong')).t).toBe(9);
  });

  it('counts malformed frames against the rate, and refuses a burst of up to twice the cap with few answers, not closing', async () => {
    t = await startTestServer({ maxFramesPerSecond: 20, engine: { clock: frozen } });
    const a = await t.open();
    const b = await t.open();
    a.send('not json');
    a.send('{}');
    for (let i = 0; i < 38; i++) a.send({ v: 1, type: 'ping', t: i });
    // Answered: the two malformed frames and the first 18 pings, then ten refusals of the 20
    // pings past the rate (40 frames: twice the cap), none of them ponged.
    const malformed = [await a.next('error'), await a.next('error')];
    expect(malformed.map((f) => f.error.code)).toEqual(['INVALID_PAYLOAD', 'INVALID_PAYLOAD']);
    const pongs = [];
    for (let i = 0; i < 18; i++) pongs.push((await a.next('pong')).t);
    expect(pongs).toEqual(Array.from({ length: 18 }, (_, i) => i));
    const refusals = [];
    for (let i = 0; i < 10; i++) refusals.push(await a.next('error'));
    expect(refusals.map((f) => f.error.code)).toEqual(Array(10).fill('RATE_LIMITED'));
    b.send({ v: 1, type: 'ping', t: 9 });
    expect((await b.next('pong')).t).toBe(9);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(a.unread()).toEqual([]);
    // Still open: a burst refused is not a flood.
    expect(t.server.connections()).toHaveLength(2);
  });

  it('closes a connection that sends more than twice maxFramesPerSecond in one second (1008), once, logging it', async () => {
    const lines: string[] = [];
    t = await startTestServer({
      maxFramesPerSecond: 3,
      engine: { clock: frozen },
      logger: jsonLogger({ write: (line) => lines.push(line) }),
    });
    const a = await t.open();
    const b = await t.open();
    for (let i = 0; i < 50; i++) a.send({ v: 1, type: 'ping', t: i });

    expect(await a.closed).toEqual({
      code: 1008,
      reason:
        'sent more than 6 frames in one second (twice the cap of 3): closed; reconnect and send fewer',
    });
    // Frames 1–3 ponged, 4–6 refused, the 7th closed it; nothing answered the rest.
    expect(
      a.frames.map((f) => (f.type === 'pong' ? f.t : f.type === 'error' && f.error.code)),
    ).toEqual([0, 1, 2, 'RATE_LIMITED', 'RATE_LIMITED', 'RATE_LIMITED']);
    const warnings = lines.map((line) => JSON.parse(line)).filter((l) => l.level === 'warn');
    expect(warnings).toEqual([
      expect.objectContaining({
        message: 'closing a connection for a policy violation',
        connection: expect.any(Number),
        frames: 7,
        limit: 3,
      }),
    ]);
    // The other connection is served on; the closed one is gone from the server.
    b.send({ v: 1, type: 'ping', t: 9 });
    expect((await b.next('pong')).t).toBe(9);
    expect(t.server.connections()).toHaveLength(1);
  });

  it('counts every chunk of a chunked message against the rate, the large ones too', async () => {
    t = await startTestServer({ maxFramesPerSecond: 3, engine: { clock: frozen } });
    const a = await t.open();
    // Chunks as splitFrame makes them by default, as BatonClient sends a large message.
    const ping = JSON.stringify({ v: 1, type: 'ping', t: 7, pad: 'x'.repeat(300_000) });
    const chunks = splitFrame(ping);
    expect(chunks).toHaveLength(3);
    for (const chunk of chunks) a.send(chunk);
    expect((await a.next('pong')).t).toBe(7);
    // It took the three frames of the second: the next is refused.
    a.send({ v: 1, type: 'ping', t: 1 });
    expect((await a.next('error')).error.code).toBe('RATE_LIMITED');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(a.unread().filter((f) => f.type === 'pong')).toEqual([]);
  });

  it('refuses large chunks past the rate as it refuses pings, and keeps none it dropped', async () => {
    let now = 1_700_000_000_250;
    t = await startTestServer({ maxFramesPerSecond: 3, engine: { clock: { now: () => now } } });
    const a = await t.open();
    const b = await t.open();
    // Chunks of 40 KB of messages never finished, each of its own message: none is free.
    const ping = JSON.stringify({ v: 1, type: 'ping', t: 7, pad: 'x'.repeat(60_000) });
    for (let i = 0; i < 5; i++) a.send(splitFrame(ping, 40_000, { chunkId: `m${i}` })[0]!);
    a.send({ v: 1, type: 'ping', t: 1 });
    const refusals = [];
    for (let i = 0; i < 3; i++) refusals.push(await a.next('error'));
    expect(refusals.map((f) => f.error.code)).toEqual(Array(3).fill('RATE_LIMITED'));
    b.send({ v: 1, type: 'ping', t: 9 });
    expect((await b.next('pong')).t).toBe(9);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(a.unread()).toEqual([]);
    // The next second, the last chunk of a message whose first chunk was dropped completes
    // nothing: the client sends the message again.
    now += 1_000;
    a.send(splitFrame(ping, 40_000, { chunkId: 'm4' })[1]!);
    a.send({ v: 1, type: 'ping', t: 2 });
    expect((await a.next('pong')).t).toBe(2);
    await a.roundTrip();
    expect(a.unread()).toEqual([]);
  });

  it('counts a chunk that brings nothing — a repeat, or one of a message already whole — against the rate', async () => {
    t = await startTestServer({ maxFramesPerSecond: 3, engine: { clock: frozen } });
    const a = await t.open();
    const ping = JSON.stringify({ v: 1, type: 'ping', t: 7, pad: 'x'.repeat(3_000) });
    const done = splitFrame(ping, 2_000, { chunkId: 'done' });
    for (const chunk of done) a.send(chunk);
    expect((await a.next('pong')).t).toBe(7); // one frame of three
    // A chunk of the message already whole, and the first chunk of one never finished, again.
    const [first] = splitFrame(ping, 2_000, { chunkId: 'open' });
    a.send(done[0]!);
    for (let i = 0; i < 3; i++) a.send(first!);
    a.send({ v: 1, type: 'ping', t: 100 });
    // The late chunk and the first repeat took the other two frames of the second.
    expect((await a.next('error')).error.code).toBe('RATE_LIMITED');
    expect((await a.next('error')).error.code).toBe('RATE_LIMITED');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(a.unread().filter((f) => f.type === 'pong')).toEqual([]);
  });

  it('counts a small chunk of a message still incomplete against the rate', async () => {
    t = await startTestServer({ maxFramesPerSecond: 3, engine: { clock: frozen } });
    const a = await t.open();
    const tiny = (index: number) => ({
      v: 1 as const,
      type: 'chunk' as const,
      chunkId: 'tiny',
      index,
      count: 1_000,
      data: 'x',
    });
    for (let i = 0; i < 3; i++) a.send(tiny(i));
    a.send({ v: 1, type: 'ping', t: 1 });
    expect((await a.next('error')).error.code).toBe('RATE_LIMITED');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(a.unread().filter((f) => f.type === 'pong')).toEqual([]);
  });

  it('holds no more of a chunked message than the largest a client may send (a payload and a frame), and no more than that across its messages', async () => {
    t = await startTestServer({ maxFramesPerSecond: 1_000 });
    const a = await t.open();
    // 100 KB chunks of messages declared larger than any the host could take, never finished.
    const chunk = (chunkId: string, index: number) => ({
      v: 1 as const,
      type: 'chunk' as const,
      chunkId,
      index,
      count: 1_000,
      data: 'x'.repeat(100_000),
    });
    for (let i = 0; i < 20; i++) a.send(chunk('huge', i));
    const tooLarge = await a.next('error');
    expect(tooLarge.error).toMatchObject({
      code: 'MESSAGE_TOO_LARGE',
      // Half the embedded store's 400,000-byte item, and a frame.
      details: { reason: 'CHUNKED_MESSAGE_TOO_LARGE', limit: 200_000 + 131_072 },
    });
    // Dropped: its later chunks are ignored, and nothing of it is held.
    await a.roundTrip();
    expect(a.unread()).toEqual([]);
    // Several messages at once hold no more than one of the largest together.
    for (let m = 0; m < 8; m++) for (let i = 0; i < 2; i++) a.send(chunk(`part-${m}`, i));
    const full = await a.next('error');
    expect(full.error).toMatchObject({
      code: 'UNAVAILABLE',
      details: { reason: 'CHUNK_BUFFER_FULL' },
    });
    // A message in chunks still arrives whole: an ask with a payload near its limit (half the
    // store's item); one a little over it arrives too, and the door refuses it by name.
    const b = await t.open();
    const ask = (requestId: string, pad: number) =>
      JSON.stringify({
        v: 1,
        type: 'ask',
        requestId,
        to: 'counter/c',
        name: 'increment',
        payload: { by: 2, pad: 'y'.repeat(pad) },
        idempotencyKey: requestId,
      });
    for (const frame of splitFrame(ask('big', 199_000), 131_072, { chunkId: 'whole' })) {
      b.send(frame);
    }
    expect((await b.next('reply', (f) => f.requestId === 'big')).value).toBe(2);
    for (const frame of splitFrame(ask('huge', 200_100), 131_072, { chunkId: 'huge' })) {
      b.send(frame);
    }
    const refused = await b.next('error', (f) => f.requestId === 'huge');
    expect(refused.error).toMatchObject({
      code: 'MESSAGE_TOO_LARGE',
      details: { to: 'counter/c', name: 'increment', limit: 200_000 },
    });
  });

  it('holds no more of chunked messages than maxAssemblingBytes across all connections, and takes them again once one lets go', async () => {
    t = await startTestServer({ maxFramesPerSecond: 1_000, maxAssemblingBytes: 300_000 });
    const { server } = t;
    const chunk = (chunkId: string, index: number) => ({
      v: 1 as const,
      type: 'chunk' as const,
      chunkId,
      index,
      count: 10,
      data: 'x'.repeat(100_000),
    });
    // Two connections that never finish their messages: the second's second chunk is one too many.
    const a = await t.open();
    const b = await t.open();
    for (let i = 0; i < 2; i++) a.send(chunk('a', i));
    await a.roundTrip();
    b.send(chunk('b', 0));
    b.send(chunk('b', 1));
    const full = await b.next('error');
    expect(full.error).toMatchObject({
      code: 'UNAVAILABLE',
      details: { reason: 'CHUNK_BUFFER_FULL', chunkId: 'b' },
    });
    expect(full.error.message).toMatch(/the host already holds 300000 bytes of chunked messages/);
    // The first one gone, its bytes are let go: a whole message in chunks arrives again.
    a.close();
    await expect.poll(() => server.connections().length).toBe(1);
    const ask = JSON.stringify({
      v: 1,
      type: 'ask',
      requestId: 'r',
      to: 'counter/c',
      name: 'increment',
      payload: { by: 3, pad: 'y'.repeat(190_000) },
      idempotencyKey: 'r',
    });
    for (const frame of splitFrame(ask, 131_072, { chunkId: 'whole' })) b.send(frame);
    expect((await b.next('reply', (f) => f.requestId === 'r')).value).toBe(3);
  });

  it('refuses a subscription past maxSubscriptions with LIMIT_EXCEEDED, naming it, and keeps the others', async () => {
    t = await startTestServer({ maxSubscriptions: 2 });
    const a = await t.open({ autoAck: true });
    const subscribe = (id: string) =>
      a.send({ v: 1, type: 'subscribe', id, query: 'totalBalance', args: { accounts: [id] } });
    subscribe('s1');
    subscribe('s2');
    subscribe('s3');
    const refused = await a.next('error', (f) => f.id === 's3');
    expect(refused.error.code).toBe('LIMIT_EXCEEDED');
    await Promise.all([a.push('s1'), a.push('s2')]);
    expect(t.server.connections()).toEqual([expect.objectContaining({ subscriptions: 2 })]);
    // Subscribing an id it holds again replaces it; after an unsubscribe there is room.
    subscribe('s1');
    a.send({ v: 1, type: 'unsubscribe', id: 's2' });
    subscribe('s3');
    await a.push('s3');
    expect(t.server.connections()).toEqual([expect.objectContaining({ subscriptions: 2 })]);
  });

  it('refuses ids past MAX_ID_LENGTH characters, holding nothing of them and echoing none, so that a hundred subscriptions cannot hold megabytes of ids', async () => {
    t = await startTestServer();
    const a = await t.open({ autoAck: true });
    // In chunks, one id could take a whole message (a megabyte), held with its subscription
    // and sent again with every push; each is refused whole instead.
    const long = 'i'.repeat(MAX_ID_LENGTH + 1);
    const frames = [
      { v: 1, type: 'subscribe', id: long, query: 'totalBalance', args: { accounts: ['a'] } },
      {
        v: 1,
        type: 'ask',
        requestId: long,
        to: 'account/a',
        name: 'deposit',
        payload: { amount: 1 },
        idempotencyKey: 'k',
      },
      {
        v: 1,
        type: 'send',
        requestId: 'r',
        to: 'account/a',
        name: 'deposit',
        payload: { amount: 1 },
        idempotencyKey: long,
      },
    ];
    const chunked = JSON.stringify({ ...frames[0], id: 'c'.repeat(200_000) });
    for (const frame of [...frames, ...splitFrame(chunked, 100_000)]) a.send(frame as never);
    const refusals = [];
    for (let i = 0; i < 4; i++) refusals.push(await a.next('error'));
    expect(refusals.map((f) => [f.error.code, f.id, f.requestId])).toEqual([
      ['INVALID_PAYLOAD', undefined, undefined],
      ['INVALID_PAYLOAD', undefined, undefined],
      ['INVALID_PAYLOAD', undefined, 'r'],
      ['INVALID_PAYLOAD', undefined, undefined],
    ]);
    expect(refusals[0]!.error.message).toBe(
      `"subscribe" frame: field "id" must be a non-empty string of at most ${MAX_ID_LENGTH} characters, got a string of ${MAX_ID_LENGTH + 1} characters`,
    );
    expect(t.server.connections()).toEqual([expect.objectContaining({ subscriptions: 0 })]);
    // An id of MAX_ID_LENGTH characters is one like any other.
    const longest = 'j'.repeat(MAX_ID_LENGTH);
    a.send({ ...frames[0], id: longest } as never);
    expect((await a.push(longest)).type).toBe('result');
  });

  it('closes a connection past maxConnectionsPerUser (4429), leaving the user the ones it holds; anonymous ones are not counted', async () => {
    t = await startTestServer({
      maxConnectionsPerUser: 2,
      auth: ({ token }) => (token === undefined ? undefined : { userId: token }),
    });
    const first = await t.open({ query: '?token=alice' });
    await t.open({ query: '?token=alice' });
    const third = await t.open({ query: '?token=alice' });
    expect(await third.closed).toEqual({
      code: 4429,
      reason:
        'this user holds 2 connections, the most it may: close some (other tabs or devices) first',
    });
    await t.open({ query: '?token=bob' });
    for (let i = 0; i < 3; i++) await t.open();
    const users = () => t!.server.connections().map((c) => c.identity);
    expect(users()).toEqual([
      { userId: 'alice' },
      { userId: 'alice' },
      { userId: 'bob' },
      undefined,
      undefined,
      undefined,
    ]);

    // One closed, there is room for one more.
    first.close();
    await first.closed;
    await vi.waitFor(() => expect(users()).toHaveLength(5));
    const again = await t.open({ query: '?token=alice' });
    await again.roundTrip();
    expect(users().filter((u) => u !== undefined)).toHaveLength(3);
  });

  it('counts a connection it closed until its socket is gone: closing one a client does not read frees no place', async () => {
    let now = 1_700_000_000_000;
    t = await startTestServer({
      maxConnectionsPerUser: 1,
      leaseMs: 60_000,
      heartbeatMs: 20,
      engine: { clock: { now: () => now } },
      auth: ({ token }) => (token === undefined ? undefined : { userId: token }),
    });
    const first = new WebSocket(`${t.server.url}?token=alice`, ['baton.v1']);
    await once(first, 'open');
    const raw = (first as unknown as { _socket: Socket })._socket;
    raw.pause(); // it will not read the close
    now += 60_000; // its lease lapses: the next heartbeat closes it
    await vi.waitFor(() => expect(t!.server.connections()).toHaveLength(0));
    const second = await t.open({ query: '?token=alice' });
    expect(await second.closed).toMatchObject({ code: 4429 });
    // Once the client reads the close, the socket goes, and with it the place it held.
    const gone = once(first, 'close');
    raw.resume();
    expect((await gone)[0]).toBe(4408);
    const third = await t.open({ query: '?token=alice' });
    await third.roundTrip();
    expect(t.server.connections()).toHaveLength(1);
  });

  it('closes a connection with no user past maxAnonymousConnections (4429); users still connect', async () => {
    t = await startTestServer({
      maxAnonymousConnections: 2,
      auth: ({ token }) => (token === undefined ? undefined : { userId: token }),
    });
    const first = await t.open();
    await t.open();
    const third = await t.open();
    expect(await third.closed).toEqual({
      code: 4429,
      reason:
        'the server holds 2 connections with no user, the most it may: connect with a token, or try again later',
    });
    const alice = await t.open({ query: '?token=alice' });
    await alice.roundTrip();
    expect(t.server.connections()).toHaveLength(3);

    // One closed, there is room for one more.
    first.close();
    await first.closed;
    await vi.waitFor(() => expect(t!.server.connections()).toHaveLength(2));
    const again = await t.open();
    await again.roundTrip();
    expect(t.server.connections().map((c) => c.identity)).toEqual([
      undefined,
      { userId: 'alice' },
      undefined,
    ]);
  });

  it('holds 1,000 connections with no user by default', async () => {
    t = await startTestServer({ maxAnonymousConnections: undefined });
    const sockets = await Promise.all(Array.from({ length: 1_000 }, () => t!.open()));
    await sockets.at(-1)!.roundTrip();
    const past = await t.open();
    expect((await past.closed).code).toBe(4429);
    expect(t.server.connections()).toHaveLength(1_000);
  });
});
