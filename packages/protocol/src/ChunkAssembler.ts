import { type BatonError, ErrorCode } from '@baton/core';
import { utf8ByteLength } from '@baton/core/shared';
import type { ByteBudget } from './ByteBudget.ts';
import type { ChunkMessage } from './messages.ts';
import { ProtocolErrorReason, protocolError } from './ProtocolErrorReason.ts';

export interface ChunkAssemblerOptions {
  /** The largest reassembled message, in UTF-8 bytes. @default 8 MiB */
  readonly maxMessageBytes?: number;
  /** The most bytes held across all incomplete messages. @default 16 MiB */
  readonly maxBufferedBytes?: number;
  /**
   * A limit shared with other assemblers (a server's, for all its connections): the bytes this
   * one holds count against it too.
   */
  readonly shared?: ByteBudget;
  /** The most incomplete messages held at once. @default 8 */
  readonly maxPending?: number;
  /** How long a message may take to arrive in full, from its first chunk. @default 30 s */
  readonly timeoutMs?: number;
  /** Told of each incomplete message dropped for its timeout (e.g. to send an `error` frame). */
  readonly onExpire?: (error: BatonError) => void;
  /** @default Date.now */
  readonly now?: () => number;
}

interface Pending {
  readonly count: number;
  readonly parts: Map<number, string>;
  readonly startedAt: number;
  bytes: number;
}

/**
 * What holding one chunk costs beside its text (a map entry, a string's header). The chunks an
 * assembler holds are at most `maxBufferedBytes` of it: a peer sending many one-byte chunks then
 * holds about twice the memory the limit says, not tens of times more.
 */
export const CHUNK_OVERHEAD_BYTES = 64;

/** How many finished or dropped chunk ids are remembered, so late duplicates are ignored. */
const RECENT_LIMIT = 256;

/**
 * Reassembles frames split by `splitFrame`, one assembler per connection and direction.
 * Chunks may arrive in any order; a duplicate of a chunk already held, or of a message already
 * finished or dropped, is ignored. `add` throws a BatonError (and drops that message) for a
 * chunk that contradicts its siblings (INVALID_PAYLOAD), a message over `maxMessageBytes`
 * (MESSAGE_TOO_LARGE), or full buffers (UNAVAILABLE, retryable); messages not complete within
 * `timeoutMs` are dropped and reported to `onExpire`.
 *
 * @example
 * const assembler = new ChunkAssembler({ onExpire: (error) => reportToClient(error) });
 * let message = decodeClientMessage(text);
 * if (message.type === 'chunk') {
 *   const whole = assembler.add(message);
 *   if (whole === undefined) return; // more chunks to come
 *   message = decodeClientMessage(whole, { maxFrameBytes: assembler.maxMessageBytes });
 * }
 */
export class ChunkAssembler {
  readonly maxMessageBytes: number;
  readonly maxBufferedBytes: number;
  readonly maxPending: number;
  readonly timeoutMs: number;
  readonly #onExpire: ((error: BatonError) => void) | undefined;
  readonly #now: () => number;
  readonly #shared: ByteBudget | undefined;
  readonly #pending = new Map<string, Pending>();
  readonly #recent = new Set<string>();
  #ignored = 0;
  #buffered = 0;
  /** Chunks held, across the incomplete messages. */
  #chunks = 0;

  constructor(options: ChunkAssemblerOptions = {}) {
    this.maxMessageBytes = options.maxMessageBytes ?? 8 * 1024 * 1024;
    this.maxBufferedBytes = options.maxBufferedBytes ?? 16 * 1024 * 1024;
    this.maxPending = options.maxPending ?? 8;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.#onExpire = options.onExpire;
    this.#now = options.now ?? Date.now;
    this.#shared = options.shared;
  }

  /** How many messages are incomplete. */
  get pending(): number {
    return this.#pending.size;
  }

  /**
   * Chunks ignored so far: repeats of a chunk held already, and chunks of a message already whole
   * or dropped. A host counts them against its frame rate, as they bring nothing new.
   */
  get ignored(): number {
    return this.#ignored;
  }

  /** The UTF-8 bytes held for incomplete messages. */
  get bufferedBytes(): number {
    return this.#buffered;
  }

  /** Takes one chunk; returns the whole message's text once its last chunk is in. */
  add(chunk: ChunkMessage): string | undefined {
    for (const error of this.evictExpired()) this.#onExpire?.(error);
    const { chunkId, index, count, data } = chunk;
    if (this.#recent.has(chunkId)) {
      this.#ignored++;
      return undefined;
    }
    let entry = this.#pending.get(chunkId);
    if (entry === undefined) {
      if (count > this.maxMessageBytes) {
        throw this.#drop(chunkId, this.#tooLarge(chunkId, count, 'chunks'));
      }
      if (count > this.#maxChunks) {
        throw this.#drop(chunkId, this.#tooManyChunks(chunkId, count));
      }
      if (this.#pending.size >= this.maxPending) {
        throw this.#drop(
          chunkId,
          this.#full(chunkId, `the assembler already holds ${this.maxPending} incomplete messages`),
        );
      }
      entry = { count, parts: new Map(), startedAt: this.#now(), bytes: 0 };
      this.#pending.set(chunkId, entry);
    }
    if (data.length === 0)
      throw this.#drop(chunkId, this.#invalid(chunkId, `chunk ${index} has no data`));
    if (count !== entry.count) {
      const problem = `chunk ${index} says count ${count}, an earlier one ${entry.count}`;
      throw this.#drop(chunkId, this.#invalid(chunkId, problem));
    }
    const held = entry.parts.get(index);
    if (held !== undefined) {
      if (held === data) {
        this.#ignored++;
        return undefined;
      }
      throw this.#drop(
        chunkId,
        this.#invalid(chunkId, `chunk ${index} came twice with different data`),
      );
    }
    const bytes = utf8ByteLength(data);
    if (entry.bytes + bytes > this.maxMessageBytes) {
      throw this.#drop(chunkId, this.#tooLarge(chunkId, entry.bytes + bytes, 'bytes'));
    }
    if (this.#chunks >= this.#maxChunks) {
      const held = `the assembler already holds ${this.#maxChunks} chunks`;
      throw this.#drop(chunkId, this.#full(chunkId, held));
    }
    if (this.#buffered + bytes > this.maxBufferedBytes) {
      throw this.#drop(
        chunkId,
        this.#full(chunkId, `the assembler already holds ${this.maxBufferedBytes} bytes`),
      );
    }
    if (this.#shared && !this.#shared.take(bytes)) {
      const held = `the host already holds ${this.#shared.limit} bytes of chunked messages in all`;
      throw this.#drop(chunkId, this.#full(chunkId, held));
    }
    entry.parts.set(index, data);
    entry.bytes += bytes;
    this.#buffered += bytes;
    this.#chunks++;
    if (entry.parts.size < count) return undefined;
    const parts: string[] = [];
    for (let i = 0; i < count; i++) parts.push(entry.parts.get(i)!);
    this.#forget(chunkId);
    return parts.join('');
  }

  /**
   * Drops the messages whose time ran out and returns one UNAVAILABLE error for each (`add`
   * does this too). Call it from a timer to free memory on a quiet connection.
   */
  evictExpired(): BatonError[] {
    const errors: BatonError[] = [];
    const now = this.#now();
    for (const [chunkId, entry] of this.#pending) {
      if (now - entry.startedAt < this.timeoutMs) continue;
      this.#forget(chunkId);
      const message = `chunked message ${JSON.stringify(chunkId)} was dropped: ${entry.parts.size} of ${entry.count} chunks arrived within ${this.timeoutMs} ms`;
      errors.push(
        protocolError(ErrorCode.UNAVAILABLE, ProtocolErrorReason.CHUNK_TIMEOUT, message, {
          chunkId,
          received: entry.parts.size,
          count: entry.count,
        }),
      );
    }
    return errors;
  }

  /** Drops every incomplete message (e.g. when the connection closes). */
  clear(): void {
    this.#pending.clear();
    this.#recent.clear();
    this.#shared?.give(this.#buffered);
    this.#buffered = 0;
    this.#chunks = 0;
  }

  /** The most chunks held at once (see {@link CHUNK_OVERHEAD_BYTES}); 64 at least. */
  get #maxChunks(): number {
    return Math.max(64, Math.floor(this.maxBufferedBytes / CHUNK_OVERHEAD_BYTES));
  }

  /** Removes a message and remembers its id, so late duplicates of its chunks are ignored. */
  #forget(chunkId: string): void {
    const entry = this.#pending.get(chunkId);
    if (entry !== undefined) {
      this.#buffered -= entry.bytes;
      this.#chunks -= entry.parts.size;
      this.#shared?.give(entry.bytes);
    }
    this.#pending.delete(chunkId);
    this.#recent.add(chunkId);
    if (this.#recent.size > RECENT_LIMIT) {
      this.#recent.delete(this.#recent.values().next().value!);
    }
  }

  #drop(chunkId: string, error: BatonError): BatonError {
    this.#forget(chunkId);
    return error;
  }

  #invalid(chunkId: string, problem: string): BatonError {
    const message = `chunked message ${JSON.stringify(chunkId)} was refused: ${problem}`;
    return protocolError(ErrorCode.INVALID_PAYLOAD, ProtocolErrorReason.INVALID_CHUNK, message, {
      chunkId,
    });
  }

  #tooLarge(chunkId: string, size: number, unit: 'bytes' | 'chunks'): BatonError {
    const message = `chunked message ${JSON.stringify(chunkId)} is over the ${this.maxMessageBytes}-byte limit (${size} ${unit})`;
    return protocolError(
      ErrorCode.MESSAGE_TOO_LARGE,
      ProtocolErrorReason.CHUNKED_MESSAGE_TOO_LARGE,
      message,
      { chunkId, limit: this.maxMessageBytes },
    );
  }

  /** A message in more chunks than the assembler holds at once: it can never be whole. */
  #tooManyChunks(chunkId: string, count: number): BatonError {
    const message = `chunked message ${JSON.stringify(chunkId)} comes in ${count} chunks, more than the ${this.#maxChunks} an assembler holds at once: send it in fewer, larger chunks`;
    return protocolError(
      ErrorCode.MESSAGE_TOO_LARGE,
      ProtocolErrorReason.CHUNKED_MESSAGE_TOO_LARGE,
      message,
      { chunkId, chunks: count, limit: this.#maxChunks },
    );
  }

  #full(chunkId: string, held: string): BatonError {
    const message = `chunked message ${JSON.stringify(chunkId)} was refused: ${held}; send it again later`;
    return protocolError(ErrorCode.UNAVAILABLE, ProtocolErrorReason.CHUNK_BUFFER_FULL, message, {
      chunkId,
    });
  }
}
