import { BatonError, ErrorCode } from '@baton/core';
import { fitsUtf8, isHighSurrogate, isLowSurrogate, utf8ByteLength } from '@baton/core/shared';
import { type ChunkMessage, MAX_FRAME_BYTES, PROTOCOL_VERSION } from './messages.ts';

export interface SplitFrameOptions {
  /** Names the pieces; unique per sender and connection. @default a random prefix and a counter */
  readonly chunkId?: string;
}

/**
 * Splits an encoded frame into frames of at most `maxBytes` UTF-8 bytes each: the text itself
 * when it fits, else `chunk` frames whose `data` joined in `index` order is the text. Bytes are
 * counted as sent (UTF-8, after JSON escaping of `data`), and a character — a surrogate pair
 * included — is never split. Reassemble with {@link ChunkAssembler}.
 *
 * @example
 * for (const frame of splitFrame(encodeMessage(result))) socket.send(frame);
 */
export function splitFrame(
  text: string,
  maxBytes: number = MAX_FRAME_BYTES,
  options: SplitFrameOptions = {},
): string[] {
  if (fitsUtf8(text, maxBytes)) return [text];
  const chunkId = options.chunkId ?? nextChunkId();
  // The envelope around `data`, with one digit each for index and count.
  const envelope = utf8ByteLength(encodeChunk(chunkId, 0, 0, '')) - 2;
  let digits = 1;
  for (;;) {
    const capacity = maxBytes - envelope - 2 * digits;
    if (capacity < MAX_CHARACTER_COST) {
      throw new BatonError(
        ErrorCode.INVALID_ARGUMENT,
        `splitFrame: maxBytes ${maxBytes} cannot hold a chunk frame (at least ${envelope + 2 * digits + MAX_CHARACTER_COST} bytes with chunkId ${JSON.stringify(chunkId)})`,
        { details: { maxBytes } },
      );
    }
    const pieces = cut(text, capacity);
    const count = pieces.length;
    // More pieces than the digits budgeted for: budget more and cut again (rarely twice).
    if (String(count).length > digits) {
      digits = String(count).length;
      continue;
    }
    return pieces.map((data, index) => encodeChunk(chunkId, index, count, data));
  }
}

function encodeChunk(chunkId: string, index: number, count: number, data: string): string {
  const chunk: ChunkMessage = { v: PROTOCOL_VERSION, type: 'chunk', chunkId, index, count, data };
  return JSON.stringify(chunk);
}

/** The most one character costs inside a JSON string: `\u0001` or an escaped lone surrogate. */
const MAX_CHARACTER_COST = 6;

/** Cuts `text` into pieces whose JSON-escaped UTF-8 size is at most `capacity` each. */
function cut(text: string, capacity: number): string[] {
  const pieces: string[] = [];
  let start = 0;
  let used = 0;
  let i = 0;
  while (i < text.length) {
    const unit = text.charCodeAt(i);
    let width = 1;
    let cost: number;
    if (unit < 0x80)
      cost = unit === 0x22 || unit === 0x5c ? 2 : unit < 0x20 ? controlCost(unit) : 1;
    else if (unit < 0x800) cost = 2;
    else if (isHighSurrogate(unit) && isLowSurrogate(text.charCodeAt(i + 1))) {
      cost = 4;
      width = 2;
    } else if (isHighSurrogate(unit) || isLowSurrogate(unit))
      cost = 6; // JSON escapes it
    else cost = 3;
    if (used + cost > capacity) {
      pieces.push(text.slice(start, i));
      start = i;
      used = 0;
    }
    used += cost;
    i += width;
  }
  pieces.push(text.slice(start));
  return pieces;
}

/** `\b \t \n \f \r` escape to two characters, other control characters to `\u00XX`. */
function controlCost(unit: number): number {
  return unit === 8 || unit === 9 || unit === 10 || unit === 12 || unit === 13 ? 2 : 6;
}

const prefix = Math.random().toString(36).slice(2, 10);
let counter = 0;

function nextChunkId(): string {
  counter += 1;
  return `${prefix}-${counter.toString(36)}`;
}
