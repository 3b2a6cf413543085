import { jsonSize } from '../conflicts.ts';
import type { Envelope } from '../envelope.ts';
import type {
  ActorRecord,
  IdempotencyRecord,
  OutboxItem,
  SenderMark,
  StoreLimits,
} from '../ports.ts';

/** What one processed message adds to a commit. */
export interface MessageEffects {
  /** The record after the message (state, offset, marks, sentSeq); `ver` is set on commit. */
  readonly record: ActorRecord;
  readonly envelopes: readonly Envelope[];
  readonly idempotency: IdempotencyRecord | undefined;
}

/** Bytes an outbox item takes besides its envelopes (keys, timestamps, list framing). */
const ITEM_OVERHEAD = 200;

/**
 * Accumulates the effects of a batch's messages into one commit, and says when the next
 * message would pass a limit so the caller commits first (DESIGN step 3). The sends of all
 * messages share outbox items, filled up to the item limit.
 */
export class CommitBuilder {
  readonly #limits: StoreLimits;
  #record: ActorRecord;
  #outbox: Array<{ seq: number; envelopes: Envelope[]; bytes: number }> = [];
  #idempotency: IdempotencyRecord[] = [];
  #count = 0;

  constructor(base: ActorRecord, limits: StoreLimits) {
    this.#record = base;
    this.#limits = limits;
  }

  /** The working record: the base plus every message added so far. */
  get record(): ActorRecord {
    return this.#record;
  }

  /** Messages whose effects are waiting for commit. */
  get size(): number {
    return this.#count;
  }

  /** Whether the record alone fits an item. */
  recordFits(record: ActorRecord): boolean {
    return jsonSize(record) <= this.#limits.maxItemBytes;
  }

  /** Whether `effects` fit in the pending commit; if not, commit first and try again. */
  fits(effects: MessageEffects): boolean {
    const plan = this.#plan(effects);
    return (
      plan.items <= this.#limits.maxTransactionItems &&
      plan.bytes <= this.#limits.maxTransactionBytes
    );
  }

  add(effects: MessageEffects): void {
    for (const envelope of effects.envelopes) {
      const bytes = jsonSize(envelope) + 1;
      const last = this.#outbox.at(-1);
      if (last && last.bytes + bytes <= this.#limits.maxItemBytes) {
        last.envelopes.push(envelope);
        last.bytes += bytes;
      } else {
        this.#outbox.push({
          seq: envelope.seq,
          envelopes: [envelope],
          bytes: ITEM_OVERHEAD + bytes,
        });
      }
    }
    if (effects.idempotency) this.#idempotency.push(effects.idempotency);
    this.#record = effects.record;
    this.#count++;
  }

  /** Takes the pending commit's outbox and idempotency records, leaving the builder empty. */
  take(actorId: string, now: number): { outbox: OutboxItem[]; idempotency: IdempotencyRecord[] } {
    const outbox = this.#outbox.map((item) => ({
      actorId,
      seq: item.seq,
      envelopes: item.envelopes,
      createdAt: now,
    }));
    const idempotency = this.#idempotency;
    this.#outbox = [];
    this.#idempotency = [];
    this.#count = 0;
    return { outbox, idempotency };
  }

  /** Sets the committed record (after a commit, the base of the next one). */
  reset(record: ActorRecord): void {
    this.#record = record;
  }

  /** Items and bytes the pending commit would have with `effects` added. */
  #plan(effects: MessageEffects): { items: number; bytes: number } {
    let items = 1 + this.#outbox.length + this.#idempotency.length;
    let bytes = jsonSize(effects.record);
    for (const item of this.#outbox) bytes += item.bytes;
    for (const record of this.#idempotency) bytes += jsonSize(record);
    let open = this.#outbox.at(-1)?.bytes ?? Number.POSITIVE_INFINITY;
    for (const envelope of effects.envelopes) {
      const size = jsonSize(envelope) + 1;
      if (open + size <= this.#limits.maxItemBytes) {
        open += size;
      } else {
        items++;
        open = ITEM_OVERHEAD + size;
        bytes += ITEM_OVERHEAD;
      }
      bytes += size;
    }
    if (effects.idempotency) {
      items++;
      bytes += jsonSize(effects.idempotency);
    }
    return { items, bytes };
  }
}

/** Drops marks untouched since `before` (DESIGN: marks stay bounded). */
export function pruneMarks(
  marks: Readonly<Record<string, SenderMark>>,
  before: number,
): Record<string, SenderMark> {
  const kept: Record<string, SenderMark> = {};
  for (const [sender, mark] of Object.entries(marks)) {
    if (mark.at >= before) kept[sender] = mark;
  }
  return kept;
}
