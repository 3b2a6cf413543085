import { deepEqual } from './internal/deepEqual.ts';
import { escapeToken } from './internal/pointer.ts';
import type { JsonPatchOp, JsonValue } from './JsonPatchOp.ts';

/**
 * The JSON Patch that turns `a` into `b`: `applyPatch(a, diff(a, b))` deep-equals `b`, and equal
 * values give `[]`. Objects are compared key by key; arrays keep their common head and tail and
 * diff the middle in place (so one item prepended to a list is one `add`); a value whose kind
 * changed is replaced. Both values must be plain JSON, as `JSON.parse` returns it.
 *
 * @example
 * diff({ balance: 25, history: [5] }, { balance: 30, history: [5, 5] });
 * // [{ op: 'replace', path: '/balance', value: 30 }, { op: 'add', path: '/history/1', value: 5 }]
 */
export function diff(a: JsonValue, b: JsonValue): JsonPatchOp[] {
  const ops: JsonPatchOp[] = [];
  diffInto(a, b, '', ops);
  return ops;
}

function diffInto(a: JsonValue, b: JsonValue, path: string, ops: JsonPatchOp[]): void {
  if (a === b) return;
  if (isContainer(a) && isContainer(b) && Array.isArray(a) === Array.isArray(b)) {
    if (Array.isArray(a)) diffArrays(a, b as readonly JsonValue[], path, ops);
    else diffObjects(a as JsonObject, b as JsonObject, path, ops);
    return;
  }
  ops.push({ op: 'replace', path, value: b });
}

type JsonObject = { readonly [key: string]: JsonValue };

function diffObjects(a: JsonObject, b: JsonObject, path: string, ops: JsonPatchOp[]): void {
  for (const key of Object.keys(a)) {
    const at = `${path}/${escapeToken(key)}`;
    if (Object.hasOwn(b, key)) diffInto(a[key]!, b[key]!, at, ops);
    else ops.push({ op: 'remove', path: at });
  }
  for (const key of Object.keys(b)) {
    if (!Object.hasOwn(a, key))
      ops.push({ op: 'add', path: `${path}/${escapeToken(key)}`, value: b[key]! });
  }
}

function diffArrays(
  a: readonly JsonValue[],
  b: readonly JsonValue[],
  path: string,
  ops: JsonPatchOp[],
): void {
  const shorter = Math.min(a.length, b.length);
  let head = 0;
  while (head < shorter && deepEqual(a[head]!, b[head]!)) head++;
  let tail = 0;
  while (tail < shorter - head && deepEqual(a[a.length - 1 - tail]!, b[b.length - 1 - tail]!))
    tail++;
  const middleA = a.length - head - tail;
  const middleB = b.length - head - tail;
  const common = Math.min(middleA, middleB);
  for (let i = head; i < head + common; i++) diffInto(a[i]!, b[i]!, `${path}/${i}`, ops);
  // Items b has beyond a's middle go in after the common part; a's extra items come out there.
  for (let i = head + common; i < head + middleB; i++)
    ops.push({ op: 'add', path: `${path}/${i}`, value: b[i]! });
  for (let i = middleB; i < middleA; i++)
    ops.push({ op: 'remove', path: `${path}/${head + middleB}` });
}

function isContainer(value: JsonValue): value is JsonObject | readonly JsonValue[] {
  return typeof value === 'object' && value !== null;
}
