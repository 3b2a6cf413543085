import { ErrorCode } from '@baton/core';
import { canonicalJson } from '@baton/core/adapter';
import { describe, expect, it } from 'vitest';
import { hashText } from './evaluation/hashText.ts';

describe('canonicalJson', () => {
  it('sorts object keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }, 1] })).toBe('{"a":[{"c":3,"d":2},1],"b":1}');
  });

  it('gives equal text for equal values whatever their key order', () => {
    const one = canonicalJson({ x: { p: 1, q: [true, null] }, y: 'z' });
    const two = canonicalJson({ y: 'z', x: { q: [true, null], p: 1 } });
    expect(one).toBe(two);
    expect(hashText(one)).toBe(hashText(two));
    expect(hashText(one)).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it('follows JSON.stringify for undefined fields, dates and non-finite numbers', () => {
    const date = new Date(Date.UTC(2026, 0, 1));
    expect(canonicalJson({ b: undefined, a: date, c: Number.NaN })).toBe(
      '{"a":"2026-01-01T00:00:00.000Z","c":null}',
    );
    expect(canonicalJson(undefined)).toBe('null');
  });

  it('throws INVALID_ARGUMENT for a cycle or a BigInt', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => canonicalJson(cycle, 'the result')).toThrow(/^the result is not JSON/);
    expect(() => canonicalJson({ n: 1n })).toThrow(
      expect.objectContaining({ code: ErrorCode.INVALID_ARGUMENT }),
    );
  });
});
