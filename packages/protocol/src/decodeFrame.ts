import { ErrorCode } from '@baton/core';
import { utf8ByteLength } from '@baton/core/shared';
import type { ClientMessage } from './clientMessages.ts';
import {
  CLIENT_SPECS,
  describe,
  type FrameSpec,
  isRecord,
  readFields,
  SERVER_SPECS,
} from './internal/frameFields.ts';
import { MAX_FRAME_BYTES, type Message, PROTOCOL_VERSION, SUPPORTED_VERSIONS } from './messages.ts';
import { ProtocolErrorReason, protocolError } from './ProtocolErrorReason.ts';
import type { ServerMessage } from './serverMessages.ts';

export interface DecodeOptions {
  /**
   * The largest frame accepted, in UTF-8 bytes. Pass a reassembled chunked message with the
   * assembler's `maxMessageBytes`. @default MAX_FRAME_BYTES (128 KiB, API Gateway's limit)
   */
  readonly maxFrameBytes?: number;
}

/**
 * Decodes and checks one frame a client sent. Throws a BatonError for anything else, with
 * `details.reason` from {@link ProtocolErrorReason}: MESSAGE_TOO_LARGE for a frame over
 * `maxFrameBytes`, INVALID_PAYLOAD for text that is not JSON, not an object, of another
 * protocol version, of an unknown type, or with a missing or mistyped field (named in the
 * message and in `details.field`). Unknown extra fields are dropped.
 *
 * @example
 * const message = decodeClientMessage('{"v":1,"type":"unsubscribe","id":"s1"}');
 * if (message.type === 'unsubscribe') subscriptions.delete(message.id);
 */
export function decodeClientMessage(text: string, options: DecodeOptions = {}): ClientMessage {
  return decode(text, CLIENT_SPECS, 'client', options) as ClientMessage;
}

/**
 * Decodes and checks one frame a server sent; the same checks as {@link decodeClientMessage}.
 *
 * @example
 * const message = decodeServerMessage('{"v":1,"type":"pong","t":1718000000000}');
 * if (message.type === 'pong') console.log('round trip', Date.now() - message.t, 'ms');
 */
export function decodeServerMessage(text: string, options: DecodeOptions = {}): ServerMessage {
  return decode(text, SERVER_SPECS, 'server', options) as ServerMessage;
}

/**
 * Encodes a frame as JSON text; fields that are `undefined` are left out. Split the text with
 * `splitFrame` before sending if it may pass the frame limit. Throws a BatonError
 * (INVALID_PAYLOAD, reason NOT_ENCODABLE) for values JSON cannot hold, such as a BigInt.
 *
 * @example
 * socket.send(encodeMessage({ v: PROTOCOL_VERSION, type: 'ping', t: Date.now() }));
 */
export function encodeMessage(message: Message): string {
  try {
    return JSON.stringify(message);
  } catch (error) {
    throw protocolError(
      ErrorCode.INVALID_PAYLOAD,
      ProtocolErrorReason.NOT_ENCODABLE,
      `"${message.type}" frame cannot be encoded as JSON: ${(error as Error).message}`,
      { type: message.type },
    );
  }
}

function decode(
  text: string,
  specs: ReadonlyMap<string, FrameSpec>,
  side: 'client' | 'server',
  options: DecodeOptions,
): Message {
  if (typeof text !== 'string') {
    throw protocolError(
      ErrorCode.INVALID_PAYLOAD,
      ProtocolErrorReason.NOT_JSON,
      `frame must be text, got ${describe(text)}`,
    );
  }
  checkSize(text, options.maxFrameBytes ?? MAX_FRAME_BYTES);
  if (side === 'client') {
    const ack = readAck(text) ?? readReceived(text);
    if (ack) return ack;
  }
  const raw = parse(text);
  if (!isRecord(raw)) {
    throw protocolError(
      ErrorCode.INVALID_PAYLOAD,
      ProtocolErrorReason.NOT_AN_OBJECT,
      `frame must be a JSON object, got ${describe(raw)}`,
    );
  }
  if (raw.v !== PROTOCOL_VERSION) {
    const what =
      raw.v === undefined
        ? 'has no protocol version "v"'
        : `has protocol version ${describe(raw.v)}`;
    throw protocolError(
      ErrorCode.INVALID_PAYLOAD,
      ProtocolErrorReason.UNSUPPORTED_VERSION,
      `frame ${what}; supported versions: ${SUPPORTED_VERSIONS.join(', ')}`,
      { supported: SUPPORTED_VERSIONS },
    );
  }
  const type = raw.type;
  const spec = typeof type === 'string' ? specs.get(type) : undefined;
  if (spec === undefined) {
    throw protocolError(
      ErrorCode.INVALID_PAYLOAD,
      ProtocolErrorReason.UNKNOWN_TYPE,
      `frame type ${describe(type)} is not one a ${side} sends; expected one of: ${[...specs.keys()].join(', ')}`,
      { expected: [...specs.keys()] },
    );
  }
  const out: Record<string, unknown> = { v: PROTOCOL_VERSION, type };
  readFields(type as string, spec, raw, out);
  checkRelations(out);
  return out as unknown as Message;
}

/**
 * An `ack` is most of what a client sends (one per push it gets): spelled as clients encode it —
 * `{"v":1,"type":"ack","id":"s1","version":3}`, an id of printable ASCII but `"` and `\` — it is
 * read without parsing it as JSON, with the same result. Anything else goes the general way.
 */
const ACK =
  /^\{"v":1,"type":"ack","id":"([\x20\x21\x23-\x5b\x5d-\x7e]+)","version":(0|[1-9]\d{0,14})\}$/;

function readAck(text: string): Message | undefined {
  const match = ACK.exec(text);
  if (match === null) return undefined;
  return { v: PROTOCOL_VERSION, type: 'ack', id: match[1]!, version: Number(match[2]) };
}

/** `received`, read as `ack` is: `{"v":1,"type":"received","frames":57}`. */
const RECEIVED = /^\{"v":1,"type":"received","frames":(0|[1-9]\d{0,14})\}$/;

function readReceived(text: string): Message | undefined {
  const match = RECEIVED.exec(text);
  if (match === null) return undefined;
  return { v: PROTOCOL_VERSION, type: 'received', frames: Number(match[1]) };
}

function checkSize(text: string, max: number): void {
  // A UTF-16 unit is 1 to 3 UTF-8 bytes: most frames are decided without counting.
  if (text.length * 3 <= max) return;
  const bytes = text.length > max ? text.length : utf8ByteLength(text);
  if (bytes <= max) return;
  throw protocolError(
    ErrorCode.MESSAGE_TOO_LARGE,
    ProtocolErrorReason.FRAME_TOO_LARGE,
    `frame is ${text.length > max ? 'at least ' : ''}${bytes} bytes, over the ${max}-byte limit; split it with splitFrame`,
    { bytes, limit: max },
  );
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw protocolError(
      ErrorCode.INVALID_PAYLOAD,
      ProtocolErrorReason.NOT_JSON,
      `frame is not JSON: ${reason.slice(0, 120)}`,
    );
  }
}

/** Rules across fields, after each field's own check. */
function checkRelations(message: Record<string, unknown>): void {
  if (message.type === 'chunk' && (message.index as number) >= (message.count as number)) {
    throw protocolError(
      ErrorCode.INVALID_PAYLOAD,
      ProtocolErrorReason.INVALID_FIELD,
      `"chunk" frame: field "index" must be below "count" (${message.count}), got ${message.index}`,
      { type: 'chunk', field: 'index', expected: 'an integer below count' },
    );
  }
  if (message.type === 'error' && message.id !== undefined && message.requestId !== undefined) {
    throw protocolError(
      ErrorCode.INVALID_PAYLOAD,
      ProtocolErrorReason.INVALID_FIELD,
      '"error" frame: field "requestId" must be absent when "id" is set: an error concerns one subscription or one request',
      { type: 'error', field: 'requestId', expected: 'absent when id is set' },
    );
  }
}
