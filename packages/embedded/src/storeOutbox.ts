/**
 * The embedded store's outbox: the sends a turn commits, to be drained to their targets. A
 * record holds its turn's sends (`ActorRecord.outbox`) until a drain sends them; the others are
 * items apart, by actor, keyed by seq and life. Here are the reads of both, and the journal
 * entries of the writes that drop them once drained (each `undefined` when there is nothing to
 * drop).
 */
import type { OutboxItem } from '@baton/core/adapter';
import { deepCopy } from '@baton/core/shared';
import {
  type CommitEntry,
  type DeleteOutboxEntry,
  type HeldDrainedEntry,
  outboxKey,
  type StoreTables,
} from './StoreTables.ts';

/** The items apart of `actorId` (copies), by seq. */
export function outboxOf(tables: StoreTables, actorId: string): OutboxItem[] {
  const items = [...(tables.outbox.get(actorId)?.values() ?? [])];
  return items.sort((a, b) => a.seq - b.seq).map((item) => deepCopy(item));
}

/**
 * See `Store.listOutboxActors`: the actors with an item older than `olderThan`, held in their
 * record or apart, the one with the oldest item first.
 */
export function outboxActors(tables: StoreTables, olderThan: number): string[] {
  const oldest = new Map<string, number>();
  const see = (actorId: string, item: OutboxItem) => {
    if (
      item.createdAt < olderThan &&
      item.createdAt < (oldest.get(actorId) ?? Number.POSITIVE_INFINITY)
    ) {
      oldest.set(actorId, item.createdAt);
    }
  };
  for (const record of tables.records.values()) {
    for (const item of record.outbox ?? []) see(record.id, item);
  }
  for (const [actorId, items] of tables.outbox) {
    for (const item of items.values()) see(actorId, item);
  }
  return [...oldest].sort((a, b) => a[1] - b[1]).map(([actorId]) => actorId);
}

/** The items waiting to be drained, over all actors, held or apart. */
export function outboxSize(tables: StoreTables): number {
  let size = 0;
  for (const record of tables.records.values()) size += record.outbox?.length ?? 0;
  for (const items of tables.outbox.values()) size += items.size;
  return size;
}

/** The entry that deletes the items apart of `seqs` (committed by `life`) still kept. */
export function deleteOutboxEntry(
  tables: StoreTables,
  actorId: string,
  seqs: readonly number[],
  life: string | undefined,
): DeleteOutboxEntry | undefined {
  const items = tables.outbox.get(actorId);
  const present = [...new Set(seqs)].filter((seq) => items?.has(outboxKey(seq, life)));
  if (present.length === 0) return undefined;
  return {
    t: 'store.deleteOutbox',
    actorId,
    seqs: present,
    ...(life === undefined ? {} : { life }),
  };
}

/**
 * See `Store.retireHeldOutbox`: the record at `ver` of `life` written again, at the next
 * version, without the sends it holds.
 */
export function retiredHeldEntry(
  tables: StoreTables,
  actorId: string,
  ver: number,
  life: string | undefined,
): CommitEntry | undefined {
  const current = tables.records.get(actorId);
  if (current?.ver !== ver || current.life !== life || !current.outbox) return undefined;
  const { outbox: _held, outboxApart: _apart, ...rest } = current;
  return {
    t: 'store.commit',
    record: { ...rest, ver: ver + 1 },
    outbox: [],
    idempotency: [],
  };
}

/** The entry that drops the sends the record at `ver` of `life` holds, its version kept. */
export function heldDrainedEntry(
  tables: StoreTables,
  actorId: string,
  ver: number,
  life: string | undefined,
): HeldDrainedEntry | undefined {
  const record = tables.records.get(actorId);
  if (record?.ver !== ver || record.life !== life || !record.outbox) return undefined;
  return { t: 'store.heldDrained', actorId, ver, life };
}
