import { describe, expect, it } from 'vitest';
import { deepCopy } from './deepCopy.ts';

/** What structuredClone gives, compared by structure, prototypes and sharing. */
function expectAsStructuredClone(value: unknown): void {
  const copied = deepCopy(value);
  const cloned = structuredClone(value);
  expect(copied).toStrictEqual(cloned);
  expect(describeShape(copied)).toEqual(describeShape(cloned));
}

/** Prototypes, own keys (holes included) and which objects are the same, in walk order. */
function describeShape(value: unknown, seen = new Map<object, number>()): unknown {
  if (typeof value !== 'object' || value === null) return [typeof value, value];
  const at = seen.get(value);
  if (at !== undefined) return ['same as', at];
  seen.set(value, seen.size);
  const proto = Object.getPrototypeOf(value);
  const kind = proto === null ? 'null' : String(proto.constructor?.name);
  if (value instanceof Map || value instanceof Date || value instanceof Set) return [kind, value];
  return [
    kind,
    Reflect.ownKeys(value).map((key) => [
      key,
      describeShape((value as Record<string | symbol, unknown>)[key], seen),
    ]),
  ];
}

describe('deepCopy', () => {
  it('copies plain records so that changing the copy leaves the original as it was', () => {
    const record = {
      id: 'tally/t1',
      ver: 4,
      state: { n: 13, tags: ['a', 'b'], nested: { deep: [{ x: 1 }, null, undefined] } },
      marks: {},
      big: 10n,
      negativeZero: -0,
    };
    const copy = deepCopy(record);
    expect(copy).toStrictEqual(record);
    copy.state.tags.push('c');
    copy.state.nested.deep[0]!.x = 2;
    expect(record.state.tags).toEqual(['a', 'b']);
    expect(record.state.nested.deep[0]).toEqual({ x: 1 });
    expect(Object.is(copy.negativeZero, -0)).toBe(true);
  });

  it('gives what structuredClone gives for values that are not plain data', () => {
    const shared = { n: 1 };
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    const sparse = [1, 2, 3];
    delete sparse[1];
    const tagged = Object.assign([1, 2], { extra: true });
    class Point {
      constructor(readonly x: number) {}
    }
    const values = [
      { when: new Date(5), map: new Map([['a', 1]]), set: new Set([1]) },
      { a: shared, b: shared },
      cyclic,
      { list: sparse },
      { list: tagged },
      { point: new Point(3) },
      JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}'),
      Object.assign(Object.create(null), { bare: 1 }),
      [new Uint8Array([1, 2])],
      'text',
      42,
      null,
      undefined,
    ];
    for (const value of values) expectAsStructuredClone(value);
  });

  it('throws what structuredClone throws for values it cannot copy', () => {
    for (const value of [{ f: () => 1 }, [Symbol('s')], () => 1]) {
      expect(() => deepCopy(value)).toThrow(DOMException);
      expect(() => structuredClone(value)).toThrow(DOMException);
    }
  });
});
