import { describe, expect, it } from 'vitest';
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
