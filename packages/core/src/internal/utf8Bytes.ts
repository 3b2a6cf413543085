/**
 * UTF-8 length of `s`, or `undefined` if it holds an unpaired surrogate (no UTF-8 form): how
 * Baton measures keys and items against byte limits, without a Buffer (the core runs in browsers).
 */
export function utf8Bytes(s: string): number | undefined {
  let bytes = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) return undefined;
      bytes += 4;
      i++;
    } else if (c >= 0xdc00 && c <= 0xdfff) return undefined;
    else bytes += 3;
  }
  return bytes;
}
