/**
 * `structuredClone`, fast for plain data. `structuredClone` costs some microseconds even for a
 * small record (it serializes and deserializes), and the embedded store copies every commit in
 * and every record out, a turn the state its handler drafts on; walking plain objects and arrays
 * is several times cheaper. Anything the walk cannot copy exactly as `structuredClone` would — a
 * value that is not a plain object, a dense array or a primitive (a Date, a Map, a class
 * instance, a function), an object reached twice (shared or cyclic), a `__proto__` key — is
 * handed to `structuredClone` whole, so the result (and any error) is always the one
 * `structuredClone` gives.
 */
export function deepCopy<T>(value: T): T {
  if (typeof value !== 'object' || value === null) {
    return typeof value === 'function' || typeof value === 'symbol'
      ? structuredClone(value)
      : value;
  }
  try {
    return copy(value, new Set()) as T;
  } catch (error) {
    if (error === notPlain) return structuredClone(value);
    throw error;
  }
}

/** Thrown inside the walk when the value needs `structuredClone`. */
const notPlain = Symbol('not plain data');

function copy(value: unknown, seen: Set<object>): unknown {
  if (typeof value !== 'object' || value === null) {
    if (typeof value === 'function' || typeof value === 'symbol') throw notPlain;
    return value;
  }
  if (seen.has(value)) throw notPlain;
  seen.add(value);
  const proto = Object.getPrototypeOf(value);
  if (proto === Array.prototype) {
    const array = value as unknown[];
    // A hole or a property besides the indexes is kept by structuredClone, not by this walk.
    if (Object.keys(array).length !== array.length) throw notPlain;
    const out = new Array<unknown>(array.length);
    for (let i = 0; i < array.length; i++) {
      if (!(i in array)) throw notPlain;
      out[i] = copy(array[i], seen);
    }
    return out;
  }
  if (proto !== Object.prototype && proto !== null) throw notPlain;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    if (key === '__proto__') throw notPlain;
    out[key] = copy((value as Record<string, unknown>)[key], seen);
  }
  return out;
}
