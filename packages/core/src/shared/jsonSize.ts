import { utf8ByteLength } from './utf8.ts';

/** UTF-8 byte size of a value as JSON: how the engine measures items against `Store.limits`. */
export function jsonSize(value: unknown): number {
  // JSON.stringify escapes lone surrogates, so its text always has a UTF-8 length.
  return utf8ByteLength(JSON.stringify(value) ?? '');
}
