import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anyValue } from './fixtures/anyValue.ts';
import { jsonSize } from './jsonSize.ts';

/** What an encoder writes. */
const encoded = (text: string) => new TextEncoder().encode(text).length;

/** What jsonSize must give: the UTF-8 length of JSON.stringify's text (0 where it gives none). */
const stringified = (value: unknown) => encoded(JSON.stringify(value) ?? '');

describe('jsonSize', () => {
  it('is the UTF-8 length of the JSON text', () => {
    const value = { key: 'm-1', outcome: { ok: true, value: 'Grüße 😀' }, at: 1_795_810_634_166 };
    expect(jsonSize(value)).toBe(encoded(JSON.stringify(value)));
    expect(jsonSize(undefined)).toBe(0);
  });

  it('equals the length of JSON.stringify, whatever the value', () => {
    fc.assert(
      fc.property(anyValue(), (value) => {
        expect(jsonSize(value)).toBe(stringified(value));
      }),
      { numRuns: 3_000 },
    );
  });

  it('counts text as JSON writes it: escapes, controls, DEL, non-ASCII, pairs and lone surrogates', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 80 }),
        fc.string({ unit: 'grapheme', maxLength: 40 }),
        (a, b) => {
          const value = { [a]: b, list: [a, b, `${a}${b}`] };
          expect(jsonSize(value)).toBe(stringified(value));
        },
      ),
    );
    const controls = Array.from({ length: 0x20 }, (_, unit) => String.fromCharCode(unit)).join('');
    // Short strings (keys, ids) and long ones are checked for escapes apart: each text at both lengths.
    const long = (text: string) => `${'x'.repeat(40)}${text}`;
    for (const text of [controls, '"\\/\u007f', '\ud800x', 'x\udc00', '😀\ud83d', 'é€😀']) {
      expect(jsonSize(text)).toBe(stringified(text));
      expect(jsonSize(long(text))).toBe(stringified(long(text)));
    }
    // Each edge of UTF-8's widths and of the surrogate ranges, between ASCII letters.
    const edges = [
      0x1f, 0x20, 0x22, 0x5c, 0x7f, 0x80, 0x7ff, 0x800, 0xd7ff, 0xd800, 0xdbff, 0xdc00, 0xdfff,
      0xe000, 0xffff,
    ];
    for (const unit of edges) {
      const text = `a${String.fromCharCode(unit)}b`;
      expect(jsonSize(text)).toBe(stringified(text));
      expect(jsonSize(long(text))).toBe(stringified(long(text)));
    }
  });

  it('counts numbers as JSON writes them: integers up to and past 10^21, fractions, -0, NaN, Infinity', () => {
    fc.assert(
      fc.property(fc.oneof(fc.double(), fc.integer(), fc.maxSafeInteger()), (n) => {
        expect(jsonSize([n, -n])).toBe(stringified([n, -n]));
      }),
    );
    for (let k = 0; k <= 22; k++) {
      for (const n of [10 ** k, 10 ** k - 1, 10 ** k + 1, -(10 ** k), 0.5 * 10 ** k]) {
        expect(jsonSize(n)).toBe(stringified(n));
      }
    }
    for (const n of [-0, Number.NaN, Number.POSITIVE_INFINITY, Number.MIN_VALUE, 1e21, 123e-20]) {
      expect(jsonSize({ n })).toBe(stringified({ n }));
    }
  });

  it('leaves out what JSON leaves out, writes null for it in arrays, and uses toJSON', () => {
    const sparse = [1, 2, 3];
    delete sparse[1];
    const value = {
      sparse,
      gone: undefined,
      fn: () => 1,
      [Symbol('s')]: 1,
      list: [undefined, () => 1, Symbol('s'), 1],
      empty: {},
      none: [],
    };
    expect(jsonSize(value)).toBe(stringified(value));
    const withToJson = { at: new Date(5), own: { toJSON: (key: string) => `key ${key}` } };
    expect(jsonSize(withToJson)).toBe(stringified(withToJson));
    expect(jsonSize(() => 1)).toBe(0);
  });

  it('throws what JSON.stringify throws: bigints, cycles through objects and arrays', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    const loop: unknown[] = [1];
    loop.push(loop);
    for (const value of [1n, { n: [2n] }, cyclic, loop]) {
      expect(() => jsonSize(value)).toThrow(TypeError);
    }
  });

  it('measures nesting deeper than the walk goes, as JSON.stringify does', () => {
    let deep: unknown = 'end';
    for (let depth = 0; depth < 1_000; depth++) deep = { depth, next: deep };
    expect(jsonSize(deep)).toBe(stringified(deep));
  });
});
