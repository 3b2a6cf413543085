/** What the embedded queue checks of a message before it takes it, as SQS FIFO would. */
import { BatonError, ErrorCode } from '@baton/core';
import { invalidArgument, type QueueMessage, queueMessageBytes } from '@baton/core/adapter';

/** Throws INVALID_ARGUMENT unless `m` is a queue message SQS FIFO would take. */
export function checkMessage(m: QueueMessage): void {
  if (!isNonEmptyString(m?.group)) throw missingField('group');
  if (!isNonEmptyString(m.dedupeId)) throw missingField('dedupeId');
  if (typeof m.body !== 'string') throw invalidArgument('a queue message body must be a string');
}

function isNonEmptyString(value: unknown): boolean {
  return typeof value === 'string' && value !== '';
}

function missingField(field: 'group' | 'dedupeId'): BatonError {
  return invalidArgument(`every queue message needs a non-empty string ${field}`);
}

/**
 * Throws a terminal MESSAGE_TOO_LARGE, worded as the SQS adapter words it, when `m` is over
 * `maxBytes` (`MAX_MESSAGE_BYTES` by default: SQS's limit) as SQS counts it: its body with the
 * characters SQS refuses escaped, plus the attributes of ids SQS cannot take
 * (`queueMessageBytes`, the SQS adapter's measure).
 */
export function checkMessageSize(m: QueueMessage, maxBytes: number): void {
  // A UTF-16 code unit takes at most 6 bytes as SQS counts it (an escape), and an id in an
  // attribute at most 6 a unit besides its name and type: most messages need no count.
  if ((m.body.length + m.group.length + m.dedupeId.length) * 6 + 64 <= maxBytes) return;
  const bytes = queueMessageBytes(m);
  if (bytes <= maxBytes) return;
  throw new BatonError(
    ErrorCode.MESSAGE_TOO_LARGE,
    `message ${m.dedupeId} to ${m.group} is ${bytes} bytes, more than SQS's ${maxBytes}-byte limit; nothing was sent`,
    { details: { dedupeId: m.dedupeId, group: m.group, limit: maxBytes, actual: bytes } },
  );
}
