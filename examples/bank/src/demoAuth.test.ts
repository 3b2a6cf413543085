import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { demoAuth, demoToken } from './demoAuth.ts';

const headers = {};

describe('the bank’s demo identity provider', () => {
  it('signs a user in with a token signed by the bank’s secret, from the subprotocol or a bearer header', () => {
    const token = demoToken({ userId: 'alice', role: 'customer' });
    expect(demoAuth({ token, headers })).toEqual({ userId: 'alice', role: 'customer' });
    expect(demoAuth({ headers: { authorization: `Bearer ${token}` } })).toEqual({
      userId: 'alice',
      role: 'customer',
    });
  });

  it('ends the identity when the token expires, and refuses it from then on', () => {
    const now = Date.now();
    const token = demoToken({ userId: 'alice', role: 'customer' }, { now, hours: 1 });
    const ends: number[] = [];
    const user = demoAuth({ token, headers, validUntil: (at) => ends.push(at) });
    expect(user).toEqual({ userId: 'alice', role: 'customer' });
    expect(ends).toEqual([Math.floor(now / 1000 + 3600) * 1000]);
    const expired = demoToken(
      { userId: 'alice', role: 'customer' },
      { now: now - 3_601_000, hours: 1 },
    );
    expect(() => demoAuth({ token: expired, headers })).toThrow(/^a token that expired at 20/);
  });

  it('refuses any spelling of a token but its own, as a deny-list matches it', () => {
    const token = demoToken({ userId: 'alice', role: 'customer' });
    for (const respelt of [`${token}!!`, `${token}%`, `${token}=`, `${token} `]) {
      expect(() => demoAuth({ token: respelt, headers }), respelt).toThrow('not a demo token');
    }
  });

  it('refuses a missing token, one signed with another secret, and one whose body was changed', () => {
    const forged = demoToken({ userId: 'alice', role: 'admin' }, { key: 'not the bank’s secret' });
    const [, signature] = demoToken({ userId: 'mallory', role: 'customer' }).split('.');
    const raised = `${Buffer.from('{"userId":"mallory","role":"admin"}').toString('base64url')}.${signature}`;
    const refusals: [string | undefined, string][] = [
      [undefined, 'no token'],
      ['', 'no token'],
      ['x', 'not a demo token'],
      ['x.y', 'not a demo token'],
      [forged, 'not signed with this bank’s secret'],
      [raised, 'not signed with this bank’s secret'],
    ];
    for (const [token, why] of refusals) {
      expect(() => demoAuth({ ...(token === undefined ? {} : { token }), headers })).toThrow(why);
    }
  });

  describe('BANK_DEMO_SECRET', () => {
    afterEach(() => vi.unstubAllEnvs());

    it('is refused when shorter than 32 bytes, which a captured token lets anyone guess offline', () => {
      vi.stubEnv('BANK_DEMO_SECRET', 'x'.repeat(31));
      expect(() => demoToken({ userId: 'alice', role: 'customer' })).toThrow(
        /BANK_DEMO_SECRET is 31 bytes, too short.*at least 32 random bytes/,
      );
      expect(() => demoAuth({ token: 'x.y', headers })).toThrow('BANK_DEMO_SECRET is 31 bytes');
    });

    it('signs users in when it is 32 bytes or longer', () => {
      vi.stubEnv('BANK_DEMO_SECRET', 'k'.repeat(32));
      const token = demoToken({ userId: 'alice', role: 'customer' });
      expect(demoAuth({ token, headers })).toEqual({ userId: 'alice', role: 'customer' });
      // Signed with that very secret.
      expect(token).toBe(demoToken({ userId: 'alice', role: 'customer' }, { key: 'k'.repeat(32) }));
    });
  });

  describe('its secret, when BANK_DEMO_SECRET is not set', () => {
    afterEach(() => vi.unstubAllEnvs());

    it('is one no one can read in the repository: a token signed with the secret it once published is refused', () => {
      vi.stubEnv('BANK_DEMO_SECRET', '');
      const published = 'baton-bank-demo-secret-for-local-development-only';
      const token = demoToken({ userId: 'mallory', role: 'admin' }, { key: published });
      expect(() => demoAuth({ token, headers })).toThrow('not signed with this bank’s secret');
    });

    it('is the user’s, shared by their processes: a token `pnpm token` prints signs in here', () => {
      vi.stubEnv('BANK_DEMO_SECRET', '');
      const script = fileURLToPath(new URL('./token.ts', import.meta.url));
      const env = { ...process.env, BANK_DEMO_SECRET: '' };
      const printed = execFileSync(process.execPath, ['--import', 'tsx', script, 'bob'], {
        env,
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      const token = printed.toString().trim();
      expect(demoAuth({ token, headers })).toEqual({ userId: 'bob', role: 'customer' });
    });

    it('is none in Lambda: every sign-in is refused until the deployment sets one', () => {
      vi.stubEnv('BANK_DEMO_SECRET', '');
      vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', 'bank-websocket');
      expect(() => demoAuth({ token: 'x.y', headers })).toThrow('no demo secret');
      expect(() => demoToken({ userId: 'alice', role: 'customer' })).toThrow('BANK_DEMO_SECRET');
    });
  });
});
