import { describe, expect, it } from 'vitest';
import { deepFreeze } from './deepFreeze.ts';

describe('deepFreeze', () => {
  it('freezes every object and array inside the value, and returns the value', () => {
    const value = { a: { b: [1, { c: 2 }] }, d: 'text' };
    expect(deepFreeze(value)).toBe(value);
    expect(Object.isFrozen(value)).toBe(true);
    expect(Object.isFrozen(value.a)).toBe(true);
    expect(Object.isFrozen(value.a.b)).toBe(true);
    expect(Object.isFrozen(value.a.b[1])).toBe(true);
    expect(() => {
      (value.a.b[1] as { c: number }).c = 3;
    }).toThrow(TypeError);
  });

  it('passes primitives and null through', () => {
    expect(deepFreeze(null)).toBeNull();
    expect(deepFreeze(7)).toBe(7);
    expect(deepFreeze('x')).toBe('x');
  });

  it('walks a shared object once and stops at one frozen already', () => {
    const shared = { n: 1 };
    const value = { left: shared, right: shared, done: Object.freeze({ inner: { m: 1 } }) };
    deepFreeze(value);
    expect(Object.isFrozen(shared)).toBe(true);
    // Frozen already: taken as frozen through and through, its inside left as it was.
    expect(Object.isFrozen(value.done.inner)).toBe(false);
  });
});
