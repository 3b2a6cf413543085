import { describe, expect, it } from 'vitest';
import { deepCopy, MAX_DEPTH } from './deepCopy.ts';

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
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    const loop: unknown[] = [1];
    loop.push(loop);
    const sparse = [1, 2, 3];
    delete sparse[1];
    class Point {
      constructor(readonly x: number) {}
    }
    const values = [
      { when: new Date(5), map: new Map([['a', 1]]), set: new Set([1]) },
      cyclic,
      loop,
      { list: sparse },
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

  it('keeps no more than JSON keeps: a shared object is copied twice, an array loses its named properties', () => {
    const shared = { n: 1 };
    const copy = deepCopy({ a: shared, b: shared, list: Object.assign([1, 2], { extra: true }) });
    expect(copy).toStrictEqual({ a: { n: 1 }, b: { n: 1 }, list: [1, 2] });
    expect(copy.a).not.toBe(copy.b);
    expect(copy.a).not.toBe(shared);
    expect(JSON.parse(JSON.stringify(copy))).toStrictEqual(copy);
  });

  it('copies nesting deeper than MAX_DEPTH through structuredClone, equal and unshared', () => {
    const deep: { next?: unknown; depth: number } = { depth: 0 };
    let at = deep;
    for (let depth = 1; depth <= MAX_DEPTH + 10; depth++) {
      const next = { depth };
      at.next = next;
      at = next;
    }
    const copy = deepCopy(deep);
    expect(copy).toStrictEqual(deep);
    expect(copy.next).not.toBe(deep.next);
  });

  it('throws what structuredClone throws for values it cannot copy', () => {
    for (const value of [{ f: () => 1 }, [Symbol('s')], () => 1]) {
      expect(() => deepCopy(value)).toThrow(DOMException);
      expect(() => structuredClone(value)).toThrow(DOMException);
    }
  });
});
