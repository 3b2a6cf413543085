import { uuidFrom } from '@baton/core/shared';

type WebCrypto = { randomUUID?: () => string; getRandomValues?: (bytes: Uint8Array) => Uint8Array };

/**
 * A random UUID for a default idempotency key: `crypto.randomUUID` where available (secure
 * contexts), else drawn from `crypto.getRandomValues` (a page served over plain HTTP from
 * another host has it, not `randomUUID`), and from `random` only where there is no Web Crypto.
 */
export function randomId(random: () => number): string {
  const crypto = (globalThis as { crypto?: WebCrypto }).crypto;
  if (typeof crypto?.randomUUID === 'function') return crypto.randomUUID();
  if (typeof crypto?.getRandomValues === 'function') {
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    let next = 0;
    return uuidFrom(() => bytes[next++]! / 256);
  }
  return uuidFrom(random);
}
