/**
 * HMAC-SHA-256 (RFC 2104) over {@link sha256}: synchronous and free of platform modules, as the
 * digest is. Used for the tags of receipts (client/receipts.ts).
 */
import { sha256 } from './sha256.ts';

/** SHA-256's block: a longer key is hashed first, a shorter one padded with zeros. */
const BLOCK = 64;

/**
 * The HMAC-SHA-256 of `message` (as UTF-8) under `key`, 32 bytes.
 *
 * @example
 * hmacSha256(new TextEncoder().encode('Jefe'), 'what do ya want for nothing?'); // 5bdcc146…
 */
export function hmacSha256(key: Uint8Array, message: string): Uint8Array {
  const block = new Uint8Array(BLOCK);
  block.set(key.length > BLOCK ? sha256(key) : key);
  const data = new TextEncoder().encode(message);
  const inner = new Uint8Array(BLOCK + data.length);
  const outer = new Uint8Array(BLOCK + 32);
  for (let i = 0; i < BLOCK; i++) {
    inner[i] = block[i]! ^ 0x36;
    outer[i] = block[i]! ^ 0x5c;
  }
  inner.set(data, BLOCK);
  outer.set(sha256(inner), BLOCK);
  return sha256(outer);
}
