import { type Envelope, encodeEnvelope, messageGroup } from '../adapter/envelope.ts';
import type { Queue, QueueMessage, Store, TurnQueue, TurnStore } from '../adapter/ports.ts';
import { type ActorRecord, deletableAt, type OutboxItem } from '../adapter/storedRecords.ts';
import { checkFormat } from './turnRecord.ts';

/** One actor's committed sends to drain: the ones its record holds, and the items apart. */
export interface OutboxToDrain {
  readonly actorId: string;
  /** The sends held in the actor's record ({@link ActorRecord.outbox}). */
  readonly held: readonly OutboxItem[];
  /** The version of the record that holds them. */
  readonly ver: number;
  /** The life of the record that holds them (a new life counts its versions from 0 again). */
  readonly life: string | undefined;
  /** The items stored apart; read from the store when absent. */
  readonly apart?: readonly OutboxItem[];
  /**
   * Set when `ver` and `life` were read after the items apart (a sweep): an item of another
   * life is then of a life that ended, and drained as such. A turn's drain, whose record may be
   * older than the items it reads, leaves such items to the sweeper.
   */
  readonly readAfterItems?: boolean;
}

/**
 * Moves an actor's committed sends into their targets' inboxes (DESIGN step 5): every item, in
 * sequence order, then deletes the items stored apart. The held ones are not deleted: the
 * actor's next commit leaves them out, or the sweeper retires them. Always the whole outbox
 * from its oldest item, so a message can never overtake an earlier one to the same target
 * (I3). Re-sending after a crash is safe: the queue drops the copy within its dedupe window,
 * the target's sender mark after it.
 *
 * A queue may accept part of a send (SQS answers per entry), so each `send` holds at most one
 * message per channel (sender and target): a later message on a channel goes out only once every
 * earlier one was accepted, and a failed send leaves each channel's accepted messages a prefix.
 *
 * An item apart of another life than the record's, read before the record (a sweep's
 * {@link OutboxToDrain.readAfterItems}), was committed by a life of the actor that ended (it
 * halted and its record expired while the item waited): its messages go out marked
 * {@link Envelope.lifeEnded}, and their receivers keep them as dead letters. A turn's drain
 * leaves such items to the sweeper: they are no earlier sends of its life's channels.
 *
 * @returns how many envelopes were sent
 */
export function drainOutbox(
  store: TurnStore,
  queue: TurnQueue,
  outbox: OutboxToDrain,
): Promise<number> {
  return drainOutboxes(store, queue, [outbox]);
}

/**
 * {@link drainOutbox} for several actors at once: their messages share the queue's calls, so the
 * sweeper's sends of ten idle actors are one `SendMessageBatch`, not ten. It succeeds or fails
 * for them all: after a failed send none is done, and a drain again sends what was accepted a
 * second time (the queue or the receivers drop the copies).
 *
 * @returns how many envelopes were sent
 */
export async function drainOutboxes(
  store: TurnStore,
  queue: TurnQueue,
  outboxes: readonly OutboxToDrain[],
): Promise<number> {
  const aparts = await Promise.all(
    outboxes.map(async (outbox) => {
      const apart = outbox.apart ?? (await store.readOutbox(outbox.actorId));
      return outbox.readAfterItems ? apart : apart.filter((item) => ofLife(item, outbox.life));
    }),
  );
  // Each message's channel, when several senders share the rounds (one sender's are its groups).
  const channels = new Map<QueueMessage, string>();
  const messages = outboxes.flatMap((outbox, i) =>
    [...outbox.held, ...aparts[i]!]
      .sort((a, b) => a.seq - b.seq)
      .flatMap((item) => {
        const ended = !ofLife(item, outbox.life);
        return item.envelopes.map((envelope) => {
          const group = messageGroup(envelope);
          const sent = ended ? { ...envelope, lifeEnded: true as const } : envelope;
          const message = { group, dedupeId: envelope.id, body: encodeEnvelope(sent) };
          if (outboxes.length > 1) channels.set(message, `${envelope.from}\u0000${group}`);
          return message;
        });
      }),
  );
  const split =
    outboxes.length > 1 ? rounds(messages, (message) => channels.get(message)!) : rounds(messages);
  for (const round of split) await queue.send(round);
  await Promise.all(
    outboxes.map(async (outbox, i) => {
      const apart = aparts[i]!;
      if (outbox.held.length > 0 && store.heldDrained) {
        await store.heldDrained(outbox.actorId, outbox.ver, outbox.life);
      }
      for (const [life, seqs] of seqsByLife(apart)) {
        await store.deleteOutbox(outbox.actorId, seqs, life);
      }
    }),
  );
  return messages.length;
}

/** Whether `life` committed an item apart (one without a life is taken for any life's). */
function ofLife(item: OutboxItem, life: string | undefined): boolean {
  return item.life === undefined || item.life === life;
}

/** The seqs of items apart by the life that committed them, to delete each life's own. */
function seqsByLife(items: readonly OutboxItem[]): Map<string | undefined, number[]> {
  const byLife = new Map<string | undefined, number[]>();
  for (const { seq, life } of items) {
    const seqs = byLife.get(life);
    if (seqs) seqs.push(seq);
    else byLife.set(life, [seq]);
  }
  return byLife;
}

/**
 * What a record leaves to drain before a commit replaces it: its held sends, and the items apart
 * when its commit wrote some.
 */
export function outboxOf(record: ActorRecord): OutboxToDrain | undefined {
  if (!record.outbox && !record.outboxApart) return undefined;
  return {
    actorId: record.id,
    held: record.outbox ?? [],
    ver: record.ver,
    life: record.life,
    ...(!record.outboxApart && { apart: [] }),
  };
}

/**
 * Drains an actor's whole outbox for a caller that runs no turn of it (the sweeper, a test),
 * then retires the sends its record holds, unless a commit replaced the record since.
 *
 * @returns how many envelopes were sent
 */
export async function sweepOutbox(store: Store, queue: Queue, actorId: string): Promise<number> {
  return (await sweepOutboxOf(store, queue, actorId)).sent;
}

/**
 * {@link sweepOutbox}, also saying when the oldest send it drained was committed (`oldestAt`,
 * epoch ms; absent when there was none): the sweeper's lag is how long that one waited.
 */
export function sweepOutboxOf(
  store: Store,
  queue: Queue,
  actorId: string,
): Promise<{ readonly sent: number; readonly oldestAt?: number }> {
  return sweepOutboxes(store, queue, [actorId]);
}

/**
 * {@link sweepOutboxOf} for several actors at once ({@link drainOutboxes}): their records and
 * items apart read side by side, their sends drained together, then each record's held sends
 * retired. It succeeds or fails for them all.
 */
export async function sweepOutboxes(
  store: Store,
  queue: Queue,
  actorIds: readonly string[],
): Promise<{ readonly sent: number; readonly oldestAt?: number }> {
  const found = await Promise.all(
    actorIds.map(async (actorId) => {
      const { record, apart } = await readWhole(store, actorId);
      // Retiring its sends writes the record, and a sweeper older than its writer would set the
      // TTL by its own rules: the sweep fails for it until every sweeper runs the newer Baton.
      if (record) checkFormat(record);
      const held = record?.outbox ?? [];
      const { life } = record ?? {};
      // The TTL its held sends kept off, set once they are retired (none while it is paused).
      const expiresAt = record && deletableAt(record);
      const ver = record?.ver ?? 0;
      return { actorId, held, ver, life, expiresAt, apart, readAfterItems: true };
    }),
  );
  const sent = await drainOutboxes(store, queue, found);
  await Promise.all(
    found.map(({ actorId, held, ver, life, expiresAt }) =>
      held.length > 0 ? store.retireHeldOutbox(actorId, ver, life, expiresAt) : undefined,
    ),
  );
  const oldestAt = Math.min(
    ...found.flatMap(({ held, apart }) => [...held, ...apart].map((item) => item.createdAt)),
  );
  return Number.isFinite(oldestAt) ? { sent, oldestAt } : { sent };
}

/**
 * An actor's record and its items apart, read side by side. An item of another life than the
 * record's is of a life that ended — or of a new life whose first commit came between the two
 * reads: then both are read again, the items first, as an item of a live life has its record.
 */
async function readWhole(
  store: TurnStore,
  actorId: string,
): Promise<{ record: ActorRecord | undefined; apart: OutboxItem[] }> {
  const [record, apart] = await Promise.all([store.load(actorId), store.readOutbox(actorId)]);
  if (apart.every((item) => ofLife(item, record?.life))) {
    return { record, apart };
  }
  const again = await store.readOutbox(actorId);
  return { record: await store.load(actorId), apart: again };
}

/**
 * Every outbox item an actor has stored, oldest first: the sends its record holds (drained or
 * not) and the items apart. For tools and tests; a drain takes them as {@link OutboxToDrain}.
 */
export async function storedOutbox(store: TurnStore, actorId: string): Promise<OutboxItem[]> {
  const [record, apart] = await Promise.all([store.load(actorId), store.readOutbox(actorId)]);
  return [...(record?.outbox ?? []), ...apart].sort((a, b) => a.seq - b.seq);
}

/**
 * Splits messages into sends of at most one message per group — or per key, with `keyOf` —
 * keeping each one's order.
 */
export function rounds<M extends QueueMessage>(
  messages: readonly M[],
  keyOf: (message: M) => string = (message) => message.group,
): M[][] {
  const result: M[][] = [];
  const next = new Map<string, number>();
  for (const message of messages) {
    const key = keyOf(message);
    const index = next.get(key) ?? 0;
    next.set(key, index + 1);
    if (index === result.length) result.push([]);
    result[index]!.push(message);
  }
  return result;
}
