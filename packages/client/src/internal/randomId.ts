import { uuidFrom } from '@baton/core/shared';

/** A random UUID: `crypto.randomUUID` where available (secure contexts), else from `random`. */
export function randomId(random: () => number): string {
  const crypto = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  return typeof crypto?.randomUUID === 'function' ? crypto.randomUUID() : uuidFrom(random);
}
