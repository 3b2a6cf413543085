/** The most a token is refreshed ahead of its expiry. */
const MAX_LEAD_MS = 60_000;
/** The least wait before a refresh, so that short-lived tokens cannot make the client spin. */
const MIN_DELAY_MS = 1_000;

/**
 * How long after a connection opened with `token` (fresh from the `token` function) a fresh one
 * is fetched for it: ahead of its expiry by a minute, or a quarter of its life if that is less;
 * `undefined` when there is nothing to refresh (no token, not a JWT, no `exp`, expired already).
 * A token's life is measured from its `iat` when it has one, so that a client clock that is off
 * does not make the client refresh too early (or spin); else from `now`.
 *
 * @example
 * refreshDelay(jwtIssuedNowForTenMinutes, Date.now()); // 9 minutes
 */
export function refreshDelay(token: string | undefined, now: number): number | undefined {
  const claims = token === undefined ? undefined : jwtClaims(token);
  const exp = timeClaim(claims?.exp);
  if (exp === undefined) return undefined;
  const iat = timeClaim(claims?.iat);
  const life = iat === undefined ? exp - now : exp - iat;
  if (life <= 0) return undefined;
  return Math.max(MIN_DELAY_MS, life - Math.min(MAX_LEAD_MS, life / 4));
}

/** The `exp` of a JWT, in epoch ms; undefined for anything else. Its signature is not checked. */
export function tokenExpiry(token: string): number | undefined {
  return timeClaim(jwtClaims(token)?.exp);
}

/**
 * Who a token names, as far as the client can tell: a JWT's `sub` (with its `iss`, when it has
 * one); `''` for a token that is not a JWT or names no subject, and for no token. Its signature
 * is not checked: the client only compares the users its own tokens name.
 *
 * @example
 * tokenSubject(jwtForAlice); // 'alice (https://auth.example)'
 */
export function tokenSubject(token: string | undefined): string {
  const claims = token === undefined ? undefined : jwtClaims(token);
  const { sub, iss } = claims ?? {};
  if (typeof sub !== 'string' || sub === '') return '';
  return typeof iss === 'string' && iss !== '' ? `${sub} (${iss})` : sub;
}

/** A JWT's payload, undecoded claims and all; undefined for a token that is not a JWT. */
function jwtClaims(token: string): Record<string, unknown> | undefined {
  const payload = token.split('.')[1];
  if (payload === undefined || payload === '') return undefined;
  try {
    const base64 = payload.replace(/-/g, '+').replace(/_/g, '/');
    const claims = JSON.parse(atob(base64.padEnd(Math.ceil(base64.length / 4) * 4, '=')));
    return typeof claims === 'object' && claims !== null ? claims : undefined;
  } catch {
    return undefined;
  }
}

/** A NumericDate claim (epoch seconds) in epoch ms. */
function timeClaim(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value * 1000 : undefined;
}
