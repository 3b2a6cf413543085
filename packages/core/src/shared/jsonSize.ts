import { utf8ByteLength } from './utf8.ts';

/** UTF-8 byte size of a value as JSON: how the engine measures items against `Store.limits`. */
export function jsonSize(value: unknown): number {
  // JSON.stringify escapes lone surrogates, so its text always has a UTF-8 length.
  return utf8ByteLength(JSON.stringify(value) ?? '');
}

/** A UTF-16 unit that JSON may write in more than one byte: a quote, a backslash, a control, non-ASCII. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
const WIDE = /["\\\u0000-\u001f\u0080-\uffff]/;

/** The longest JSON number: `-2.2250738585072014e-308`. */
const MAX_NUMBER_BYTES = 24;

/** Nesting past which {@link jsonSizeBound} gives up (`Infinity`): deep, or cyclic. */
const MAX_BOUND_DEPTH = 256;

/**
 * An upper bound of {@link jsonSize}, found without writing the JSON (several times cheaper):
 * exact for ASCII strings without escapes, at most six bytes a UTF-16 unit for other strings,
 * 24 bytes a number. `Infinity` for what it cannot bound without JSON.stringify's own walk: a
 * `toJSON`, anything but plain objects and arrays, a bigint, nesting past 256 levels. A check
 * against a limit measures exactly only when the bound is over it.
 */
export function jsonSizeBound(value: unknown, depth = 0): number {
  switch (typeof value) {
    case 'string':
      return WIDE.test(value) ? 6 * value.length + 2 : value.length + 2;
    case 'number':
      return MAX_NUMBER_BYTES;
    case 'boolean':
      return 5;
    case 'bigint':
      return Number.POSITIVE_INFINITY;
    case 'object':
      return value === null ? 4 : containerBound(value, depth);
    default:
      // undefined, a function or a symbol: left out, or `null` in an array.
      return 4;
  }
}

function containerBound(value: object, depth: number): number {
  if (depth >= MAX_BOUND_DEPTH) return Number.POSITIVE_INFINITY;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return Number.POSITIVE_INFINITY;
  }
  const proto = Object.getPrototypeOf(value);
  // Brackets, and a comma after each element (one more than JSON writes).
  let bytes = 2;
  if (proto === Array.prototype) {
    for (const element of value as unknown[]) bytes += jsonSizeBound(element, depth + 1) + 1;
    return bytes;
  }
  if (proto !== Object.prototype && proto !== null) return Number.POSITIVE_INFINITY;
  for (const key of Object.keys(value)) {
    // The key, its colon, the value and a comma.
    bytes +=
      jsonSizeBound(key) + jsonSizeBound((value as Record<string, unknown>)[key], depth + 1) + 2;
  }
  return bytes;
}
