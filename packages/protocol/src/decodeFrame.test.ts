import { ErrorCode, isBatonError, MAX_ACTOR_KEY_BYTES, MAX_NAME_LENGTH } from '@baton/core';
import { describe, expect, it } from 'vitest';
import type { ClientMessage } from './clientMessages.ts';
import { decodeClientMessage, decodeServerMessage, encodeMessage } from './decodeFrame.ts';
import { CLIENT_MESSAGE_TYPES, SERVER_MESSAGE_TYPES } from './messages.ts';
import { ProtocolErrorReason } from './ProtocolErrorReason.ts';
import type { ServerMessage } from './serverMessages.ts';

const chunk = { v: 1, type: 'chunk', chunkId: 'k-1', index: 1, count: 3, data: '"ty' } as const;

const clientFrames: ClientMessage[] = [
  { v: 1, type: 'subscribe', id: 's1', query: 'balance', args: { account: 'alice' } },
  {
    v: 1,
    type: 'subscribe',
    id: 's2',
    query: 'all',
    args: null,
    resume: { version: 7, hash: 'h' },
  },
  { v: 1, type: 'unsubscribe', id: 's1' },
  {
    v: 1,
    type: 'send',
    requestId: 'r1',
    to: 'account/alice',
    name: 'deposit',
    payload: { amount: 5 },
    idempotencyKey: 'dep-1',
    visible: true,
    traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
  },
  { v: 1, type: 'ask', requestId: 'r2', to: 'a/b', name: 'get', payload: [], idempotencyKey: 'k' },
  { v: 1, type: 'ack', id: 's1', version: 8 },
  { v: 1, type: 'acks', versions: { s1: 8, s2: 3, ['__proto__']: 1 } },
  { v: 1, type: 'received', frames: 57 },
  { v: 1, type: 'ping', t: 1718000000000 },
  chunk,
];

const serverFrames: ServerMessage[] = [
  { v: 1, type: 'result', id: 's1', version: 8, hash: 'a1', value: { balance: 30 } },
  {
    v: 1,
    type: 'patch',
    id: 's1',
    version: 9,
    hash: 'c3',
    baseVersion: 8,
    ops: [
      { op: 'replace', path: '/balance', value: 35 },
      { op: 'add', path: '/history/-', value: { amount: 5 } },
      { op: 'remove', path: '/pending' },
    ],
  },
  { v: 1, type: 'unchanged', id: 's1', version: 9, hash: 'c3' },
  { v: 1, type: 'error', id: 's1', error: { code: 'REJECTED', message: 'no', details: {} } },
  {
    v: 1,
    type: 'error',
    requestId: 'r1',
    error: { code: 'NOT_FOUND', message: 'x', details: { a: 1 } },
  },
  { v: 1, type: 'error', error: { code: 'INVALID_PAYLOAD', message: 'bad frame', details: {} } },
  { v: 1, type: 'accepted', requestId: 'r1', messageId: 'dep-1' },
  { v: 1, type: 'reply', requestId: 'r2', value: 30 },
  { v: 1, type: 'visible', requestId: 'r1', messageId: 'dep-1' },
  { v: 1, type: 'pong', t: 1718000000000 },
  chunk,
];

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

describe('encodeMessage and the decoders', () => {
  it('round-trip every frame a client sends', () => {
    expect(new Set(clientFrames.map((m) => m.type))).toEqual(new Set(CLIENT_MESSAGE_TYPES));
    for (const frame of clientFrames)
      expect(decodeClientMessage(encodeMessage(frame))).toEqual(frame);
  });

  it('round-trip every frame a server sends', () => {
    expect(new Set(serverFrames.map((m) => m.type))).toEqual(new Set(SERVER_MESSAGE_TYPES));
    for (const frame of serverFrames)
      expect(decodeServerMessage(encodeMessage(frame))).toEqual(frame);
  });

  it('keep a missing payload or value as undefined and fill in missing error details', () => {
    const reply = decodeServerMessage('{"v":1,"type":"reply","requestId":"r"}');
    expect(reply).toEqual({ v: 1, type: 'reply', requestId: 'r' });
    const error = decodeServerMessage('{"v":1,"type":"error","error":{"code":"X","message":"m"}}');
    expect(error).toMatchObject({ error: { code: 'X', message: 'm', details: {} } });
  });

  it('take names and actor ids as long as the app may define them', () => {
    const name = 'n'.repeat(MAX_NAME_LENGTH);
    const to = `${'t'.repeat(MAX_NAME_LENGTH)}/${'k'.repeat(MAX_ACTOR_KEY_BYTES)}`;
    const send = { v: 1, type: 'send', requestId: 'r', to, name, idempotencyKey: 'k' } as const;
    expect(decodeClientMessage(JSON.stringify(send))).toEqual(send);
    const subscribe = { v: 1, type: 'subscribe', id: 's', query: name, args: {} } as const;
    expect(decodeClientMessage(JSON.stringify(subscribe))).toEqual(subscribe);
  });

  it('drop fields the protocol does not know', () => {
    const frame = decodeClientMessage('{"v":1,"type":"ping","t":1,"extra":true}');
    expect(frame).toEqual({ v: 1, type: 'ping', t: 1 });
  });

  it('refuse to encode a value JSON cannot hold', () => {
    const error = thrown(() =>
      encodeMessage({ v: 1, type: 'reply', requestId: 'r', value: { n: BigInt(1) } }),
    );
    expect(error.code).toBe(ErrorCode.INVALID_PAYLOAD);
    expect(error.details.reason).toBe(ProtocolErrorReason.NOT_ENCODABLE);
  });
});
