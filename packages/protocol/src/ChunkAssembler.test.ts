import { type BatonError, ErrorCode, isBatonError } from '@baton/core';
import { describe, expect, it } from 'vitest';
import { ByteBudget } from './ByteBudget.ts';
import { CHUNK_OVERHEAD_BYTES, ChunkAssembler } from './ChunkAssembler.ts';
import type { ChunkMessage } from './messages.ts';

const chunk = (chunkId: string, index: number, count: number, data: string): ChunkMessage => ({
  v: 1,
  type: 'chunk',
  chunkId,
  index,
  count,
  data,
});

function thrown(call: () => unknown): BatonError {
  try {
    call();
  } catch (error) {
    if (isBatonError(error)) return error;
    throw error;
  }
  throw new Error('expected a BatonError');
}

describe('ChunkAssembler', () => {
  it('reassembles chunks that arrive out of order, interleaved with another message', () => {
    const assembler = new ChunkAssembler();
    expect(assembler.add(chunk('a', 2, 3, 'c'))).toBeUndefined();
    expect(assembler.add(chunk('b', 1, 2, 'y'))).toBeUndefined();
    expect(assembler.add(chunk('a', 0, 3, 'a'))).toBeUndefined();
    expect(assembler.pending).toBe(2);
    expect(assembler.add(chunk('a', 1, 3, 'b'))).toBe('abc');
    expect(assembler.add(chunk('b', 0, 2, 'x'))).toBe('xy');
    expect(assembler.pending).toBe(0);
    expect(assembler.bufferedBytes).toBe(0);
  });

  it('ignores a duplicate chunk, and a late duplicate of a finished message, counting each', () => {
    const assembler = new ChunkAssembler();
    assembler.add(chunk('a', 0, 2, 'é'));
    expect(assembler.ignored).toBe(0);
    expect(assembler.add(chunk('a', 0, 2, 'é'))).toBeUndefined();
    expect(assembler.ignored).toBe(1);
    expect(assembler.bufferedBytes).toBe(2);
    expect(assembler.add(chunk('a', 1, 2, '!'))).toBe('é!');
    expect(assembler.add(chunk('a', 1, 2, '!'))).toBeUndefined();
    expect(assembler.ignored).toBe(2);
    expect(assembler.pending).toBe(0);
  });

  it('refuses a chunk that contradicts its siblings, and drops its message', () => {
    const assembler = new ChunkAssembler();
    assembler.add(chunk('a', 0, 3, 'x'));
    const count = thrown(() => assembler.add(chunk('a', 1, 4, 'y')));
    expect(count.code).toBe(ErrorCode.INVALID_PAYLOAD);
    expect(count.message).toMatch(/chunk 1 says count 4, an earlier one 3/);
    expect(assembler.pending).toBe(0);
    expect(assembler.add(chunk('a', 2, 3, 'z'))).toBeUndefined(); // the rest is ignored

    assembler.add(chunk('b', 0, 2, 'x'));
    expect(thrown(() => assembler.add(chunk('b', 0, 2, 'y'))).message).toMatch(
      /came twice with different data/,
    );
    expect(thrown(() => assembler.add(chunk('c', 0, 2, ''))).details).toMatchObject({
      reason: 'INVALID_CHUNK',
      chunkId: 'c',
    });
  });

  it('refuses a message over maxMessageBytes with MESSAGE_TOO_LARGE', () => {
    const assembler = new ChunkAssembler({ maxMessageBytes: 10 });
    assembler.add(chunk('a', 0, 2, '12345'));
    const error = thrown(() => assembler.add(chunk('a', 1, 2, '€€')));
    expect(error.code).toBe(ErrorCode.MESSAGE_TOO_LARGE);
    expect(error.message).toMatch(/over the 10-byte limit \(11 bytes\)/);
    expect(assembler.bufferedBytes).toBe(0);
    // A count no message under the limit can have is refused at its first chunk.
    expect(thrown(() => assembler.add(chunk('b', 0, 11, 'x'))).code).toBe(
      ErrorCode.MESSAGE_TOO_LARGE,
    );
  });

  it('holds no more chunks than maxBufferedBytes of their overhead: many one-byte chunks fill it as their memory does', () => {
    const assembler = new ChunkAssembler({ maxBufferedBytes: 100 * CHUNK_OVERHEAD_BYTES });
    // A message in more chunks than that can never be whole: refused at its first.
    const many = thrown(() => assembler.add(chunk('many', 0, 101, 'x')));
    expect(many.code).toBe(ErrorCode.MESSAGE_TOO_LARGE);
    expect(many.message).toMatch(
      /comes in 101 chunks, more than the 100 an assembler holds at once/,
    );
    // Across messages, the 101st chunk held waits for room, as full buffers do.
    for (let i = 0; i < 60; i++) assembler.add(chunk('a', i, 100, 'x'));
    for (let i = 0; i < 40; i++) assembler.add(chunk('b', i, 100, 'x'));
    const full = thrown(() => assembler.add(chunk('c', 0, 2, 'x')));
    expect(full.details).toMatchObject({ reason: 'CHUNK_BUFFER_FULL', chunkId: 'c' });
    expect(full.message).toMatch(/already holds 100 chunks; send it again later/);
    // A message dropped or whole gives its chunks back.
    expect(thrown(() => assembler.add(chunk('b', 40, 99, 'x'))).code).toBe(
      ErrorCode.INVALID_PAYLOAD,
    );
    for (let i = 60; i < 99; i++) assembler.add(chunk('a', i, 100, 'x'));
    expect(assembler.add(chunk('a', 99, 100, 'x'))).toBe('x'.repeat(100));
    for (let i = 0; i < 60; i++) assembler.add(chunk('d', i, 100, 'y'));
    assembler.clear();
    for (let i = 0; i < 100; i++) assembler.add(chunk('e', i, 100, 'z'));
  });

  it('takes a message of exactly maxMessageBytes, in as many chunks as bytes', () => {
    const assembler = new ChunkAssembler({ maxMessageBytes: 10, maxBufferedBytes: 10 });
    assembler.add(chunk('b', 0, 2, '12345'));
    expect(assembler.add(chunk('b', 1, 2, '67890'))).toBe('1234567890');
    for (let i = 0; i < 9; i++) assembler.add(chunk('c', i, 10, `${i}`));
    expect(assembler.add(chunk('c', 9, 10, '9'))).toBe('0123456789');
  });

  it('refuses a new message while maxPending are incomplete, as retryable', () => {
    const assembler = new ChunkAssembler({ maxPending: 2 });
    assembler.add(chunk('a', 0, 2, 'x'));
    assembler.add(chunk('b', 0, 2, 'x'));
    const error = thrown(() => assembler.add(chunk('c', 0, 2, 'x')));
    expect(error.code).toBe(ErrorCode.UNAVAILABLE);
    expect(error.terminal).toBe(false);
    expect(error.message).toMatch(/already holds 2 incomplete messages; send it again later/);
    assembler.add(chunk('a', 1, 2, 'y'));
    expect(assembler.add(chunk('d', 0, 1, 'whole'))).toBe('whole');
  });

  it('refuses a chunk past maxBufferedBytes across messages, as retryable', () => {
    const assembler = new ChunkAssembler({ maxBufferedBytes: 8 });
    assembler.add(chunk('a', 0, 2, '12345'));
    const error = thrown(() => assembler.add(chunk('b', 0, 2, '6789')));
    expect(error.details).toMatchObject({ reason: 'CHUNK_BUFFER_FULL', chunkId: 'b' });
    expect(assembler.bufferedBytes).toBe(5);
  });

  it('refuses a chunk past a budget shared with other assemblers, and gives back what each lets go', () => {
    const shared = new ByteBudget(8);
    const one = new ChunkAssembler({ shared });
    const other = new ChunkAssembler({ shared });
    one.add(chunk('a', 0, 2, '12345'));
    const error = thrown(() => other.add(chunk('b', 0, 2, '6789')));
    expect(error.code).toBe(ErrorCode.UNAVAILABLE);
    expect(error.details).toMatchObject({ reason: 'CHUNK_BUFFER_FULL', chunkId: 'b' });
    expect(error.message).toMatch(/the host already holds 8 bytes of chunked messages in all/);
    expect(shared.used).toBe(5);
    // A message finished, dropped or cleared gives its bytes back.
    expect(one.add(chunk('a', 1, 2, '6'))).toBe('123456');
    expect(shared.used).toBe(0);
    other.add(chunk('c', 0, 2, '1234'));
    expect(() => other.add(chunk('c', 0, 3, 'x'))).toThrow(/count 3/);
    expect(shared.used).toBe(0);
    one.add(chunk('d', 0, 2, '1234567'));
    one.clear();
    expect(shared.used).toBe(0);
  });

  it('drops a message not complete within timeoutMs and reports it', () => {
    let now = 0;
    const expired: BatonError[] = [];
    const assembler = new ChunkAssembler({
      timeoutMs: 1_000,
      now: () => now,
      onExpire: (error) => expired.push(error),
    });
    assembler.add(chunk('slow', 0, 3, 'x'));
    now = 500;
    assembler.add(chunk('fast', 0, 2, 'y'));
    now = 999;
    expect(assembler.evictExpired()).toEqual([]);
    now = 1_000;
    expect(assembler.add(chunk('fast', 1, 2, 'z'))).toBe('yz');
    expect(expired).toHaveLength(1);
    expect(expired[0]!.code).toBe(ErrorCode.UNAVAILABLE);
    expect(expired[0]!.message).toMatch(/"slow" was dropped: 1 of 3 chunks arrived within 1000 ms/);
    expect(expired[0]!.details).toMatchObject({ reason: 'CHUNK_TIMEOUT', received: 1, count: 3 });
    expect(assembler.add(chunk('slow', 1, 3, 'x'))).toBeUndefined(); // late: ignored
    expect(assembler.pending).toBe(0);
    expect(assembler.bufferedBytes).toBe(0);
  });

  it('returns the expired messages from evictExpired for a timer to report', () => {
    let now = 0;
    const assembler = new ChunkAssembler({ timeoutMs: 10, now: () => now });
    assembler.add(chunk('a', 0, 2, 'x'));
    now = 10;
    expect(assembler.evictExpired().map((error) => error.details.chunkId)).toEqual(['a']);
    expect(assembler.pending).toBe(0);
  });

  it('forgets everything on clear', () => {
    const assembler = new ChunkAssembler();
    assembler.add(chunk('a', 0, 2, 'x'));
    assembler.clear();
    expect([assembler.pending, assembler.bufferedBytes]).toEqual([0, 0]);
    expect(assembler.add(chunk('a', 1, 2, 'y'))).toBeUndefined();
    expect(assembler.add(chunk('a', 0, 2, 'x'))).toBe('xy');
  });
});
