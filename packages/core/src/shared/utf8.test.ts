import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonSize, jsonSizeBound } from './jsonSize.ts';
import { utf8ByteLength } from './utf8.ts';

/** What an encoder writes: the count the fast path and the loop must both give. */
const encoded = (text: string) => new TextEncoder().encode(text).length;

describe('utf8ByteLength', () => {
  it('counts ASCII one byte a unit, control characters and DEL included', () => {
    const ascii = `${String.fromCharCode(0)}\t{"id":"tally/t0","n":1}${String.fromCharCode(0x7f)}`;
    expect(utf8ByteLength(ascii)).toBe(ascii.length);
    expect(utf8ByteLength('')).toBe(0);
  });

  it.each([
    ['two-byte', 'é', 2],
    ['three-byte', '€', 3],
    ['four-byte (a surrogate pair)', '😀', 4],
    ['a lone high surrogate', '\ud83d', 3],
    ['a lone low surrogate', '\ude00', 3],
  ])('counts %s text as an encoder writes it', (_, char, bytes) => {
    expect(utf8ByteLength(char)).toBe(bytes);
    // Beside ASCII on either side, as in a JSON text.
    const mixed = `{"name":"${char}","n":1}`;
    expect(utf8ByteLength(mixed)).toBe(mixed.length - char.length + bytes);
    expect(utf8ByteLength(mixed)).toBe(encoded(mixed));
  });

  it('counts the first non-ASCII unit after a long ASCII run', () => {
    const text = `${'a'.repeat(10_000)}\u0080`;
    expect(utf8ByteLength(text)).toBe(10_002);
  });
});

describe('jsonSize', () => {
  it('is the UTF-8 length of the JSON text', () => {
    const value = { key: 'm-1', outcome: { ok: true, value: 'Grüße 😀' }, at: 1_795_810_634_166 };
    expect(jsonSize(value)).toBe(encoded(JSON.stringify(value)));
    expect(jsonSize(undefined)).toBe(0);
  });
});

describe('jsonSizeBound', () => {
  it('is never under jsonSize, whatever the value', () => {
    fc.assert(
      fc.property(
        fc.anything({ withDate: true, withMap: true, withNullPrototype: true }),
        (value) => {
          expect(jsonSizeBound(value)).toBeGreaterThanOrEqual(jsonSize(value));
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('is never under jsonSize for text of any kind: escapes, controls, non-ASCII, lone surrogates', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), (a, b) => {
        const value = { [a]: b, list: [a, b] };
        expect(jsonSizeBound(value)).toBeGreaterThanOrEqual(jsonSize(value));
      }),
    );
    const escapes = `"\\${String.fromCharCode(1)}\ud800`;
    expect(jsonSizeBound(escapes)).toBeGreaterThanOrEqual(jsonSize(escapes));
  });

  it('is exact for ASCII text without escapes, and bounds numbers by the longest one', () => {
    expect(jsonSizeBound('tally/t1')).toBe(jsonSize('tally/t1'));
    expect(jsonSizeBound(-2.2250738585072014e-308)).toBe(jsonSize(-2.2250738585072014e-308));
    expect(jsonSizeBound({})).toBe(2);
    expect(jsonSizeBound([])).toBe(2);
  });

  it('gives up (Infinity) on what only JSON.stringify can measure: toJSON, class instances, bigints, cycles', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    class Point {
      x = 1;
    }
    for (const value of [new Date(0), { at: new Date(0) }, new Point(), 1n, [1n], cyclic]) {
      expect(jsonSizeBound(value)).toBe(Number.POSITIVE_INFINITY);
    }
  });
});
