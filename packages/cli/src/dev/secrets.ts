import { randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * A fresh random secret of 256 bits, URL-safe: `baton dev` makes two at each start (the
 * inspector's token and the proof that a request came through the dev server).
 *
 * @example
 * const token = newSecret(); // 'q3J0…' (43 characters)
 */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Whether `given` is `secret`, in a time that does not depend on where they differ.
 *
 * @example
 * sameSecret(request.headers['x-baton-token'], token); // false for undefined or a guess
 */
export function sameSecret(given: unknown, secret: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}
