/**
 * The bank's demo identity provider: signed demo tokens instead of a real IdP. A token names a
 * user, a role and when it expires (12 hours after it is made, by default), and carries an
 * HMAC-SHA256 of them under the bank's secret, so only whoever holds the secret (the operator:
 * `pnpm --filter @baton/example-bank token alice`) can make one. The app's `auth` checks it on
 * every WebSocket `$connect` and HTTP ingress request, and ends a connection's identity when
 * its token expires: a token that leaks is good for hours, not for ever.
 *
 * The secret is `BANK_DEMO_SECRET`. Without it, in Lambda every sign-in is refused until the
 * deployment sets one; anywhere else the bank makes a random secret on first use and keeps it in
 * the user's `~/.config/baton/bank-demo-secret`: the dev server (which runs the app bundled,
 * elsewhere), `pnpm token` and the tests, each a process of its own, share it, and no secret
 * that anyone can read in the repository signs a user in.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ConnectRequest } from '@baton/core';
import * as z from 'zod';
import { BankUser } from './users.ts';

export { BankUser };

/** How long a demo token is good for, unless its maker says otherwise. */
export const TOKEN_HOURS = 12;

/** What a token's body holds: the user, and when it expires (`exp`, epoch seconds, as a JWT's). */
const TokenBody = BankUser.extend({ exp: z.number().int() });

/**
 * The shortest secret taken, in bytes: a token and its signature are an offline guessing test for
 * the secret, which a short one does not survive.
 */
export const MIN_SECRET_BYTES = 32;

function secret(): string | undefined {
  const configured = process.env.BANK_DEMO_SECRET;
  if (configured) {
    const bytes = Buffer.byteLength(configured);
    if (bytes < MIN_SECRET_BYTES) {
      throw new Error(
        `BANK_DEMO_SECRET is ${bytes} bytes, too short: anyone holding one token could guess it offline and sign in as anyone. Set it to at least ${MIN_SECRET_BYTES} random bytes, e.g. the output of: node -e "console.log(require('node:crypto').randomBytes(32).toString('base64url'))"`,
      );
    }
    return configured;
  }
  return process.env.AWS_LAMBDA_FUNCTION_NAME ? undefined : localSecret();
}

let local: string | undefined;

/**
 * This user's secret, made on first use. Two processes may make one at once: each writes its own
 * file and links it into place, which only the first link does, so every process reads the same
 * whole secret.
 */
function localSecret(): string {
  if (local) return local;
  const folder = join(homedir(), '.config', 'baton');
  const file = join(folder, 'bank-demo-secret');
  try {
    local = readFileSync(file, 'utf8');
    return local;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw cannotKeep(file, error);
  }
  const mine = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    writeFileSync(mine, randomBytes(32).toString('base64url'), { mode: 0o600 });
    try {
      linkSync(mine, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      unlinkSync(mine);
    }
    local = readFileSync(file, 'utf8');
    return local;
  } catch (error) {
    throw cannotKeep(file, error);
  }
}

function cannotKeep(file: string, error: unknown): Error {
  const why = (error as NodeJS.ErrnoException).code ?? String(error);
  return new Error(`cannot keep the bank's demo secret in ${file} (${why}): set BANK_DEMO_SECRET`);
}

function sign(body: string, key: string): Buffer {
  return createHmac('sha256', key).update(body).digest();
}

/**
 * A signed demo token for `user` (`<body>.<signature>`, base64url), good for `hours`.
 *
 * @example
 * const token = demoToken({ userId: 'alice', role: 'customer' });
 */
export function demoToken(
  user: BankUser,
  { key = secret(), hours = TOKEN_HOURS, now = Date.now() } = {},
): string {
  if (!key) throw new Error('set BANK_DEMO_SECRET to sign demo tokens');
  const exp = Math.floor(now / 1000 + hours * 3600);
  const body = Buffer.from(JSON.stringify({ ...BankUser.parse(user), exp })).toString('base64url');
  return `${body}.${sign(body, key).toString('base64url')}`;
}

/**
 * The app's `auth`: the user a valid token names, until the token expires; throws (refusing the
 * connection or request) for a missing, forged, malformed or expired token, saying which: the
 * server logs why, and the client learns only "unauthorized".
 *
 * @example
 * export default defineApp({ actors: [Account], queries: [balances], auth: demoAuth });
 */
export function demoAuth(request: ConnectRequest): BankUser {
  const key = secret();
  const token = request.token ?? bearer(request.headers.authorization);
  const [body, signature, extra] = (token ?? '').split('.');
  if (!key) throw new Error('no demo secret: set BANK_DEMO_SECRET');
  if (!token) throw new Error('no token (a subprotocol or an "authorization: Bearer" header)');
  if (!body || !signature || extra !== undefined) throw new Error('not a demo token');
  const expected = sign(body, key);
  const given = Buffer.from(signature, 'base64url');
  // Node's decoder skips what is not base64url, so `<token>!!` would decode as the token: one
  // token has one spelling (a deny-list or a search of the logs matches it as a string).
  if (given.toString('base64url') !== signature) throw new Error('not a demo token');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new Error('a token not signed with this bank’s secret');
  }
  const parsed = TokenBody.safeParse(JSON.parse(Buffer.from(body, 'base64url').toString('utf8')));
  if (!parsed.success) throw new Error('a token whose body names no bank user');
  if (parsed.data.exp * 1000 <= Date.now()) {
    throw new Error(`a token that expired at ${new Date(parsed.data.exp * 1000).toISOString()}`);
  }
  const { exp, ...user } = parsed.data;
  request.validUntil?.(exp * 1000);
  return user;
}

function bearer(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  return value?.startsWith('Bearer ') ? value.slice('Bearer '.length).trim() : undefined;
}
