/**
 * The bank's demo identity provider: signed demo tokens instead of a real IdP. A token names a
 * user and a role and carries an HMAC-SHA256 of both under the bank's secret, so only whoever
 * holds the secret (the operator: `pnpm --filter @baton/example-bank token alice`) can make one.
 * The app's `auth` checks it on every WebSocket `$connect` and HTTP ingress request.
 *
 * The secret is `BANK_DEMO_SECRET`; without it a fixed development secret is used — except in
 * Lambda, where every sign-in is refused until the deployment sets its own.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ConnectRequest } from '@baton/core';
import { BankUser } from './users.ts';

export { BankUser };

/** The development secret: never used in Lambda. */
const DEV_SECRET = 'baton-bank-demo-secret-for-local-development-only';

function secret(): string | undefined {
  const configured = process.env.BANK_DEMO_SECRET;
  if (configured) return configured;
  return process.env.AWS_LAMBDA_FUNCTION_NAME ? undefined : DEV_SECRET;
}

function sign(body: string, key: string): Buffer {
  return createHmac('sha256', key).update(body).digest();
}

/**
 * A signed demo token for `user` (`<body>.<signature>`, base64url).
 *
 * @example
 * const token = demoToken({ userId: 'alice', role: 'customer' });
 */
export function demoToken(user: BankUser, key = secret()): string {
  if (!key) throw new Error('set BANK_DEMO_SECRET to sign demo tokens');
  const body = Buffer.from(JSON.stringify(BankUser.parse(user))).toString('base64url');
  return `${body}.${sign(body, key).toString('base64url')}`;
}

/**
 * The app's `auth`: the user a valid token names; throws (refusing the connection or request)
 * for a missing, forged or malformed token. The client learns only "unauthorized".
 *
 * @example
 * export default defineApp({ actors: [Account], queries: [balances], auth: demoAuth });
 */
export function demoAuth(request: ConnectRequest): BankUser {
  const key = secret();
  const token = request.token ?? bearer(request.headers.authorization);
  const [body, signature, extra] = (token ?? '').split('.');
  if (!key || !body || !signature || extra !== undefined) throw new Error('unauthorized');
  const expected = sign(body, key);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new Error('unauthorized');
  }
  const user = BankUser.safeParse(JSON.parse(Buffer.from(body, 'base64url').toString('utf8')));
  if (!user.success) throw new Error('unauthorized');
  return user.data;
}

function bearer(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  return value?.startsWith('Bearer ') ? value.slice('Bearer '.length).trim() : undefined;
}
