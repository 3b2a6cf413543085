/**
 * Whether a send held in its sender's outbox reached its target, by the target's mark for the
 * sender (a duplicate by its mark was taken: applied, parked or kept as a dead letter), read from
 * its record or, moved out, its overflow: `actors get` and the inspector tell each held send so,
 * and `baton backlog` counts those not yet taken. A sender keeps a send after its drain until its
 * next commit or a sweep retires it, so a send found there may well be delivered already.
 */
import { type Envelope, effectOf, type OutboxItem, type Store } from '@baton/core/adapter';
import { classify, storedOutbox } from '@baton/core/engine';
import type { Target } from './target.ts';

/** What reads a receiver's marks: its record, and the marks moved out of it. */
type MarkReader = Pick<Store, 'load' | 'readOverflow'>;

/** At most this many senders' outboxes are read (a record and a query each), oldest first. */
export const OUTBOX_SENDERS = 100;
/** At most this many targets' records are read to tell what they applied. */
export const TARGET_RECORDS = 200;

/** What {@link unappliedSends} found. */
export interface UnappliedSends {
  /** Per send not applied: its target and when its sender committed it. */
  readonly sends: ReadonlyArray<{ readonly to: string; readonly at: number }>;
  /** Senders whose outbox waits past the age asked but was not read. */
  readonly sendersLeft: number;
  /** Targets of sends read whose records were not read: their sends are not counted. */
  readonly targetsLeft: number;
}

/**
 * The sends committed before `olderThan` that wait in their senders' outboxes and their target
 * has not applied. Effect requests (`$effect/…`) are left out: they have no receiver's mark.
 */
export async function unappliedSends(target: Target, olderThan: number): Promise<UnappliedSends> {
  const store = target.indexReader;
  const senders = await store.listOutboxActors(olderThan);
  const outboxes = await Promise.all(
    senders.slice(0, OUTBOX_SENDERS).map((id) => storedOutbox(store, id)),
  );
  const waiting = outboxes
    .flat()
    .filter((item) => item.createdAt < olderThan)
    .flatMap((item: OutboxItem) =>
      item.envelopes
        .filter((e) => effectOf(e.to) === undefined)
        .map((e) => ({ e, at: item.createdAt })),
    );
  const { delivered, targetsLeft } = await deliveredByMarks(
    store,
    waiting.map(({ e }) => e),
  );
  const sends = waiting
    .filter(({ e }) => delivered(e) === false)
    .map(({ e, at }) => ({ to: e.to, at }));
  return {
    sends,
    sendersLeft: Math.max(0, senders.length - OUTBOX_SENDERS),
    targetsLeft,
  };
}

/**
 * Whether the target of each of `sends` (actor messages) took it — applied it, or keeps it
 * parked or as a dead letter — by its mark for the sender: for the first
 * {@link TARGET_RECORDS} targets, `undefined` for a send to a target past them.
 */
export async function deliveredByMarks(
  store: MarkReader,
  sends: readonly Envelope[],
): Promise<{ delivered: (send: Envelope) => boolean | undefined; targetsLeft: number }> {
  const targets = [...new Set(sends.map((e) => e.to))];
  const read = targets.slice(0, TARGET_RECORDS);
  const byTarget = new Map(
    await Promise.all(read.map(async (to) => [to, await takenBy(store, to, sends)] as const)),
  );
  return {
    delivered: (send) => byTarget.get(send.to)?.(send),
    targetsLeft: targets.length - read.length,
  };
}

/** Whether `to` took an envelope, by its marks for the senders of `sends`. */
async function takenBy(
  store: MarkReader,
  to: string,
  sends: readonly Envelope[],
): Promise<(envelope: Envelope) => boolean> {
  const record = await store.load(to);
  const marks = new Map(Object.entries(record?.marks ?? {}));
  const unlisted = [...new Set(sends.filter((e) => e.to === to).map((e) => e.from))].filter(
    (from) => !marks.has(from),
  );
  // Marks moved out of the record live as overflow items: read those the record does not list.
  if (record?.overflowedAt !== undefined && unlisted.length > 0) {
    const found = await store.readOverflow(
      to,
      unlisted.map((peer) => ({ kind: 'sender' as const, peer })),
    );
    for (const mark of found) if (mark.kind === 'sender') marks.set(mark.peer, mark.mark);
  }
  return (envelope) => classify(marks.get(envelope.from), envelope).kind === 'duplicate';
}
