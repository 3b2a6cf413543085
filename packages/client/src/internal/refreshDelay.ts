/** The most a connection is renewed ahead of its token's expiry. */
const MAX_LEAD_MS = 60_000;
/** The least wait before a renewal, so that a token function handing out old tokens cannot spin. */
const MIN_DELAY_MS = 1_000;

/**
 * How long a connection opened now may stay up before it is renewed: `maxConnectionMs`, or less
 * when it was opened with a fresh token (from the `token` function) that expires sooner. It is
 * then renewed ahead of the expiry (a minute, or a quarter of the time left if less), so that the
 * server never closes it for that and a live query never waits for a reconnect. A token that is
 * not a JWT, has no `exp`, or has expired already, changes nothing.
 *
 * @example
 * renewDelay(jwtWithExpIn10Minutes, Date.now(), 110 * 60_000); // about 9 minutes
 */
export function renewDelay(
  token: string | undefined,
  now: number,
  maxConnectionMs: number,
): number {
  const expiry = token === undefined ? undefined : tokenExpiry(token);
  const left = expiry === undefined ? 0 : expiry - now;
  if (left <= 0) return maxConnectionMs;
  const delay = left - Math.min(MAX_LEAD_MS, left / 4);
  return Math.min(maxConnectionMs, Math.max(MIN_DELAY_MS, delay));
}

/** The `exp` of a JWT, in epoch ms; undefined for anything else. Its signature is not checked. */
export function tokenExpiry(token: string): number | undefined {
  const payload = token.split('.')[1];
  if (payload === undefined || payload === '') return undefined;
  try {
    const base64 = payload.replace(/-/g, '+').replace(/_/g, '/');
    const claims = JSON.parse(atob(base64.padEnd(Math.ceil(base64.length / 4) * 4, '=')));
    const exp = claims?.exp;
    return typeof exp === 'number' && Number.isFinite(exp) ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}
