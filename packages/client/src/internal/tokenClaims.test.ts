import { describe, expect, it } from 'vitest';
import { refreshDelay, tokenExpiry, tokenSubject } from './tokenClaims.ts';

const NOW = 1_800_000_000_000;
const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
/** An unsigned JWT with these claims: only its payload is read. */
const jwt = (claims: Record<string, unknown>) => `${part({ alg: 'RS256' })}.${part(claims)}.sig`;
const seconds = (ms: number) => ms / 1000;
/** A token issued `ago` ms before NOW that lives `life` ms. */
const issued = (life: number, ago = 0) =>
  jwt({ sub: 'u', iat: seconds(NOW - ago), exp: seconds(NOW - ago + life) });

describe('refreshDelay', () => {
  it.each([
    ['a day', 86_400_000, 86_340_000],
    ['an hour', 3_600_000, 3_540_000],
    ['two minutes (a quarter ahead)', 120_000, 90_000],
    ['two seconds', 2_000, 1_500],
    ['a second (the least wait)', 1_000, 1_000],
  ])('refreshes a token that lives %s ahead of its exp', (_what, life, delay) => {
    expect(refreshDelay(issued(life), NOW)).toBe(delay);
  });

  it('measures the life from iat, so that a client clock off by minutes changes nothing', () => {
    const token = issued(300_000);
    expect(refreshDelay(token, NOW + 299_000)).toBe(240_000);
    expect(refreshDelay(token, NOW - 3_600_000)).toBe(240_000);
  });

  it('measures the life from now for a token without iat', () => {
    expect(refreshDelay(jwt({ exp: seconds(NOW + 600_000) }), NOW)).toBe(540_000);
    expect(refreshDelay(jwt({ exp: seconds(NOW - 1) }), NOW)).toBeUndefined();
  });

  it.each([
    ['no token', undefined],
    ['a token that is not a JWT', 'dev-token'],
    ['a JWT without exp', jwt({ sub: 'u' })],
    ['a JWT whose exp is not a number', jwt({ exp: '1800000600' })],
    ['a JWT that never lived', jwt({ iat: seconds(NOW), exp: seconds(NOW) })],
    ['a payload that is not JSON', 'a.bm90IGpzb24.c'],
    ['an encrypted JWT (five parts)', 'eyJhbGciOiJSU0EtT0FFUCJ9.a2V5.aXY.Y2lwaGVy.dGFn'],
  ])('has nothing to refresh for %s', (_what, token) => {
    expect(refreshDelay(token, NOW)).toBeUndefined();
  });
});

describe('tokenExpiry', () => {
  it('reads exp in epoch ms from a payload with URL-safe characters and no padding', () => {
    const token = jwt({ sub: '>>>???', name: 'Zoë', exp: 1_800_000_600 });
    expect(token.split('.')[1]).toMatch(/[-_]/);
    expect(tokenExpiry(token)).toBe(1_800_000_600_000);
  });
});

describe('tokenSubject', () => {
  it('names the user of a JWT by its sub, with its iss when it has one', () => {
    expect(tokenSubject(jwt({ sub: 'alice' }))).toBe('alice');
    expect(tokenSubject(jwt({ sub: 'alice', iss: 'https://auth.example' }))).toBe(
      'alice (https://auth.example)',
    );
  });

  it.each([
    ['no token', undefined],
    ['a token that is not a JWT', 'alice'],
    ['a JWT with no sub', jwt({ exp: 1_800_000_600 })],
    ['a JWT whose sub is not a string', jwt({ sub: 42 })],
  ])('cannot tell the user of %s', (_what, token) => {
    expect(tokenSubject(token)).toBe('');
  });
});
