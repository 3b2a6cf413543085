import { createHash } from 'node:crypto';

/**
 * The SHA-256 digest of `text` (as UTF-8), in `encoding`: what Baton's keys, ids and tokens
 * on AWS hash long or free-form strings into.
 *
 * @example
 * sha256('account/a'); // 43 base64url characters
 */
export function sha256(text: string, encoding: 'base64url' | 'hex' = 'base64url'): string {
  return createHash('sha256').update(text).digest(encoding);
}
