import { sha256 } from '../internal/sha256.ts';

/** SQS's rule for MessageGroupId and MessageDeduplicationId: 1–128 ASCII letters, digits, punctuation. */
const VALID_ID = /^[\x21-\x7e]{1,128}$/;

/** The message attributes that carry a group or dedupe id SQS could not take as it is. */
export const GROUP_ATTRIBUTE = 'BatonGroup';
export const DEDUPE_ATTRIBUTE = 'BatonDedupeId';

/**
 * An id SQS accepts for a group or dedupe id: the value itself when it follows SQS's rule,
 * else its sha256 (64 hex characters) — stable, so dedupe and grouping still work.
 */
export function toSqsId(value: string): { id: string; hashed: boolean } {
  if (VALID_ID.test(value)) return { id: value, hashed: false };
  return { id: sha256(value, 'hex'), hashed: true };
}

/**
 * Whether SQS refuses a UTF-16 code unit at `i` of `s`: it takes #x9, #xA, #xD, #x20–#xD7FF,
 * #xE000–#xFFFD and #x10000–#x10FFFF, so control characters, U+FFFE, U+FFFF and unpaired
 * surrogates are out. Returns how many code units the character takes, negated if refused.
 */
function scan(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c < 0x20) return c === 0x9 || c === 0xa || c === 0xd ? 1 : -1;
  if (c < 0xd800) return 1;
  if (c <= 0xdbff) {
    const next = s.charCodeAt(i + 1);
    return next >= 0xdc00 && next <= 0xdfff ? 2 : -1;
  }
  if (c <= 0xdfff) return -1;
  return c === 0xfffe || c === 0xffff ? -1 : 1;
}

/**
 * The code units `scan` may refuse: control characters other than tab, LF and CR, surrogates
 * (accepted only as a pair) and U+FFFE, U+FFFF. A body without any is accepted as it is.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters SQS refuses
const MAYBE_REFUSED = /[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]/;

/**
 * A body SQS accepts. Baton's bodies are JSON, where a character SQS refuses can only stand
 * inside a string: writing it as a `\uXXXX` escape keeps the JSON value the same.
 */
export function toSqsBody(body: string): string {
  // Most bodies hold no character `scan` looks at twice: one native search says so.
  if (!MAYBE_REFUSED.test(body)) return body;
  let out = '';
  let from = 0;
  for (let i = 0; i < body.length; ) {
    const n = scan(body, i);
    if (n > 0) {
      i += n;
      continue;
    }
    out += `${body.slice(from, i)}\\u${body.charCodeAt(i).toString(16).padStart(4, '0')}`;
    i++;
    from = i;
  }
  return from === 0 ? body : out + body.slice(from);
}
