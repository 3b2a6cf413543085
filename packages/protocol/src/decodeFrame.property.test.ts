import { isBatonError } from '@baton/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeClientMessage, decodeServerMessage, encodeMessage } from './decodeFrame.ts';

const FIELDS = [
  'id',
  'query',
  'args',
  'resume',
  'requestId',
  'to',
  'name',
  'payload',
  'idempotencyKey',
  'visible',
  'version',
  't',
  'chunkId',
  'index',
  'count',
  'data',
  'hash',
  'value',
  'baseVersion',
  'ops',
  'error',
  'messageId',
  'frames',
];

const anyText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 300 }),
  // Lone surrogates and control characters too.
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) }),
  fc.jsonValue().map((value) => JSON.stringify(value) ?? 'undefined'),
);

/** One valid frame of each type, to be mutated. */
const VALID: Record<string, unknown>[] = [
  { type: 'subscribe', id: 's', query: 'q', args: {}, resume: { version: 1, hash: 'h' } },
  { type: 'unsubscribe', id: 's' },
  {
    type: 'send',
    requestId: 'r',
    to: 'a/b',
    name: 'n',
    payload: 1,
    idempotencyKey: 'k',
    visible: true,
  },
  { type: 'ask', requestId: 'r', to: 'a/b', name: 'n', payload: 1, idempotencyKey: 'k' },
  { type: 'ack', id: 's', version: 2 },
  { type: 'received', frames: 2 },
  { type: 'ping', t: 1 },
  { type: 'chunk', chunkId: 'c', index: 0, count: 2, data: 'x' },
  { type: 'result', id: 's', version: 2, hash: 'h', value: [1] },
  {
    type: 'patch',
    id: 's',
    version: 2,
    hash: 'h',
    baseVersion: 1,
    ops: [{ op: 'remove', path: '/a' }],
  },
  { type: 'unchanged', id: 's', version: 2, hash: 'h' },
  { type: 'error', requestId: 'r', error: { code: 'X', message: 'm', details: {} } },
  { type: 'accepted', requestId: 'r', messageId: 'm' },
  { type: 'reply', requestId: 'r', value: null },
  { type: 'visible', requestId: 'r', messageId: 'm' },
  { type: 'pong', t: 1 },
].map((frame) => ({ v: 1, ...frame }));

const small = fc.jsonValue({ maxDepth: 2 });

/** A field's new value: anything JSON, something nearly right, or (undefined) removed. */
const fieldValue = fc.oneof(
  small,
  fc.constantFrom(undefined, '', 'x', -1, 0, 1.5, 2 ** 53, true, [], {}),
  fc.record({ version: fc.oneof(fc.nat(), small), hash: fc.oneof(fc.string(), small) }),
  fc.record(
    { code: fc.oneof(fc.string(), small), message: fc.string(), details: small },
    { requiredKeys: ['code', 'message'] },
  ),
  fc.array(
    fc.record(
      {
        op: fc.constantFrom('add', 'remove', 'replace', 'x'),
        path: fc.oneof(fc.constant('/a'), small),
        value: small,
      },
      { requiredKeys: ['op'] },
    ),
  ),
);

/** Valid frames with up to three fields changed, removed or added (`v` and `type` included). */
const nearlyFrames = fc
  .record({
    frame: fc.constantFrom(...VALID),
    changes: fc.array(fc.tuple(fc.constantFrom(...FIELDS, 'v', 'type'), fieldValue), {
      maxLength: 3,
    }),
  })
  .map(({ frame, changes }) => {
    const mutated: Record<string, unknown> = { ...frame };
    for (const [field, value] of changes) mutated[field] = value;
    return JSON.stringify(mutated);
  });

let decoded = 0;

const decoders = [decodeClientMessage, decodeServerMessage];

/** Decodes with both decoders: each gives a frame that re-encodes to itself, or a BatonError. */
function decodeOrBatonError(text: string): void {
  for (const decode of decoders) {
    let frame: unknown;
    try {
      frame = decode(text);
    } catch (error) {
      if (!isBatonError(error)) throw error;
      expect(error.message.length).toBeGreaterThan(0);
      continue;
    }
    decoded++;
    expect(decode(encodeMessage(frame as never))).toEqual(frame);
  }
}

/** Counts and versions, valid (non-negative safe integers) or not. */
const counts = fc.oneof(
  fc.nat(),
  fc.integer({ min: -3, max: 3 }),
  fc.constantFrom(2 ** 53 - 1, 2 ** 53, 1.5),
);
const spellings = fc.constantFrom('client', 'spaced', 'reordered');

/** `frame` as a client encodes it, spaced out, or with its keys in reverse order. */
function spell(frame: object, spelling: string): string {
  if (spelling === 'client') return JSON.stringify(frame);
  if (spelling === 'spaced') return JSON.stringify(frame, null, 1);
  return JSON.stringify(Object.fromEntries(Object.entries(frame).reverse()));
}

/**
 * How long 2,000 decodes may take in all: about a second on a quiet host, so only a decoder that
 * backtracks or recurses without bound reaches it; not a speed budget (bench/ holds those), and
 * far enough above it that a loaded host (a CI run beside other work) does not fail it.
 */
const PATHOLOGICAL_MS = 30_000;

describe('the decoders under fuzzing', () => {
  it('throw nothing but a BatonError for random text, quickly', () => {
    const started = performance.now();
    fc.assert(fc.property(anyText, decodeOrBatonError), { numRuns: 2_000 });
    expect(performance.now() - started).toBeLessThan(PATHOLOGICAL_MS);
  });

  it('throw nothing but a BatonError for random frames of known types and fields', () => {
    const started = performance.now();
    decoded = 0;
    fc.assert(fc.property(nearlyFrames, decodeOrBatonError), { numRuns: 2_000 });
    expect(decoded).toBeGreaterThan(500); // some random frames are valid: the checks are reached
    expect(performance.now() - started).toBeLessThan(PATHOLOGICAL_MS);
  });

  it('throw nothing but a BatonError for values that are not text', () => {
    fc.assert(
      fc.property(fc.anything(), (value) => decodeOrBatonError(value as string)),
      { numRuns: 500 },
    );
  });

  it('read an ack as its JSON says, in the spelling clients send or any other', () => {
    const acks = fc.record({
      id: fc.oneof(
        fc.string({ maxLength: 8 }),
        fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) }),
      ),
      version: counts,
      spelling: spellings,
    });
    fc.assert(
      fc.property(acks, ({ id, version, spelling }) => {
        const frame = { v: 1, type: 'ack', id, version };
        const text = spell(frame, spelling);
        const valid = id.length > 0 && Number.isSafeInteger(version) && version >= 0;
        if (valid) expect(decodeClientMessage(text)).toEqual(frame);
        else expect(() => decodeClientMessage(text)).toThrow(/"ack" frame: field/);
      }),
      { numRuns: 2_000 },
    );
    expect(decodeClientMessage('{"v":1,"type":"ack","id":"s\\u0031","version":3}')).toEqual({
      v: 1,
      type: 'ack',
      id: 's1',
      version: 3,
    });
    expect(() => decodeClientMessage('{"v":1,"type":"ack","id":"s1","version":03}')).toThrow(
      /not JSON/,
    );
  });

  it('read a received frame as its JSON says, in the spelling clients send or any other', () => {
    fc.assert(
      fc.property(fc.record({ frames: counts, spelling: spellings }), ({ frames, spelling }) => {
        const frame = { v: 1, type: 'received', frames };
        const text = spell(frame, spelling);
        const valid = Number.isSafeInteger(frames) && frames >= 0;
        if (valid) expect(decodeClientMessage(text)).toEqual(frame);
        else expect(() => decodeClientMessage(text)).toThrow(/"received" frame: field "frames"/);
      }),
      { numRuns: 1_000 },
    );
    expect(() => decodeClientMessage('{"v":1,"type":"received","frames":07}')).toThrow(/not JSON/);
  });

  it('decode a nested frame of the largest size without a stack overflow', () => {
    const depth = 60_000;
    const text = `{"v":1,"type":"reply","requestId":"r","value":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    expect(decodeServerMessage(text).type).toBe('reply');
  });
});
