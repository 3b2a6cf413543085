import { forInListsOwnKeys } from './ownKeys.ts';

/**
 * A copy of plain data, fast. `structuredClone` costs some microseconds even for a small record
 * (it serializes and deserializes), and the embedded store copies every commit in and every
 * record out, a turn the state its handler drafts on; walking plain objects and arrays is
 * several times cheaper. The walk copies what JSON can hold — plain objects, arrays, primitives
 * — and keeps no more than JSON keeps: an object reached twice is copied twice (a store's journal
 * keeps no sharing either), and an array's named properties are left out. Anything else it
 * meets — a Date, a Map, a class instance, a function, a hole in an array, a `__proto__` key,
 * or nesting deeper than {@link MAX_DEPTH} (a cycle) — hands the whole value to
 * `structuredClone`, so the result (and any error) is then the one `structuredClone` gives.
 */
export function deepCopy<T>(value: T): T {
  if (typeof value !== 'object' || value === null) {
    return typeof value === 'function' || typeof value === 'symbol'
      ? structuredClone(value)
      : value;
  }
  try {
    if (forInListsOwnKeys()) return copy(value, 0) as T;
  } catch (error) {
    if (error !== notPlain) throw error;
  }
  return structuredClone(value);
}

/** Nesting past which a value is taken for cyclic: deeper plain data is copied by `structuredClone`. */
export const MAX_DEPTH = 256;

/** Thrown inside the walk when the value needs `structuredClone`. */
const notPlain = Symbol('not plain data');

function copy(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null) {
    if (typeof value === 'function' || typeof value === 'symbol') throw notPlain;
    return value;
  }
  // Cycles are found by depth rather than by a set of the objects seen: a set costs more than
  // the rest of the walk.
  if (depth > MAX_DEPTH) throw notPlain;
  const proto = Object.getPrototypeOf(value);
  if (proto === Array.prototype) {
    const array = value as unknown[];
    const out = new Array<unknown>(array.length);
    for (let i = 0; i < array.length; i++) {
      if (!(i in array)) throw notPlain;
      out[i] = copy(array[i], depth + 1);
    }
    return out;
  }
  if (proto !== Object.prototype && proto !== null) throw notPlain;
  const out: Record<string, unknown> = {};
  for (const key in value) {
    if (key === '__proto__') throw notPlain;
    out[key] = copy((value as Record<string, unknown>)[key], depth + 1);
  }
  return out;
}
