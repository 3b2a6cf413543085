import { ErrorCode, isBatonError } from '@baton/core';
import { describe, expect, it } from 'vitest';
import { decodeClientMessage, decodeServerMessage } from './decodeFrame.ts';
import { MAX_FRAME_BYTES } from './messages.ts';
import { ProtocolErrorReason } from './ProtocolErrorReason.ts';

/** The BatonError a call throws (fails the test when it throws anything else or nothing). */
function thrown(call: () => unknown) {
  try {
    call();
  } catch (error) {
    if (isBatonError(error)) return error;
    throw error;
  }
  throw new Error('expected a BatonError, nothing was thrown');
}

describe('the decoders refuse', () => {
  const cases: [string, string, string, ProtocolErrorReason, RegExp][] = [
    ['text that is not JSON', '{"v":1,', ErrorCode.INVALID_PAYLOAD, 'NOT_JSON', /not JSON/],
    [
      'JSON that is not an object',
      '[1,2]',
      ErrorCode.INVALID_PAYLOAD,
      'NOT_AN_OBJECT',
      /got an array/,
    ],
    ['null', 'null', ErrorCode.INVALID_PAYLOAD, 'NOT_AN_OBJECT', /got null/],
    [
      'a frame without v',
      '{"type":"ping","t":1}',
      'INVALID_PAYLOAD',
      'UNSUPPORTED_VERSION',
      /no protocol version "v"; supported versions: 1/,
    ],
    [
      'a frame of another version',
      '{"v":2,"type":"ping","t":1}',
      'INVALID_PAYLOAD',
      'UNSUPPORTED_VERSION',
      /version number 2; supported versions: 1/,
    ],
    [
      'a frame without type',
      '{"v":1}',
      'INVALID_PAYLOAD',
      'UNKNOWN_TYPE',
      /type nothing is not one a client sends; expected one of: subscribe, /,
    ],
    [
      'an unknown type',
      '{"v":1,"type":"hello"}',
      'INVALID_PAYLOAD',
      'UNKNOWN_TYPE',
      /"hello" is not one a client sends/,
    ],
    [
      'a server type from a client',
      '{"v":1,"type":"result"}',
      'INVALID_PAYLOAD',
      'UNKNOWN_TYPE',
      /"result"/,
    ],
    [
      'a missing field',
      '{"v":1,"type":"unsubscribe"}',
      'INVALID_PAYLOAD',
      'INVALID_FIELD',
      /field "id" must be a non-empty string of at most 256 characters, got nothing/,
    ],
    [
      'a missing field, naming the fields the frame has that its type does not (a misspelt one)',
      '{"v":1,"type":"unsubscribe","ID":"s1","extra":1}',
      'INVALID_PAYLOAD',
      'INVALID_FIELD',
      /^"unsubscribe" frame: field "id" must be a non-empty string of at most 256 characters, got nothing; the frame has fields "unsubscribe" frames do not: "ID", "extra" \(misspelt\?\)$/,
    ],
    [
      'an empty id',
      '{"v":1,"type":"unsubscribe","id":""}',
      'INVALID_PAYLOAD',
      'INVALID_FIELD',
      /field "id" must be a non-empty string of at most 256 characters, got ""/,
    ],
    [
      'a mistyped field',
      '{"v":1,"type":"ping","t":"now"}',
      'INVALID_PAYLOAD',
      'INVALID_FIELD',
      /"ping" frame: field "t" must be a finite number, got "now"/,
    ],
    [
      'a negative version',
      '{"v":1,"type":"ack","id":"s","version":-1}',
      'INVALID_PAYLOAD',
      'INVALID_FIELD',
      /field "version" must be a non-negative integer, got number -1/,
    ],
    [
      'a mistyped nested field',
      '{"v":1,"type":"subscribe","id":"s","query":"q","resume":{"version":1,"hash":2}}',
      'INVALID_PAYLOAD',
      'INVALID_FIELD',
      /field "resume.hash" must be a string/,
    ],
    [
      'a non-boolean visible',
      '{"v":1,"type":"send","requestId":"r","to":"a/b","name":"n","idempotencyKey":"k","visible":1}',
      'INVALID_PAYLOAD',
      'INVALID_FIELD',
      /field "visible" must be a boolean/,
    ],
    [
      'a traceparent that is not a string',
      '{"v":1,"type":"ask","requestId":"r","to":"a/b","name":"n","idempotencyKey":"k","traceparent":7}',
      'INVALID_PAYLOAD',
      'INVALID_FIELD',
      /field "traceparent" must be a string/,
    ],
    [
      'a chunk index past its count',
      '{"v":1,"type":"chunk","chunkId":"c","index":2,"count":2,"data":"x"}',
      'INVALID_PAYLOAD',
      'INVALID_FIELD',
      /field "index" must be below "count" \(2\), got 2/,
    ],
    [
      'an acks frame with no entry',
      '{"v":1,"type":"acks","versions":{}}',
      'INVALID_PAYLOAD',
      'INVALID_FIELD',
      /"acks" frame: field "versions" must be an object of at least one subscription id to its version, got an object/,
    ],
    [
      'an acks frame with a version that is not a non-negative integer',
      '{"v":1,"type":"acks","versions":{"s1":3,"s2":-1}}',
      'INVALID_PAYLOAD',
      'INVALID_FIELD',
      /field "versions.s2" must be a non-negative integer, got number -1/,
    ],
    [
      'an acks frame with an empty subscription id',
      '{"v":1,"type":"acks","versions":{"":3}}',
      'INVALID_PAYLOAD',
      'INVALID_FIELD',
      /field "versions\[""\]" must be a non-empty subscription id/,
    ],
    [
      'an acks frame whose versions are a list',
      '{"v":1,"type":"acks","versions":[["s1",3]]}',
      'INVALID_PAYLOAD',
      'INVALID_FIELD',
      /field "versions" must be an object of at least one subscription id to its version, got an array/,
    ],
    [
      'a received frame without its count',
      '{"v":1,"type":"received"}',
      'INVALID_PAYLOAD',
      'INVALID_FIELD',
      /"received" frame: field "frames" must be a non-negative integer, got nothing/,
    ],
    [
      'a query name over 128 characters',
      `{"v":1,"type":"subscribe","id":"s","query":"${'q'.repeat(129)}","args":{}}`,
      'INVALID_PAYLOAD',
      'INVALID_FIELD',
      /"subscribe" frame: field "query" must be a non-empty string of at most 128 characters, got a string of 129 characters/,
    ],
    [
      'a handler name over 128 characters',
      `{"v":1,"type":"send","requestId":"r","to":"a/b","name":"${'n'.repeat(129)}","idempotencyKey":"k"}`,
      'INVALID_PAYLOAD',
      'INVALID_FIELD',
      /"send" frame: field "name" must be a non-empty string of at most 128 characters/,
    ],
    [
      'an actor id longer than a name, "/" and the longest key',
      `{"v":1,"type":"ask","requestId":"r","to":"a/${'k'.repeat(1152)}","name":"n","idempotencyKey":"k"}`,
      'INVALID_PAYLOAD',
      'INVALID_FIELD',
      /"ask" frame: field "to" must be an actor id "type\/key" of at most 1153 characters, got a string of 1154 characters/,
    ],
    [
      'a zero chunk count',
      '{"v":1,"type":"chunk","chunkId":"c","index":0,"count":0,"data":"x"}',
      'INVALID_PAYLOAD',
      'INVALID_FIELD',
      /field "count" must be a positive integer/,
    ],
  ];

  for (const [what, text, code, reason, message] of cases) {
    it(`${what} with ${code} (${reason}) and a message naming the problem`, () => {
      const error = thrown(() => decodeClientMessage(text));
      expect(error.code).toBe(code);
      expect(error.details.reason).toBe(reason);
      expect(error.message).toMatch(message);
    });
  }

  it('a frame over the limit with MESSAGE_TOO_LARGE before parsing it', () => {
    const text = `{"v":1,"type":"ping","t":1,"pad":"${'é'.repeat(MAX_FRAME_BYTES / 2)}"}`;
    const error = thrown(() => decodeClientMessage(text));
    expect(error.code).toBe(ErrorCode.MESSAGE_TOO_LARGE);
    expect(error.message).toMatch(/over the 131072-byte limit/);
    expect(thrown(() => decodeClientMessage('x'.repeat(200), { maxFrameBytes: 100 })).code).toBe(
      ErrorCode.MESSAGE_TOO_LARGE,
    );
    expect(decodeClientMessage('{"v":1,"type":"ping","t":1}', { maxFrameBytes: 27 }).type).toBe(
      'ping',
    );
  });

  it('a bad patch operation, naming its index and field', () => {
    const ops = [
      { op: 'add', path: '/a', value: 1 },
      { op: 'move', path: '/b' },
    ];
    const text = JSON.stringify({
      v: 1,
      type: 'patch',
      id: 's',
      version: 2,
      hash: 'h',
      baseVersion: 1,
      ops,
    });
    expect(thrown(() => decodeServerMessage(text)).message).toMatch(
      /field "ops\[1\]\.op" must be "add", "remove" or "replace", got "move"/,
    );
    const noValue = text.replace('"value":1', '"nothing":1');
    expect(thrown(() => decodeServerMessage(noValue)).message).toMatch(
      /"ops\[0\]\.value" must be a JSON value/,
    );
    const badPath = text.replace('"/a"', '"a"');
    expect(thrown(() => decodeServerMessage(badPath)).message).toMatch(
      /"ops\[0\]\.path" must be a JSON Pointer/,
    );
  });

  it('an error frame naming both a subscription and a request', () => {
    const text =
      '{"v":1,"type":"error","id":"s","requestId":"r","error":{"code":"X","message":"m"}}';
    expect(thrown(() => decodeServerMessage(text)).details).toMatchObject({ field: 'requestId' });
  });

  it('an error frame whose error is not an object, or whose details are not one', () => {
    expect(
      thrown(() => decodeServerMessage('{"v":1,"type":"error","error":"boom"}')).message,
    ).toMatch(/field "error" must be an object \{ code, message, details \}, got "boom"/);
    const text = '{"v":1,"type":"error","error":{"code":"X","message":"m","details":[]}}';
    expect(thrown(() => decodeServerMessage(text)).details).toMatchObject({
      field: 'error.details',
    });
  });

  it('input that is not text at all', () => {
    const error = thrown(() => decodeClientMessage(42 as unknown as string));
    expect(error.details.reason).toBe(ProtocolErrorReason.NOT_JSON);
  });
});
