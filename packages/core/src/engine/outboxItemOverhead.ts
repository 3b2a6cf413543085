import { jsonSize } from '../adapter/conflicts.ts';
import type { OutboxItem } from '../adapter/storedRecords.ts';

/**
 * The widest JSON number (`-0.0000012345678901234567`): the room kept for an item's
 * `createdAt`, which is known only when the commit is taken.
 */
const MAX_JSON_NUMBER_BYTES = 25;

/**
 * Bytes an outbox item of `actorId` starting at `seq` takes besides its envelopes, as
 * `checkCommit` measures it: `jsonSize` of `{ actorId, seq, envelopes: [], createdAt, life }`
 * with `createdAt` at its widest, less the one byte that each envelope's share (`jsonSize + 1`)
 * counts for the comma before it and the first envelope has none of. The builder sizes items
 * for its record's id and life (an item apart carries the life), the `actorId` that `take` is
 * given.
 *
 * @example
 * outboxItemOverhead('account/alice', 7); // 87
 * outboxItemOverhead('account/alice', 7, 'k3j9x2m1qa0z'); // 109
 */
export function outboxItemOverhead(actorId: string, seq: number, life?: string): number {
  const empty = {
    actorId,
    seq,
    envelopes: [],
    createdAt: 0,
    ...(life && { life }),
  } satisfies OutboxItem;
  // `createdAt: 0` is 1 byte of JSON; the first envelope has no comma before it.
  return jsonSize(empty) - 1 + MAX_JSON_NUMBER_BYTES - 1;
}
