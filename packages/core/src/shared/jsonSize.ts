import { forInListsOwnKeys } from './ownKeys.ts';
import { utf8ByteLength } from './utf8.ts';

/**
 * UTF-8 byte size of a value as JSON: how the engine measures items against `Store.limits`.
 * Exactly `JSON.stringify`'s length in UTF-8, counted by walking the value rather than writing
 * it (several times cheaper for plain data: a turn measures its record, its outcome and its
 * commit). A value the walk does not count itself — a `toJSON` (a Date), anything but plain
 * objects and arrays, a bigint, nesting past {@link MAX_WALK_DEPTH} (a cycle) — is measured
 * from `JSON.stringify` whole, which also throws what it throws.
 */
export function jsonSize(value: unknown): number {
  try {
    if (forInListsOwnKeys()) return sizeOf(value, 0) ?? 0;
  } catch (error) {
    if (error !== notWalked) throw error;
  }
  // JSON.stringify escapes lone surrogates, so its text always has a UTF-8 length.
  return utf8ByteLength(JSON.stringify(value) ?? '');
}

/** Nesting past which the walk hands the value to `JSON.stringify` (deep, or cyclic). */
const MAX_WALK_DEPTH = 256;

/** Thrown inside the walk for a value only `JSON.stringify` measures. */
const notWalked = Symbol('not walked');

/** A UTF-16 unit that JSON writes in other than one byte: a quote, a backslash, a control, non-ASCII. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
const WIDE = /["\\\u0000-\u001f\u0080-\uffff]/;

/** Strings up to this length (keys, ids) are checked unit by unit: cheaper than a regex call. */
const SHORT = 32;

/** Whether JSON writes every unit of `text` as one byte: what {@link WIDE} tests, as a loop. */
function isNarrow(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x20 || unit >= 0x80 || unit === 0x22 || unit === 0x5c) return false;
  }
  return true;
}

/** 10^0 … 10^21, all exact doubles. */
const POWERS_OF_TEN = Array.from({ length: 22 }, (_, k) => 10 ** k);

/** The bytes of `value` as JSON, or undefined where JSON leaves it out (undefined, a function, a symbol). */
function sizeOf(value: unknown, depth: number): number | undefined {
  switch (typeof value) {
    case 'string':
      return stringSize(value);
    case 'number':
      return numberSize(value);
    case 'boolean':
      return value ? 4 : 5;
    case 'object':
      return value === null ? 4 : containerSize(value, depth);
    case 'bigint':
      throw notWalked;
    default:
      return undefined;
  }
}

function containerSize(value: object, depth: number): number {
  if (depth >= MAX_WALK_DEPTH) throw notWalked;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') throw notWalked;
  const proto = Object.getPrototypeOf(value);
  if (proto === Array.prototype) {
    const array = value as unknown[];
    // Brackets and the commas between elements; what JSON leaves out is `null` in an array.
    let bytes = array.length > 0 ? array.length + 1 : 2;
    for (let i = 0; i < array.length; i++) bytes += sizeOf(array[i], depth + 1) ?? 4;
    return bytes;
  }
  if (proto !== Object.prototype && proto !== null) throw notWalked;
  let bytes = 1;
  let members = 0;
  for (const key in value) {
    const size = sizeOf((value as Record<string, unknown>)[key], depth + 1);
    if (size === undefined) continue;
    // The key, its colon, the value, and a comma before every member but the first.
    bytes += stringSize(key) + 1 + size + 1;
    members++;
  }
  return members === 0 ? 2 : bytes;
}

function stringSize(text: string): number {
  if (text.length <= SHORT ? isNarrow(text) : !WIDE.test(text)) return text.length + 2;
  let bytes = 2;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x20) {
      // \b \t \n \f \r have short escapes; the other controls are written \u00XX.
      bytes += unit === 8 || unit === 9 || unit === 10 || unit === 12 || unit === 13 ? 2 : 6;
    } else if (unit === 0x22 || unit === 0x5c) bytes += 2;
    else if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 6; // a lone surrogate is written \uXXXX
    } else if (unit >= 0xdc00 && unit <= 0xdfff) bytes += 6;
    else bytes += 3;
  }
  return bytes;
}

function numberSize(n: number): number {
  if (!Number.isFinite(n)) return 4; // null
  if (!Number.isInteger(n) || Math.abs(n) >= 1e21) return String(n).length;
  // An integer below 10^21 is written in plain digits (-0 as 0).
  const magnitude = Math.abs(n);
  let digits = 1;
  while (digits < 22 && magnitude >= POWERS_OF_TEN[digits]!) digits++;
  return n < 0 ? digits + 1 : digits;
}
