import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyPatch } from './applyPatch.ts';
import { diff } from './diff.ts';
import type { JsonValue } from './JsonPatchOp.ts';

/** As the value arrives over the wire (e.g. -0 becomes 0). */
const wire = (value: JsonValue): unknown => JSON.parse(JSON.stringify(value));

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}

/** `a` with members replaced, added or removed at random depths (related values diff deeply). */
function mutate(a: JsonValue, steps: readonly [number, JsonValue][]): JsonValue {
  const doc = structuredClone(a) as JsonValue;
  for (const [choice, value] of steps) {
    if (typeof doc !== 'object' || doc === null) return value;
    let node = doc as Record<string, JsonValue> | JsonValue[];
    for (let depth = 0; depth < choice % 4; depth++) {
      const members = Object.values(node).filter((m) => typeof m === 'object' && m !== null);
      if (members.length === 0) break;
      node = members[choice % members.length] as typeof node;
    }
    const keys = Object.keys(node);
    const key = keys.length === 0 ? '0' : keys[choice % keys.length]!;
    if (Array.isArray(node)) {
      if (choice % 3 === 0) node.splice(Number(key), 1);
      else if (choice % 3 === 1) node.splice(Number(key), 0, value);
      else node[Number(key)] = value;
    } else if (choice % 3 === 0) delete node[key];
    else node[choice % 3 === 1 ? `k${choice}` : key] = value;
  }
  return doc;
}

const json = fc.jsonValue({ maxDepth: 4 }) as fc.Arbitrary<JsonValue>;
const related = fc
  .tuple(json, fc.array(fc.tuple(fc.nat(), json), { maxLength: 4 }))
  .map(([a, steps]) => [a, mutate(a, steps)] as const);
const lists = fc
  .tuple(
    fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 20 }),
    fc.array(fc.tuple(fc.nat(), fc.nat(9)), { maxLength: 5 }),
  )
  .map(([a, steps]) => [a as JsonValue, mutate(a, steps)] as const);

describe('diff', () => {
  it('gives a patch that turns a into b for random JSON values, leaving a untouched', () => {
    fc.assert(
      fc.property(fc.oneof(fc.tuple(json, json), related, lists), ([a, b]) => {
        const before = wire(a);
        const patched = applyPatch(deepFreeze(a), diff(a, b));
        expect(wire(patched)).toEqual(wire(b));
        expect(wire(a)).toEqual(before);
      }),
      { numRuns: 1_000 },
    );
  });

  it('gives no operations for equal values', () => {
    expect(diff({ a: [1, { b: null }], c: 'x' }, { c: 'x', a: [1, { b: null }] })).toEqual([]);
  });

  it('changes only what changed in an object', () => {
    const a = { balance: 25, owner: 'alice', pending: true };
    const b = { balance: 30, owner: 'alice', history: [5] };
    expect(diff(a, b)).toEqual([
      { op: 'replace', path: '/balance', value: 30 },
      { op: 'remove', path: '/pending' },
      { op: 'add', path: '/history', value: [5] },
    ]);
  });

  it('turns an item prepended to a list into one add, and a removed one into one remove', () => {
    const list = [{ id: 2 }, { id: 1 }];
    expect(diff(list, [{ id: 3 }, ...list])).toEqual([{ op: 'add', path: '/0', value: { id: 3 } }]);
    expect(diff([1, 2, 3, 4], [1, 4])).toEqual([
      { op: 'remove', path: '/1' },
      { op: 'remove', path: '/1' },
    ]);
    expect(diff({ items: [1, 2] }, { items: [1, 2, 3] })).toEqual([
      { op: 'add', path: '/items/2', value: 3 },
    ]);
  });

  it('replaces a value whose kind changed, the root included', () => {
    expect(diff({ a: [1] }, { a: { 0: 1 } })).toEqual([
      { op: 'replace', path: '/a', value: { 0: 1 } },
    ]);
    expect(diff([1], 'x')).toEqual([{ op: 'replace', path: '', value: 'x' }]);
  });

  it('escapes keys holding / and ~ in its paths', () => {
    const ops = diff({}, { 'a/b': 1, '~c': 2, '': 3 });
    expect(ops.map((op) => op.path)).toEqual(['/a~1b', '/~0c', '/']);
    expect(applyPatch({}, ops)).toEqual({ 'a/b': 1, '~c': 2, '': 3 });
  });

  it('handles a key named __proto__ as an ordinary member', () => {
    const b = JSON.parse('{"__proto__":{"polluted":true}}') as JsonValue;
    const patched = applyPatch({}, diff({}, b)) as Record<string, unknown>;
    expect(Object.getPrototypeOf(patched)).toBe(Object.prototype);
    expect(Object.hasOwn(patched, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
