import type { JsonValue } from '../JsonPatchOp.ts';

/** Structural equality of two JSON values (object key order does not matter). */
export function deepEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const objA = a as Record<string, JsonValue>;
  const objB = b as Record<string, JsonValue>;
  const keys = Object.keys(objA);
  if (keys.length !== Object.keys(objB).length) return false;
  for (const key of keys) {
    if (!Object.hasOwn(objB, key) || !deepEqual(objA[key]!, objB[key]!)) return false;
  }
  return true;
}
