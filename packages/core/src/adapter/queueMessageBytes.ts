/**
 * How large a queue message is as SQS counts it against `MAX_MESSAGE_BYTES`: the body as SQS
 * takes it, plus the attributes that carry ids SQS cannot take. The SQS adapter sends messages
 * this way, and the embedded queue measures them the same, so both refuse the same messages.
 */
import { utf8ByteLength } from '../shared/utf8.ts';
import type { QueueMessage } from './ports.ts';

/** The message attributes that carry a group or dedupe id SQS could not take as it is. */
export const SQS_GROUP_ATTRIBUTE = 'BatonGroup';
export const SQS_DEDUPE_ATTRIBUTE = 'BatonDedupeId';

/** SQS's rule for MessageGroupId and MessageDeduplicationId: 1–128 ASCII letters, digits, punctuation. */
const VALID_ID = /^[\x21-\x7e]{1,128}$/;

/**
 * Whether SQS takes `value` as a MessageGroupId or MessageDeduplicationId as it is (else the
 * SQS adapter sends its digest, and the original in a message attribute).
 *
 * @example
 * isSqsId('account/alice'); // true
 * isSqsId('account/zoë'); // false
 */
export function isSqsId(value: string): boolean {
  return VALID_ID.test(value);
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
 *
 * @example
 * toSqsBody('"\uffff"'); // '"\\uffff"'
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

/** The value of the attribute that carries an id SQS cannot take: a JSON string, escaped as a body. */
export function sqsAttributeValue(id: string): string {
  return toSqsBody(JSON.stringify(id));
}

/** The bytes SQS counts for a String attribute: its name, its type and its value. */
const attributeBytes = (name: string, id: string): number =>
  name.length + 'String'.length + utf8ByteLength(sqsAttributeValue(id));

/**
 * The bytes of `message` as SQS counts them (its body in UTF-8, the characters SQS refuses
 * escaped, plus the attributes of the ids it cannot take): what `MAX_MESSAGE_BYTES` limits.
 *
 * @example
 * queueMessageBytes({ group: 'a/b', dedupeId: 'm1', body: '"\uffff"' }); // 8
 */
export function queueMessageBytes(
  message: Pick<QueueMessage, 'group' | 'dedupeId' | 'body'>,
): number {
  let bytes = utf8ByteLength(toSqsBody(message.body));
  if (!isSqsId(message.group)) bytes += attributeBytes(SQS_GROUP_ATTRIBUTE, message.group);
  if (!isSqsId(message.dedupeId)) bytes += attributeBytes(SQS_DEDUPE_ATTRIBUTE, message.dedupeId);
  return bytes;
}
