import { BatonError, ErrorCode } from '@baton/core';
import { arrayIndex, parsePointer } from './internal/pointer.ts';
import type { JsonPatchOp, JsonValue } from './JsonPatchOp.ts';
import { ProtocolErrorReason } from './ProtocolErrorReason.ts';

type Container = JsonValue[] | { [key: string]: JsonValue };

/**
 * Applies a JSON Patch (add, remove, replace) and returns the new document; `doc` is never
 * changed. Parts the patch does not touch are shared with `doc`, so a UI keeps stable
 * references for unchanged data. Throws a BatonError (INVALID_PAYLOAD, reason INVALID_PATCH,
 * with the op's index and path in `details`) for a path that does not fit the document.
 *
 * @example
 * const next = applyPatch({ balance: 25, history: [5] }, [
 *   { op: 'replace', path: '/balance', value: 30 },
 *   { op: 'add', path: '/history/-', value: 5 },
 * ]);
 * // { balance: 30, history: [5, 5] }
 */
export function applyPatch(doc: JsonValue, ops: readonly JsonPatchOp[]): JsonValue {
  // Containers copied by this call: later ops may change them in place.
  const copies = new WeakSet<object>();
  let root = doc;
  for (let i = 0; i < ops.length; i++) root = applyOp(root, ops[i]!, i, copies);
  return root;
}

function applyOp(root: JsonValue, op: JsonPatchOp, at: number, copies: WeakSet<object>): JsonValue {
  const fail: (problem: string) => never = (problem) => {
    throw badPath(op, at, problem);
  };
  const tokens = parsePointer(op.path);
  if (tokens === undefined) fail('it is not a JSON Pointer');
  if (tokens.length === 0) {
    if (op.op === 'remove') fail('the whole document cannot be removed');
    return op.value;
  }
  const newRoot = own(root, copies) ?? fail('the document is not an object or array');
  let parent = newRoot;
  for (let depth = 0; depth < tokens.length - 1; depth++) {
    const token = tokens[depth]!;
    const child =
      own(read(parent, token) ?? fail(`"${token}" is missing`), copies) ??
      fail(`"${token}" is not an object or array`);
    write(parent, token, child);
    parent = child;
  }
  const last = tokens[tokens.length - 1]!;
  if (Array.isArray(parent)) editArray(parent, last, op, fail);
  else editObject(parent, last, op, fail);
  return newRoot;
}

function editArray(
  array: JsonValue[],
  token: string,
  op: JsonPatchOp,
  fail: (problem: string) => never,
): void {
  const index = op.op === 'add' && token === '-' ? array.length : arrayIndex(token);
  const limit = op.op === 'add' ? array.length : array.length - 1;
  if (index === undefined || index > limit) {
    fail(`"${token}" is not an index of an array of length ${array.length}`);
  }
  if (op.op === 'add') array.splice(index, 0, op.value);
  else if (op.op === 'remove') array.splice(index, 1);
  else array[index] = op.value;
}

function editObject(
  object: { [key: string]: JsonValue },
  key: string,
  op: JsonPatchOp,
  fail: (problem: string) => never,
): void {
  if (op.op !== 'add' && !Object.hasOwn(object, key)) fail(`"${key}" is missing`);
  if (op.op === 'remove') delete object[key];
  else write(object, key, op.value);
}

/** The container itself if this call copied it, else a shallow copy; `undefined` for a leaf. */
function own(value: JsonValue, copies: WeakSet<object>): Container | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (copies.has(value)) return value as Container;
  const copy = (Array.isArray(value) ? value.slice() : { ...value }) as Container;
  copies.add(copy);
  return copy;
}

function read(container: Container, token: string): JsonValue | undefined {
  if (Array.isArray(container)) {
    const index = arrayIndex(token);
    return index === undefined ? undefined : container[index];
  }
  return Object.hasOwn(container, token) ? container[token] : undefined;
}

function write(container: Container, token: string, value: JsonValue): void {
  if (Array.isArray(container)) container[Number(token)] = value;
  else if (token === '__proto__') {
    // A plain assignment would set the prototype rather than an own member.
    Object.defineProperty(container, token, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  } else container[token] = value;
}

function badPath(op: JsonPatchOp, index: number, problem: string): BatonError {
  return new BatonError(
    ErrorCode.INVALID_PAYLOAD,
    `patch op ${index} (${op.op} ${JSON.stringify(op.path)}) does not fit the document: ${problem}`,
    { details: { reason: ProtocolErrorReason.INVALID_PATCH, index, op: op.op, path: op.path } },
  );
}
