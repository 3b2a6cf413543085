/**
 * Which queue an inbox offset belongs to. Sequence numbers start over in a queue created anew,
 * so an offset read from a queue since replaced means nothing in the new one: a record keeps
 * the identity of its offset's queue (`inboxQueue`), and a message from another queue is
 * compared from offset 0 — sender marks and idempotency keys still skip its duplicates.
 */
import type { ActorRecord } from '../adapter/storedRecords.ts';
import type { TurnEngine } from './createEngine.ts';
import type { Inbound } from './Inbound.ts';

/** Logs, once per turn, an inbox message from another queue than the record's offset's. */
export function reportReplacedQueue(
  engine: TurnEngine,
  base: ActorRecord,
  batch: readonly Inbound[],
): void {
  const replaced = batch.find((m) => isReplacedQueue(base, m));
  if (replaced) {
    engine.logger.error(
      'the inbox queue was replaced: its numbering starts over, so the old offset is set aside (marks and idempotency keys still skip duplicates)',
      {
        actor: base.id,
        oldQueue: base.inboxQueue,
        newQueue: replaced.queue,
        oldOffset: base.inboxOffset,
      },
    );
  }
}

/** Whether `inbound` came from another queue than the one `record`'s inbox offset belongs to. */
export function isReplacedQueue(record: ActorRecord, inbound: Inbound): boolean {
  return (
    record.inboxQueue !== undefined &&
    inbound.queue !== undefined &&
    record.inboxQueue !== inbound.queue
  );
}
