import { createHash } from 'node:crypto';

/**
 * A stable, short fingerprint of a text: the first 128 bits of its SHA-256, base64url (22 chars).
 * Results of queries are compared and resumed by the hash of their canonical JSON.
 *
 * @example
 * hashText('{"total":5}'); // the same 22 characters on every server, every run
 */
export function hashText(text: string): string {
  return createHash('sha256').update(text).digest().subarray(0, 16).toString('base64url');
}
