import { splitFrame } from '@baton/protocol';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer } from './fixtures/startTestServer.ts';
import type { TestSocket } from './fixtures/TestSocket.ts';

let t: Awaited<ReturnType<typeof startTestServer>>;
beforeEach(async () => {
  // Floods of frames are the point here, not the rate limit (limits.test.ts covers it).
  t = await startTestServer({ maxFramesPerSecond: 1_000_000 });
});
afterEach(() => t.close());

async function watcher(account: string): Promise<TestSocket> {
  const socket = await t.open({ autoAck: true });
  socket.send({
    v: 1,
    type: 'subscribe',
    id: 'w',
    query: 'totalBalance',
    args: { accounts: [account] },
  });
  await socket.push('w');
  return socket;
}

describe('malformed frames', () => {
  it('answers each malformed frame with an error and keeps the connection and its subscriptions', async () => {
    const a = await watcher('m1');
    const cases: [string, string, Record<string, string>?][] = [
      ['not json', 'NOT_JSON'],
      ['', 'NOT_JSON'],
      ['null', 'NOT_AN_OBJECT'],
      ['[1,2]', 'NOT_AN_OBJECT'],
      ['{"type":"ping","t":1}', 'UNSUPPORTED_VERSION'],
      ['{"v":2,"type":"ping","t":1}', 'UNSUPPORTED_VERSION'],
      ['{"v":1,"type":"result","id":"w"}', 'UNKNOWN_TYPE'],
      ['{"v":1}', 'UNKNOWN_TYPE'],
      ['{"v":1,"type":"ping"}', 'INVALID_FIELD'],
      ['{"v":1,"type":"ack","id":"w","version":-1}', 'INVALID_FIELD'],
      ['{"v":1,"type":"unsubscribe","id":""}', 'INVALID_FIELD'],
      ['{"v":1,"type":"chunk","chunkId":"c","index":3,"count":2,"data":"x"}', 'INVALID_FIELD'],
      ['{"v":1,"type":"subscribe","id":"s9","query":5,"args":{}}', 'INVALID_FIELD', { id: 's9' }],
      [
        '{"v":1,"type":"subscribe","id":"s8","query":"totalBalance","args":{},"resume":{"version":"x","hash":"h"}}',
        'INVALID_FIELD',
        { id: 's8' },
      ],
      [
        '{"v":1,"type":"send","requestId":"r9","to":"account/a"}',
        'INVALID_FIELD',
        { requestId: 'r9' },
      ],
      ['{"v":1,"type":"ask","requestId":"r8","to":7}', 'INVALID_FIELD', { requestId: 'r8' }],
    ];
    for (const [text, reason, target = {}] of cases) {
      a.send(text);
      const error = await a.next('error');
      expect({ text, reason: error.error.details.reason }).toEqual({ text, reason });
      expect(error.error.code).toBe('INVALID_PAYLOAD');
      expect({ id: error.id, requestId: error.requestId }).toEqual({
        id: target.id,
        requestId: target.requestId,
      });
    }
    a.socket.send(Buffer.from('{"v":1,"type":"ping","t":1}'), { binary: true });
    expect((await a.next('error')).error.message).toMatch(/binary/);
    // Still connected, still subscribed: the next change arrives.
    await t.deposit(a, 'm1', 3);
    expect(a.values.get('w')).toEqual({ total: 3, currency: 'EUR' });
  });

  it('refuses a frame over 128 KiB with MESSAGE_TOO_LARGE and keeps serving it', async () => {
    const a = await watcher('m2');
    const big = JSON.stringify({ v: 1, type: 'ping', t: 1, pad: 'é'.repeat(70_000) });
    a.send(big);
    const error = await a.next('error');
    expect(error.error).toMatchObject({
      code: 'MESSAGE_TOO_LARGE',
      details: { reason: 'FRAME_TOO_LARGE', bytes: Buffer.byteLength(big), limit: 131_072 },
    });
    await t.deposit(a, 'm2', 1);
    expect(a.values.get('w')).toMatchObject({ total: 1 });
  });

  it('closes a socket that sends a frame past 8 times the limit (1009), affecting no one else', async () => {
    const other = await watcher('m3');
    const a = await t.open();
    a.send('x'.repeat(8 * 131_072 + 1));
    expect((await a.closed).code).toBe(1009);
    await t.deposit(other, 'm3', 1);
    expect(other.values.get('w')).toMatchObject({ total: 1 });
  });

  it('reassembles a chunked client frame, and refuses a chunk that holds a chunk', async () => {
    const a = await t.open({ autoAck: true });
    // A frame past 128 KiB (a ping, padded: query args are capped far below that).
    const text = JSON.stringify({ v: 1, type: 'ping', t: 42, pad: 'x'.repeat(200_000) });
    const pieces = splitFrame(text);
    expect(pieces.length).toBeGreaterThan(1);
    for (const piece of pieces.reverse()) a.send(piece);
    expect(await a.next('pong', (frame) => frame.t === 42)).toMatchObject({ t: 42 });

    const inner = splitFrame(
      JSON.stringify({ v: 1, type: 'ping', t: 1, pad: 'y'.repeat(200) }),
      150,
    );
    const outer = splitFrame(inner[0]!, 100, { chunkId: 'outer' });
    for (const piece of outer) a.send(piece);
    expect((await a.next('error')).error.details.reason).toBe('INVALID_CHUNK');
    await a.roundTrip();
  });
});

const validFrames: readonly Record<string, unknown>[] = [
  { v: 1, type: 'ping', t: 1 },
  { v: 1, type: 'subscribe', id: 'f1', query: 'totalBalance', args: { accounts: ['fz'] } },
  {
    v: 1,
    type: 'subscribe',
    id: 'f2',
    query: 'share',
    args: { of: 'fz' },
    resume: { version: 3, hash: 'h' },
  },
  { v: 1, type: 'unsubscribe', id: 'f1' },
  { v: 1, type: 'ack', id: 'f1', version: 1 },
  {
    v: 1,
    type: 'send',
    requestId: 'r',
    to: 'account/fz',
    name: 'deposit',
    payload: { amount: 1 },
    idempotencyKey: 'k',
    visible: true,
  },
  {
    v: 1,
    type: 'ask',
    requestId: 'q',
    to: 'counter/fz',
    name: 'increment',
    payload: {},
    idempotencyKey: 'q',
  },
  { v: 1, type: 'chunk', chunkId: 'c', index: 0, count: 2, data: '{"v":1,' },
];

/** A valid frame with one mutation: a field dropped or replaced, or its text cut or spliced. */
const mutatedFrame = fc
  .tuple(
    fc.constantFrom(...validFrames),
    fc.constantFrom('drop', 'replace', 'cut', 'splice', 'none'),
    fc.nat(),
    fc.jsonValue({ maxDepth: 2 }),
    fc.string({ maxLength: 8 }),
  )
  .map(([frame, mutation, at, value, text]) => {
    const keys = Object.keys(frame);
    const key = keys[at % keys.length]!;
    const json = JSON.stringify(frame);
    switch (mutation) {
      case 'drop':
        return JSON.stringify({ ...frame, [key]: undefined });
      case 'replace':
        return JSON.stringify({ ...frame, [key]: value });
      case 'cut':
        return json.slice(0, at % json.length);
      case 'splice':
        return json.slice(0, at % json.length) + text + json.slice(at % json.length);
      default:
        return json;
    }
  });

const anyFrame = fc.oneof(
  fc.string({ maxLength: 300, unit: 'binary' }),
  fc.json({ maxDepth: 3 }),
  mutatedFrame,
  mutatedFrame,
);

describe('fuzzing one connection with random and mutated frames', () => {
  it('never crashes the server nor disturbs another connection', async () => {
    const watching = await watcher('fuzz-watched');
    const fuzzer = await t.open();
    let expected = 0;
    let sent = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(anyFrame, { minLength: 100, maxLength: 100 }), async (frames) => {
        for (const frame of frames) fuzzer.send(frame);
        sent += frames.length;
        await fuzzer.roundTrip(); // the fuzzed connection is alive and was read to the end
        expected += 1;
        await t.deposit(fuzzer, 'fuzz-watched', 1);
        const push = await watching.push('w');
        expect(push.version).toBe(expected + 1);
        expect(watching.values.get('w')).toEqual({ total: expected, currency: 'EUR' });
      }),
      { numRuns: 6, seed: 20240607, endOnFailure: true },
    );
    expect(sent).toBeGreaterThanOrEqual(600);
    expect(fuzzer.frames.filter((f) => f.type === 'error').length).toBeGreaterThan(300);
  });
});
