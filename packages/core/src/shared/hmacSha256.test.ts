import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hmacSha256 } from './hmacSha256.ts';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

describe('hmacSha256', () => {
  it("gives RFC 4231's HMAC-SHA-256 test vectors", () => {
    expect(hex(hmacSha256(new Uint8Array(20).fill(0x0b), 'Hi There'))).toBe(
      'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7',
    );
    expect(hex(hmacSha256(new TextEncoder().encode('Jefe'), 'what do ya want for nothing?'))).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
    // A key longer than a block is hashed first (test case 6).
    const long = new Uint8Array(131).fill(0xaa);
    expect(hex(hmacSha256(long, 'Test Using Larger Than Block-Size Key - Hash Key First'))).toBe(
      '60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54',
    );
  });

  it("agrees with Node's for keys and texts of every length around the block", () => {
    for (const keyBytes of [0, 1, 32, 63, 64, 65, 200]) {
      for (const textLength of [0, 1, 55, 56, 64, 119, 1000]) {
        const key = randomBytes(keyBytes);
        const text = 'é'.repeat(textLength);
        const expected = createHmac('sha256', key).update(text, 'utf8').digest('hex');
        expect(hex(hmacSha256(key, text))).toBe(expected);
      }
    }
  });
});
