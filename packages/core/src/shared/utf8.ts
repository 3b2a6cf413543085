/**
 * UTF-8 sizes without encoding: Baton's one byte count, for keys, items and frames. It runs per
 * frame and per commit, in browsers too (no Buffer).
 */

/** A UTF-16 unit outside ASCII (surrogates included). */
const NON_ASCII = /[\u0080-\uffff]/;

/**
 * The UTF-8 byte length of `text`. A lone surrogate counts 3 bytes, as TextEncoder writes it
 * (U+FFFD).
 */
export function utf8ByteLength(text: string): number {
  // Most text measured is ASCII, one byte a unit: a regular expression tells it several times
  // faster than the loop below.
  if (!NON_ASCII.test(text)) return text.length;
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (isHighSurrogate(unit) && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * Whether `text` is at most `max` UTF-8 bytes, deciding from its length alone when it can (a
 * UTF-16 unit is 1 to 3 bytes).
 */
export function fitsUtf8(text: string, max: number): boolean {
  if (text.length * 3 <= max) return true;
  if (text.length > max) return false;
  return utf8ByteLength(text) <= max;
}

export function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

export function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/**
 * The UTF-8 length of `text`, or `undefined` if it holds a lone surrogate (which has no UTF-8
 * form): how keys are measured, since a key must survive the round trip through a store.
 */
export function utf8Bytes(text: string): number | undefined {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (isHighSurrogate(unit) && isLowSurrogate(text.charCodeAt(i + 1))) i++;
    else if (isHighSurrogate(unit) || isLowSurrogate(unit)) return undefined;
  }
  return utf8ByteLength(text);
}
