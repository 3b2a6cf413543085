import { type BatonError, ErrorCode, toBatonError } from '@baton/core';
import type { ChunkAssembler } from './ChunkAssembler.ts';
import type { ClientMessage } from './clientMessages.ts';
import { decodeClientMessage } from './decodeFrame.ts';
import { MAX_ID_LENGTH } from './messages.ts';
import { ProtocolErrorReason, protocolError } from './ProtocolErrorReason.ts';

const utf8 = new TextDecoder();

/**
 * Who an error frame is about: one subscription (`id`), one request (`requestId`), or neither.
 *
 * @example
 * const target: ErrorTarget = { requestId: 'r1' };
 */
export interface ErrorTarget {
  readonly id?: string;
  readonly requestId?: string;
}

/**
 * A frame read: a message to handle, nothing yet (a chunk of more), a chunk that brought nothing
 * (`ignored`: a repeat, or of a message already whole), or an error to answer.
 *
 * @example
 * if (reading.kind === 'message') dispatch(reading.message);
 */
export type FrameReading =
  | { readonly kind: 'message'; readonly message: Exclude<ClientMessage, { type: 'chunk' }> }
  | { readonly kind: 'pending' }
  | { readonly kind: 'ignored' }
  | { readonly kind: 'error'; readonly error: BatonError; readonly target: ErrorTarget };

/**
 * Reads one WebSocket frame from a client: checks its size before turning it into text, decodes
 * it with `decodeClientMessage`, and passes `chunk` frames through the connection's assembler
 * (a whole message is decoded again, within the assembler's `maxMessageBytes`). Never throws: a
 * bad frame becomes an error with the subscription id (of a `subscribe`) or the request id (of a
 * `send`/`ask`) when the frame names one, so that only that subscription or request fails.
 *
 * @example
 * const reading = readClientFrame(data, isBinary, assembler, 128 * 1024);
 * if (reading.kind === 'error') reply({ v: 1, type: 'error', ...reading.target, error: reading.error.toJSON() });
 */
export function readClientFrame(
  data: Uint8Array,
  isBinary: boolean,
  assembler: ChunkAssembler,
  maxFrameBytes: number,
): FrameReading {
  if (isBinary) {
    const message = 'frames must be JSON text, got a binary frame';
    return failure(
      protocolError(ErrorCode.INVALID_PAYLOAD, ProtocolErrorReason.NOT_JSON, message),
      {},
    );
  }
  if (data.length > maxFrameBytes) {
    const message = `frame is ${data.length} bytes, over the ${maxFrameBytes}-byte limit; split it with splitFrame`;
    const error = protocolError(
      ErrorCode.MESSAGE_TOO_LARGE,
      ProtocolErrorReason.FRAME_TOO_LARGE,
      message,
      {
        bytes: data.length,
        limit: maxFrameBytes,
      },
    );
    return failure(error, {});
  }
  const text = utf8.decode(data);
  let message: ClientMessage;
  try {
    message = decodeClientMessage(text, { maxFrameBytes });
  } catch (error) {
    return failure(error, targetOf(text));
  }
  if (message.type !== 'chunk') return { kind: 'message', message };
  let whole: string | undefined;
  const ignored = assembler.ignored;
  try {
    whole = assembler.add(message);
  } catch (error) {
    return failure(error, {});
  }
  if (whole === undefined) return { kind: assembler.ignored > ignored ? 'ignored' : 'pending' };
  let inner: ClientMessage;
  try {
    inner = decodeClientMessage(whole, { maxFrameBytes: assembler.maxMessageBytes });
  } catch (error) {
    return failure(error, targetOf(whole));
  }
  if (inner.type === 'chunk') {
    const problem = `chunked message ${JSON.stringify(message.chunkId)} holds a chunk; chunks do not nest`;
    const error = protocolError(
      ErrorCode.INVALID_PAYLOAD,
      ProtocolErrorReason.INVALID_CHUNK,
      problem,
      {
        chunkId: message.chunkId,
      },
    );
    return failure(error, {});
  }
  return { kind: 'message', message: inner };
}

/**
 * The subscription or request a refused frame was about, read leniently from its JSON: the `id`
 * of a `subscribe` (not of an `ack` or `unsubscribe`, whose errors would otherwise fail a live
 * subscription), the `requestId` of a `send` or `ask`.
 */
function targetOf(text: string): ErrorTarget {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return {};
  }
  if (typeof raw !== 'object' || raw === null) return {};
  const { type, id, requestId } = raw as Record<string, unknown>;
  if (type === 'subscribe' && isName(id)) return { id };
  if ((type === 'send' || type === 'ask') && isName(requestId)) return { requestId };
  return {};
}

function isName(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_ID_LENGTH;
}

function failure(error: unknown, target: ErrorTarget): FrameReading {
  return { kind: 'error', error: toBatonError(error), target };
}
