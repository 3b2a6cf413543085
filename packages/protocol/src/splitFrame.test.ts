import { Buffer } from 'node:buffer';
import { ErrorCode, isBatonError } from '@baton/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChunkAssembler } from './ChunkAssembler.ts';
import { decodeClientMessage, encodeMessage } from './decodeFrame.ts';
import type { ChunkMessage } from './messages.ts';
import { splitFrame } from './splitFrame.ts';

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

/** A seeded shuffle that also repeats some frames, as a flaky transport might. */
function shuffleWithDuplicates<T>(items: readonly T[], seed: number): T[] {
  let state = seed >>> 0 || 1;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  const out = [...items, ...items.filter(() => next() < 0.3)];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Splits, shuffles with duplicates, decodes and reassembles; checks every frame's size. */
function roundTrip(text: string, maxBytes: number, seed: number): string {
  const frames = splitFrame(text, maxBytes);
  for (const frame of frames) expect(bytes(frame)).toBeLessThanOrEqual(maxBytes);
  if (frames.length === 1 && frames[0] === text) return text;
  // Tight too: all but the last frame are full but for one character and the index's digits.
  const slack = 6 + String(frames.length).length;
  for (const frame of frames.slice(0, -1)) expect(bytes(frame)).toBeGreaterThan(maxBytes - slack);
  const assembler = new ChunkAssembler();
  const results: string[] = [];
  for (const frame of shuffleWithDuplicates(frames, seed)) {
    const chunk = decodeClientMessage(frame, { maxFrameBytes: maxBytes }) as ChunkMessage;
    expect(chunk.type).toBe('chunk');
    const whole = assembler.add(chunk);
    if (whole !== undefined) results.push(whole);
  }
  expect(results).toHaveLength(1);
  expect(assembler.pending).toBe(0);
  return results[0]!;
}

const loneSurrogates = fc.string({
  unit: fc.oneof(
    fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
    fc.constantFrom('"', '\\', '\n', '\u0001', 'é', '€', '😀', 'a'),
  ),
  maxLength: 2_000,
});

describe('splitFrame', () => {
  it('returns a frame that fits as it is, up to exactly the limit', () => {
    expect(splitFrame('é'.repeat(50), 100)).toEqual(['é'.repeat(50)]);
    const split = splitFrame(`${'é'.repeat(50)}a`, 100);
    expect(split.length).toBeGreaterThan(1);
  });

  it('splits any text into frames of at most maxBytes that reassemble, shuffled and duplicated, to it', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: 'binary', maxLength: 6_000 }), loneSurrogates),
        fc.integer({ min: 90, max: 3_000 }),
        fc.integer(),
        (text, maxBytes, seed) => {
          expect(roundTrip(text, maxBytes, seed)).toBe(text);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('splits a 1 MB result into chunk frames under API Gateway’s 128 KB limit', () => {
    const value = Array.from({ length: 6_000 }, (_, i) => ({
      i,
      name: `名前-${i}-😀`,
      note: 'x'.repeat(100),
    }));
    const text = encodeMessage({ v: 1, type: 'result', id: 's', version: 1, hash: 'h', value });
    expect(bytes(text)).toBeGreaterThan(800_000);
    const frames = splitFrame(text);
    expect(frames.length).toBeGreaterThan(6);
    expect(roundTrip(text, 128 * 1024, 7)).toBe(text);
  });

  it('never splits a surrogate pair, even when only one fits', () => {
    const text = '😀'.repeat(200);
    for (const frame of splitFrame(text, 97, { chunkId: 'c' })) {
      const { data } = JSON.parse(frame) as ChunkMessage;
      expect(data).toMatch(/^(?:😀)+$/u);
    }
  });

  it('budgets more digits when the pieces pass 9 or 99', () => {
    const frames = splitFrame('x'.repeat(5_000), 100, { chunkId: 'c' });
    expect(frames.length).toBeGreaterThan(100);
    for (const frame of frames) expect(bytes(frame)).toBeLessThanOrEqual(100);
  });

  it('refuses a maxBytes too small for a chunk envelope, saying so', () => {
    try {
      splitFrame('x'.repeat(100), 60);
      expect.unreachable();
    } catch (error) {
      expect(isBatonError(error) && error.code).toBe(ErrorCode.INVALID_ARGUMENT);
      expect((error as Error).message).toMatch(/maxBytes 60 cannot hold a chunk frame/);
    }
  });

  it('names the pieces of different frames differently', () => {
    const id = (frame: string) => (JSON.parse(frame) as ChunkMessage).chunkId;
    expect(id(splitFrame('x'.repeat(300), 100)[0]!)).not.toBe(
      id(splitFrame('x'.repeat(300), 100)[0]!),
    );
  });
});
