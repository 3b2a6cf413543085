import { describe, expect, it } from 'vitest';
import { renewDelay, tokenExpiry } from './renewDelay.ts';

const NOW = 1_800_000_000_000;
const MAX = 110 * 60_000;
const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
/** An unsigned JWT with these claims: only its payload is read. */
const jwt = (claims: Record<string, unknown>) => `${part({ alg: 'RS256' })}.${part(claims)}.sig`;
const expiringIn = (ms: number) => jwt({ sub: 'u', exp: (NOW + ms) / 1000 });

describe('renewDelay', () => {
  it.each([
    ['an hour', 3_600_000, 3_540_000],
    ['ten minutes', 600_000, 540_000],
    ['two minutes (a quarter ahead)', 120_000, 90_000],
    ['two seconds', 2_000, 1_500],
    ['a second (the least wait)', 1_000, 1_000],
  ])('renews a token expiring in %s ahead of its exp', (_what, left, delay) => {
    expect(renewDelay(expiringIn(left), NOW, MAX)).toBe(delay);
  });

  it('keeps maxConnectionMs when the token outlives it', () => {
    expect(renewDelay(expiringIn(24 * 3_600_000), NOW, MAX)).toBe(MAX);
  });

  it.each([
    ['no token', undefined],
    ['a token that is not a JWT', 'dev-token'],
    ['a JWT without exp', jwt({ sub: 'u' })],
    ['a JWT whose exp is not a number', jwt({ exp: '1800000600' })],
    ['a JWT that expired already', expiringIn(-1)],
    ['a payload that is not JSON', 'a.bm90IGpzb24.c'],
  ])('changes nothing for %s', (_what, token) => {
    expect(renewDelay(token, NOW, MAX)).toBe(MAX);
  });
});

describe('tokenExpiry', () => {
  it('reads exp in epoch ms from a payload with URL-safe characters and no padding', () => {
    const token = jwt({ sub: '>>>???', name: 'Zoë', exp: 1_800_000_600 });
    expect(token.split('.')[1]).toMatch(/[-_]/);
    expect(tokenExpiry(token)).toBe(1_800_000_600_000);
  });
});
