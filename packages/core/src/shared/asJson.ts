/** Values as they read back from storage, where everything is JSON. */
import { forInListsOwnKeys } from './ownKeys.ts';

/**
 * A value as it reads back from storage: exactly `JSON.parse(JSON.stringify(value))` (throws on
 * a BigInt or a cycle). Plain data is copied by a walk that does what the round trip does —
 * leaves out undefined, functions and symbols (null in an array, as for a hole), writes -0 as 0
 * and what is not finite as null, and a Date as its ISO string — several times cheaper than
 * writing and reading text. Anything else — another `toJSON`, anything but plain objects, arrays
 * and Dates, a `__proto__` key, nesting past 256 levels (a cycle) — makes it take the round trip
 * itself.
 */
export function asJson(value: unknown): unknown {
  return jsonCopy(value, false);
}

/**
 * {@link asJson}, but a Map or a Set anywhere throws: the round trip would keep it as `{}`, its
 * entries lost without a word. For what a door sends on (a payload), where refusing costs
 * nothing already stored, and for the state a turn commits ({@link findCollection} says where).
 * Plain data (Dates too) costs what it costs {@link asJson}: the walk meets a Map or a Set where
 * it leaves plain data. A value the walk hands to the round trip costs more there.
 */
export function asStrictJson(value: unknown): unknown {
  return jsonCopy(value, true);
}

function jsonCopy(value: unknown, strict: boolean): unknown {
  try {
    if (forInListsOwnKeys()) return copy(value, 0, strict);
  } catch (error) {
    if (error !== roundTrip) throw error;
  }
  const text = JSON.stringify(value, strict ? refuseCollections : undefined);
  return text === undefined ? undefined : JSON.parse(text);
}

/**
 * Where JSON meets a Map or a Set in `value` (after any `toJSON`), which it would keep as `{}`:
 * the keys down to the first, and which it is. `undefined` when JSON meets none before the end,
 * or before what it refuses itself (a BigInt, a cycle). It explains an {@link asStrictJson}
 * refusal, which meets them in the same order; it is not on the way of a value that passes.
 */
export function findCollection(
  value: unknown,
): { readonly path: readonly string[]; readonly kind: 'Map' | 'Set' } | undefined {
  // The path of each object JSON meets, its members' holder; the outermost holder is JSON's own.
  const paths = new Map<object, readonly string[]>();
  let found: { path: readonly string[]; kind: 'Map' | 'Set' } | undefined;
  try {
    JSON.stringify(value, function (this: object, key: string, member: unknown) {
      if (typeof member !== 'object' || member === null) return member;
      const holder = paths.get(this);
      const path = holder === undefined ? [] : [...holder, key];
      const kind = member instanceof Map ? 'Map' : member instanceof Set ? 'Set' : undefined;
      if (kind !== undefined) {
        found = { path, kind };
        throw found;
      }
      paths.set(member, path);
      return member;
    });
  } catch {
    // Found, or JSON refused the value first.
  }
  return found;
}

/** A Map or a Set, refused with what to use; else `undefined`. */
function notJson(value: object): TypeError | undefined {
  const kind = value instanceof Map ? 'a Map' : value instanceof Set ? 'a Set' : undefined;
  if (kind === undefined) return undefined;
  return new TypeError(
    `${kind} is not JSON (it would be stored as {}, its entries lost): use a plain object or an array`,
  );
}

function refuseCollections(_key: string, value: unknown): unknown {
  const refused = typeof value === 'object' && value !== null ? notJson(value) : undefined;
  if (refused) throw refused;
  return value;
}

/** Nesting past which the walk leaves the value to the round trip (deep, or cyclic). */
const MAX_WALK_DEPTH = 256;

/** Thrown inside the walk for a value only the round trip copies. */
const roundTrip = Symbol('round trip');

/** `value` through JSON; undefined where JSON leaves it out. */
function copy(value: unknown, depth: number, strict: boolean): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      // JSON writes -0 as 0, and NaN and the infinities as null.
      return Number.isFinite(value) ? value + 0 : null;
    case 'object':
      return value === null ? null : copyContainer(value, depth, strict);
    case 'bigint':
      throw roundTrip;
    default:
      return undefined;
  }
}

/** Date's own `toJSON`: a Date that has it is written as what it returns, its ISO string. */
const dateToJson = Date.prototype.toJSON;

function copyContainer(value: object, depth: number, strict: boolean): unknown {
  if (depth >= MAX_WALK_DEPTH) throw roundTrip;
  const toJson = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJson === 'function') {
    // A Date is copied as JSON writes it (its ISO string, null if invalid); any other toJSON
    // takes the round trip.
    if (toJson !== dateToJson || !(value instanceof Date)) throw roundTrip;
    const json = value.toJSON();
    if (typeof json === 'string' || json === null) return json;
    throw roundTrip;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto === Array.prototype) {
    const array = value as unknown[];
    const out = new Array<unknown>(array.length);
    for (let i = 0; i < array.length; i++) out[i] = copy(array[i], depth + 1, strict) ?? null;
    return out;
  }
  if (proto !== Object.prototype && proto !== null) throw (strict && notJson(value)) || roundTrip;
  const out: Record<string, unknown> = {};
  for (const key in value) {
    // JSON.parse makes `__proto__` an own property; an assignment would set the prototype.
    if (key === '__proto__') throw roundTrip;
    const member = copy((value as Record<string, unknown>)[key], depth + 1, strict);
    if (member !== undefined) out[key] = member;
  }
  return out;
}
