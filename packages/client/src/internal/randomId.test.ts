import { afterEach, describe, expect, it, vi } from 'vitest';
import { randomId } from './randomId.ts';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** A `Math.random` stand-in that would make every key the same. */
const stuck = () => 0;

afterEach(() => vi.unstubAllGlobals());

describe('randomId (default idempotency keys)', () => {
  it('is crypto.randomUUID where the page has it', () => {
    vi.stubGlobal('crypto', { randomUUID: () => 'from-random-uuid' });
    expect(randomId(stuck)).toBe('from-random-uuid');
  });

  it('draws from crypto.getRandomValues on a page without randomUUID (plain HTTP), not from Math.random', () => {
    const getRandomValues = globalThis.crypto.getRandomValues.bind(globalThis.crypto);
    vi.stubGlobal('crypto', { getRandomValues });
    const keys = new Set(Array.from({ length: 100 }, () => randomId(stuck)));
    expect(keys.size).toBe(100);
    for (const key of keys) expect(key).toMatch(UUID_V4);
  });

  it('falls back to the given random source only where there is no Web Crypto', () => {
    vi.stubGlobal('crypto', undefined);
    expect(randomId(stuck)).toBe('00000000-0000-4000-8000-000000000000');
  });
});
