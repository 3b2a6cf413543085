import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asJson, asStrictJson, findCollection } from './asJson.ts';
import { anyValue } from './fixtures/anyValue.ts';

/** What asJson must give: the JSON round trip. */
function roundTrip(value: unknown): unknown {
  const text = JSON.stringify(value);
  return text === undefined ? undefined : JSON.parse(text);
}

/** Whether the round trip would meet a Map or a Set, which it keeps as `{}`. */
function holdsCollection(value: unknown): boolean {
  let found = false;
  JSON.stringify(value, (_key, member) => {
    if (member instanceof Map || member instanceof Set) found = true;
    return member;
  });
  return found;
}

describe('asJson', () => {
  it('gives what the JSON round trip gives, whatever the value', () => {
    fc.assert(
      fc.property(anyValue(), (value) => {
        expect(asJson(value)).toStrictEqual(roundTrip(value));
      }),
      { numRuns: 3_000 },
    );
  });

  it('asStrictJson gives the same, but refuses a value holding a Map or a Set', () => {
    fc.assert(
      fc.property(anyValue(), (value) => {
        if (holdsCollection(value)) expect(() => asStrictJson(value)).toThrow(TypeError);
        else expect(asStrictJson(value)).toStrictEqual(roundTrip(value));
      }),
      { numRuns: 3_000 },
    );
  });

  it('asStrictJson refuses a Map or a Set anywhere, saying what to use, on the walk and on the round trip', () => {
    for (const value of [
      new Map([['a', 1]]),
      { tags: new Set(['a']) },
      [1, { by: new Map() }],
      // A toJSON other than a Date's sends the value down the round trip itself.
      { at: new URL('https://example.com/'), index: new Map([['a', 1]]) },
    ]) {
      expect(() => asStrictJson(value)).toThrow(
        /^a (Map|Set) is not JSON \(it would be stored as \{\}, its entries lost\): use a plain object or an array$/,
      );
      expect(asJson(value)).toStrictEqual(roundTrip(value));
    }
  });

  it('findCollection finds a Map or a Set wherever asStrictJson refuses one', () => {
    fc.assert(
      fc.property(anyValue(), (value) => {
        // anyValue holds no BigInt and no cycle: what asStrictJson refuses is a Map or a Set.
        let refused = false;
        try {
          asStrictJson(value);
        } catch {
          refused = true;
        }
        expect(findCollection(value) !== undefined).toBe(refused);
      }),
      { numRuns: 3_000 },
    );
  });

  it('findCollection names where JSON meets the first Map or Set, and which', () => {
    expect(findCollection({ a: [1, { b: new Set() }], c: new Map() })).toEqual({
      path: ['a', '1', 'b'],
      kind: 'Set',
    });
    expect(findCollection(new Map())).toEqual({ path: [], kind: 'Map' });
    // As JSON meets it: through toJSON.
    const own = { toJSON: () => ({ inner: [new Map()] }) };
    expect(findCollection({ at: new Date(0), own })).toEqual({
      path: ['own', 'inner', '0'],
      kind: 'Map',
    });
    expect(findCollection({ a: 1, b: [null, 'x', { c: {} }], at: new Date(0) })).toBeUndefined();
    // A BigInt JSON meets first is refused by JSON itself, as asStrictJson refuses it.
    expect(findCollection({ big: 1n, tags: new Set() })).toBeUndefined();
    expect(findCollection({ tags: new Set(), big: 1n })).toEqual({ path: ['tags'], kind: 'Set' });
  });

  it('leaves out what JSON leaves out, writes null for it in arrays and -0 as 0, and calls toJSON with its key', () => {
    const sparse = [1, 2, 3];
    delete sparse[1];
    const value = {
      gone: undefined,
      fn: () => 1,
      [Symbol('s')]: 1,
      list: [undefined, () => 1, Symbol('s'), Number.NaN, Number.NEGATIVE_INFINITY, -0],
      sparse,
      nested: { deep: [{ x: -0 }] },
    };
    const copied = asJson(value) as { list: unknown[]; nested: { deep: [{ x: number }] } };
    expect(copied).toStrictEqual(roundTrip(value));
    expect(Object.is(copied.list[5], 0)).toBe(true);
    expect(Object.is(copied.nested.deep[0].x, 0)).toBe(true);
    const withToJson = { at: new Date(5), own: { toJSON: (key: string) => `key ${key}` } };
    expect(asJson(withToJson)).toStrictEqual({ at: new Date(5).toJSON(), own: 'key own' });
    // A Date as JSON writes it: its ISO string, null if invalid, its own toJSON if it has one.
    const dates = {
      at: [new Date(0), new Date(Number.NaN)],
      own: Object.assign(new Date(5), { toJSON: (key: string) => `own ${key}` }),
    };
    expect(asJson(dates)).toStrictEqual({ at: [new Date(0).toJSON(), null], own: 'own own' });
    expect(asStrictJson(dates)).toStrictEqual(asJson(dates));
    expect(asJson(undefined)).toBeUndefined();
    expect(asJson(() => 1)).toBeUndefined();
  });

  it('copies: the result shares nothing with the value', () => {
    const value = { state: { tags: ['a'], at: { n: 1 } } };
    const copied = asJson(value) as typeof value;
    copied.state.tags.push('b');
    copied.state.at.n = 2;
    expect(value).toStrictEqual({ state: { tags: ['a'], at: { n: 1 } } });
  });

  it('keeps a __proto__ key an own property, as JSON.parse does, and sets no prototype', () => {
    const value = JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}');
    const copied = asJson(value) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copied)).toBe(Object.prototype);
    expect(Object.keys(copied)).toEqual(['__proto__', 'ok']);
    expect(copied.polluted).toBeUndefined();
    // Alone too, holding an empty object: nothing else sends the value down the round trip.
    const alone = asJson(JSON.parse('{"__proto__": {}}')) as object;
    expect(Object.getPrototypeOf(alone)).toBe(Object.prototype);
    expect(Object.keys(alone)).toEqual(['__proto__']);
  });

  it('throws what JSON.stringify throws: bigints, cycles through objects and arrays', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    const loop: unknown[] = [1];
    loop.push(loop);
    for (const value of [1n, { n: [2n] }, cyclic, loop]) {
      expect(() => asJson(value)).toThrow(TypeError);
    }
  });

  it('copies nesting deeper than the walk goes through the round trip', () => {
    let deep: unknown = 'end';
    for (let depth = 0; depth < 1_000; depth++) deep = { depth, next: deep };
    expect(asJson(deep)).toStrictEqual(deep);
  });
});
