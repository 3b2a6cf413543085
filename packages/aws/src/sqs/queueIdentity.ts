import { sha256 } from '../internal/sha256.ts';

/**
 * The identity of the queue an inbox offset belongs to (`Queue.identity`), from its URL and the
 * attributes SQS reports: a queue deleted and created again under its name has another
 * `CreatedTimestamp`, and one switched to high-throughput mode (`FifoThroughputLimit:
 * perMessageGroupId`) or back another mode. SQS promises that sequence numbers rise within a
 * message group; it says nothing of whether they keep rising across a change of mode, so the
 * engine sets the old offsets aside after one, as after a queue replacement (sender marks and
 * idempotency keys still skip duplicates). A queue in the default mode keeps the identity it had
 * before the mode counted.
 *
 * @example
 * queueIdentity(url, { CreatedTimestamp: '1795882031' }); // 'q1w2e3r4t5y6u7i8'
 */
export function queueIdentity(
  queueUrl: string,
  attributes: Readonly<Record<string, string>> | undefined,
): string {
  const created = attributes?.CreatedTimestamp ?? '';
  const mode = attributes?.FifoThroughputLimit === 'perMessageGroupId' ? '@perMessageGroupId' : '';
  return sha256(`${queueUrl}@${created}${mode}`).slice(0, 16);
}
