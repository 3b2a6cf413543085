import { canonicalJson } from '../shared/canonicalJson.ts';

/**
 * The digest of a message's name and payload: a 128-bit hash (cyrb128) of their canonical JSON,
 * as 32 hex digits. An idempotency record remembers it, so the same key sent with another
 * message is refused instead of handed the first outcome. Not a cryptographic hash — it need not
 * be: whoever knows a key and its message can send that very message anyway. Synchronous, so an
 * ask enqueues its message without leaving the current task.
 *
 * @example
 * messageFingerprint('deposit', { amount: 5 }); // 32 hex digits, the same everywhere
 */
export function messageFingerprint(name: string, payload: unknown): string {
  const text = canonicalJson([name, payload], 'the payload');
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1, h2, h3, h4].map((h) => (h >>> 0).toString(16).padStart(8, '0')).join('');
}
