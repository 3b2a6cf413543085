import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asJson } from './asJson.ts';
import { anyValue } from './fixtures/anyValue.ts';

/** What asJson must give: the JSON round trip, which would make a Map or a Set `{}`. */
function roundTrip(value: unknown): { value: unknown } | 'refused' {
  try {
    const text = JSON.stringify(value, (_key, member) => {
      if (member instanceof Map || member instanceof Set) throw new Error('a collection');
      return member;
    });
    return { value: text === undefined ? undefined : JSON.parse(text) };
  } catch {
    return 'refused';
  }
}

describe('asJson', () => {
  it('gives what the JSON round trip gives, whatever the value, and refuses a Map or a Set', () => {
    fc.assert(
      fc.property(anyValue(), (value) => {
        const expected = roundTrip(value);
        if (expected === 'refused') expect(() => asJson(value)).toThrow(TypeError);
        else expect(asJson(value)).toStrictEqual(expected.value);
      }),
      { numRuns: 3_000 },
    );
  });

  it('refuses a Map or a Set anywhere, saying what to use, on the walk and on the round trip', () => {
    for (const value of [
      new Map([['a', 1]]),
      { tags: new Set(['a']) },
      [1, { by: new Map() }],
      // A Date sends the value down the round trip itself.
      { at: new Date(5), index: new Map([['a', 1]]) },
    ]) {
      expect(() => asJson(value)).toThrow(
        /^a (Map|Set) is not JSON \(it would be stored as \{\}, its entries lost\): use a plain object or an array$/,
      );
    }
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
    expect(copied).toStrictEqual(JSON.parse(JSON.stringify(value)));
    expect(Object.is(copied.list[5], 0)).toBe(true);
    expect(Object.is(copied.nested.deep[0].x, 0)).toBe(true);
    const withToJson = { at: new Date(5), own: { toJSON: (key: string) => `key ${key}` } };
    expect(asJson(withToJson)).toStrictEqual({ at: new Date(5).toJSON(), own: 'key own' });
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
