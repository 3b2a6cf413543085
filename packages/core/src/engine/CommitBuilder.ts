import { jsonSize } from '../adapter/conflicts.ts';
import type { Envelope } from '../adapter/envelope.ts';
import type { OverflowMark } from '../adapter/marks.ts';
import { pageEntryBytes, pageItemBytes } from '../adapter/outcomePageBytes.ts';
import type { StoreLimits } from '../adapter/ports.ts';
import type {
  ActorRecord,
  DeadLetter,
  IdempotencyRecord,
  Timer,
} from '../adapter/storedRecords.ts';
import type { Writable } from '../shared/Writable.ts';
import type { MessageEffects, PendingWrites } from './commitParts.ts';
import { EMPTY_MAP, EMPTY_SET, NONE, writable } from './emptyCollections.ts';
import { outboxItemOverhead } from './outboxItemOverhead.ts';
import { closePage, outgrowsPage } from './outcomePages.ts';

/**
 * Accumulates the effects of a batch's messages into one commit, and says when the next
 * message would pass a limit so the caller commits first (DESIGN step 3). The sends of all
 * messages share outbox items, filled up to the item limit.
 */
export class CommitBuilder {
  readonly #limits: StoreLimits;
  #record: ActorRecord;
  /** `jsonSize(#record)` when the message that made it measured it. */
  #recordBytes: number | undefined;
  #outbox: Array<{ seq: number; envelopes: Envelope[]; bytes: number }> = [];
  #idempotency: IdempotencyRecord[] = [];
  #replaced: IdempotencyRecord[] = [];
  /**
   * By key, the outcomes kept apart for copies found in a closed page ({@link keepApart}):
   * written as replaced ones, unless another write of the commit holds the key.
   */
  #keptApart: ReadonlyMap<string, IdempotencyRecord> = EMPTY_MAP;
  // The maps and set below start as the shared empty ones, and `add` makes its own before it
  // writes: most commits hold no dead letter, mark or timer.
  #deadLetters: ReadonlyMap<string, DeadLetter> = EMPTY_MAP;
  #redriven: ReadonlySet<string> = EMPTY_SET;
  /** By kind and peer: a mark moved out twice in one commit is written once, the later value. */
  #overflow: ReadonlyMap<string, OverflowMark> = EMPTY_MAP;
  /** The summed `jsonSize` of `#overflow`: kept as it goes, since a batch may move out many. */
  #overflowBytes = 0;
  /** By id, the last word of the pending messages on each timer: put, or removed (`null`). */
  #timers: ReadonlyMap<string, Timer | null> = EMPTY_MAP;
  /** The summed size of `#idempotency`: as page entries when paged (`pageEntryBytes`). */
  #idempotencyBytes = 0;
  #count = 0;
  #baseVer: number;
  /** Whether the outcomes go to one outcome page (one item) rather than an item each. */
  readonly #paged: boolean;

  constructor(
    base: ActorRecord,
    limits: StoreLimits,
    options: { readonly pagedOutcomes?: boolean } = {},
  ) {
    this.#record = base;
    this.#baseVer = base.ver;
    this.#limits = limits;
    this.#paged = options.pagedOutcomes ?? false;
  }

  /**
   * The version the pending commit builds on. Not the working record's `ver`: a message whose
   * effects were computed before a commit (they did not fit with the pending ones) carries the
   * version it was computed on.
   */
  get baseVer(): number {
    return this.#baseVer;
  }

  /** The working record: the base plus every message added so far. */
  get record(): ActorRecord {
    return this.#record;
  }

  /** Messages whose effects (or kept-apart outcome) are waiting for commit. */
  get size(): number {
    return this.#count;
  }

  /**
   * What the pending commit does to timer `id`: puts it, removes it (`null`), or leaves it to
   * the store (`undefined`).
   */
  pendingTimer(id: string): Timer | null | undefined {
    return this.#timers.get(id);
  }

  /** The letter the pending commit keeps for message `messageId`, if it keeps one. */
  pendingLetter(messageId: string): DeadLetter | undefined {
    return this.#deadLetters.get(messageId);
  }

  /** The ids of the timers the pending commit puts. */
  pendingTimerIds(): string[] {
    return [...this.#timers].flatMap(([id, timer]) => (timer ? [id] : []));
  }

  /** Whether `effects` fit in the pending commit; if not, commit first and try again. */
  fits(effects: MessageEffects): boolean {
    const plan = this.#plan(effects);
    return (
      plan.items <= this.#limits.maxTransactionItems &&
      plan.bytes <= this.#limits.maxTransactionBytes &&
      (plan.entries === 0 || pageItemBytes(plan.held + plan.entries) <= this.#limits.maxItemBytes)
    );
  }

  /**
   * Whether what keeps the outcome of `effects` (with the pending ones) out of the commit is the
   * open outcome page's entries: they would fit a page of their own. Commit the pending ones,
   * then close the page ({@link closePage}) in a commit of its own.
   */
  outgrowsPage(effects: MessageEffects): boolean {
    const { held, entries } = this.#plan(effects);
    return entries > 0 && outgrowsPage(held, entries, this.#limits.maxItemBytes);
  }

  /**
   * Closes the open outcome page, with nothing pending, for a commit of its own: the next
   * outcomes go to the next page. A message admitted before may be a copy of one in the page
   * closed: look it up there after the commit, as after a commit that filled the page.
   */
  closePage(): void {
    const state = this.#record.outcomePage;
    if (!state || this.#count > 0) {
      throw new Error('an outcome page is closed by a commit of its own, on a paged record');
    }
    this.#record = { ...this.#record, outcomePage: closePage(state) };
    this.#recordBytes = undefined;
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
          bytes: outboxItemOverhead(this.#record.id, envelope.seq, this.#record.life) + bytes,
        });
      }
    }
    if (effects.idempotency) {
      // The message's own outcome of a key takes the place of a copy's kept apart.
      if (this.#keptApart.has(effects.idempotency.key)) {
        writable(this.#keptApart).delete(effects.idempotency.key);
      }
      (effects.replacesOutcome ? this.#replaced : this.#idempotency).push(effects.idempotency);
      if (!effects.replacesOutcome) this.#idempotencyBytes += this.#outcomeSize(effects);
    }
    const { redriven, deadLetter } = effects;
    if (redriven !== undefined) {
      // A letter the message puts under the same id (its proof, or the message kept again)
      // replaces the redriven one: one write, not a delete beside it.
      if (redriven !== deadLetter?.messageId)
        this.#redriven = writable(this.#redriven).add(redriven);
      if (this.#deadLetters.has(redriven)) writable(this.#deadLetters).delete(redriven);
    }
    if (deadLetter) {
      this.#deadLetters = writable(this.#deadLetters).set(deadLetter.messageId, deadLetter);
    }
    for (const mark of effects.overflow ?? []) {
      const replaced = this.#overflow.get(overflowKey(mark));
      this.#overflowBytes += jsonSize(mark) - (replaced ? jsonSize(replaced) : 0);
      this.#overflow = writable(this.#overflow).set(overflowKey(mark), mark);
    }
    for (const [id, timer] of effects.timers ?? []) {
      this.#timers = writable(this.#timers).set(id, timer);
    }
    // Only a commit moves the outcome pages on: effects computed before a commit of the same
    // turn carry the state from before it, which would write to a closed page again.
    const { outcomePage } = this.#record;
    this.#record =
      outcomePage && effects.record.outcomePage !== outcomePage
        ? { ...effects.record, outcomePage }
        : effects.record;
    this.#recordBytes = this.#record === effects.record ? effects.recordBytes : undefined;
    this.#count++;
  }

  /**
   * Keeps a copy's live `outcome` apart, as an item of its own, in the pending commit (see
   * outcomeKeptApart.ts) — unless the commit writes an outcome of its key already, which a read
   * finds as well. A message of the commit that writes one later takes its place, so a commit
   * never holds a key twice. Check {@link fitsKeptApart} first.
   */
  keepApart(outcome: IdempotencyRecord): void {
    const { key } = outcome;
    if (this.#idempotency.some((r) => r.key === key) || this.#replaced.some((r) => r.key === key)) {
      return;
    }
    this.#keptApart = writable(this.#keptApart).set(key, outcome);
    this.#count++;
  }

  /** Whether {@link keepApart} of `outcome` fits in the pending commit; if not, commit first. */
  fitsKeptApart(outcome: IdempotencyRecord): boolean {
    return this.fits({
      record: this.#record,
      envelopes: [],
      idempotency: outcome,
      replacesOutcome: true,
    });
  }

  /**
   * The summed bytes of the pending outcomes (those that replace one left out), as measured:
   * as page entries (`pageEntryBytes`) when they are paged.
   */
  get outcomeBytes(): number {
    return this.#idempotencyBytes;
  }

  /** Takes the pending commit's writes besides the record, leaving the builder empty. */
  take(actorId: string, now: number): PendingWrites {
    const outbox = this.#outbox.map((item) => ({
      actorId,
      seq: item.seq,
      envelopes: item.envelopes,
      createdAt: now,
    }));
    // Most commits write no dead letter, mark or timer: their lists are not built.
    const put = this.#deadLetters.size > 0 ? [...this.#deadLetters.values()] : NONE;
    const remove =
      this.#redriven.size > 0
        ? [...this.#redriven].filter((id) => !this.#deadLetters.has(id))
        : NONE;
    const overflow = this.#overflow.size > 0 ? [...this.#overflow.values()] : NONE;
    const timers = this.#timers.size > 0 ? [...this.#timers] : NONE;
    // Set part by part: a commit is made once a turn, and spreads of optional parts cost more.
    const writes: Writable<PendingWrites> = { outbox, idempotency: this.#idempotency };
    if (this.#replaced.length + this.#keptApart.size > 0) {
      writes.replaceIdempotency = [...this.#replaced, ...this.#keptApart.values()];
    }
    if (put.length + remove.length > 0) writes.deadLetters = { put, remove };
    if (overflow.length > 0) writes.overflow = overflow;
    if (timers.length > 0) {
      writes.timers = {
        put: timers.flatMap(([, timer]) => (timer ? [timer] : [])),
        remove: timers.flatMap(([id, timer]) => (timer ? [] : [id])),
      };
    }
    // The writes handed out hold the builder's own lists: new ones for the next commit (the
    // maps and set were copied out, and go back to the shared empty ones).
    this.#outbox = [];
    this.#idempotency = [];
    this.#idempotencyBytes = 0;
    if (this.#replaced.length > 0) this.#replaced = [];
    this.#keptApart = EMPTY_MAP;
    this.#deadLetters = EMPTY_MAP;
    this.#redriven = EMPTY_SET;
    this.#overflow = EMPTY_MAP;
    this.#overflowBytes = 0;
    this.#timers = EMPTY_MAP;
    this.#count = 0;
    return writes;
  }

  /** `jsonSize(record)`, when the message that made the working record measured it. */
  get recordBytes(): number | undefined {
    return this.#recordBytes;
  }

  /** Sets the committed record (after a commit, the base of the next one). */
  reset(record: ActorRecord): void {
    this.#record = record;
    this.#recordBytes = undefined;
    this.#baseVer = record.ver;
  }

  /**
   * Items and bytes the pending commit would have with `effects` added, and, when the outcomes
   * are paged, the bytes of their entries and of those the page holds already (one item).
   */
  #plan(effects: MessageEffects): { items: number; bytes: number; entries: number; held: number } {
    const outcomeItems = this.#paged
      ? Math.min(1, this.#idempotency.length)
      : this.#idempotency.length;
    let items =
      1 +
      this.#outbox.length +
      outcomeItems +
      this.#replaced.length +
      this.#keptApart.size +
      this.#deadLetters.size +
      this.#redriven.size +
      this.#overflow.size +
      this.#timers.size;
    let bytes = (effects.recordBytes ?? jsonSize(effects.record)) + (effects.recordGrowth ?? 0);
    for (const item of this.#outbox) bytes += item.bytes;
    bytes += this.#overflowBytes;
    for (const mark of effects.overflow ?? []) {
      // A mark this commit moves out already is overwritten, not added; its bytes are counted
      // twice, which errs on the safe side.
      if (!this.#overflow.has(overflowKey(mark))) items++;
      bytes += jsonSize(mark);
    }
    // Paged outcomes count as their page item, below.
    if (!this.#paged) bytes += this.#idempotencyBytes;
    for (const record of this.#replaced) bytes += jsonSize(record);
    for (const record of this.#keptApart.values()) bytes += jsonSize(record);
    for (const letter of this.#deadLetters.values()) bytes += jsonSize(letter);
    const { redriven, deadLetter } = effects;
    if (deadLetter) {
      items++;
      bytes += jsonSize(deadLetter);
    }
    // One write for a letter put again under the id redriven (see `add`).
    if (redriven !== undefined && redriven !== deadLetter?.messageId) items++;
    // Each timer's last word, the message's over the pending ones'. Removals count as items,
    // not bytes, as `checkCommit` counts deletes.
    for (const [id, timer] of this.#timers) {
      if (timer && !effects.timers?.has(id)) bytes += jsonSize(timer);
    }
    for (const [id, timer] of effects.timers ?? []) {
      if (!this.#timers.has(id)) items++;
      if (timer) bytes += jsonSize(timer);
    }
    let open = this.#outbox.at(-1)?.bytes ?? Infinity;
    for (const envelope of effects.envelopes) {
      const size = jsonSize(envelope) + 1;
      if (open + size <= this.#limits.maxItemBytes) {
        open += size;
      } else {
        const overhead = outboxItemOverhead(this.#record.id, envelope.seq, this.#record.life);
        items++;
        open = overhead + size;
        bytes += overhead;
      }
      bytes += size;
    }
    // The outcomes go to the current page, beside the entries it holds already.
    let entries = this.#paged ? this.#idempotencyBytes : 0;
    if (effects.idempotency) {
      const size = this.#outcomeSize(effects);
      const paged = this.#paged && !effects.replacesOutcome;
      if (!paged || this.#idempotency.length === 0) items++;
      if (paged) entries += size;
      else bytes += size;
    }
    if (entries > 0) bytes += pageItemBytes(entries);
    return { items, bytes, entries, held: this.#record.outcomePage?.bytes ?? 0 };
  }

  /**
   * The bytes of a message's outcome, measured once: as a page entry (`pageEntryBytes`)
   * when it goes to a page, else its `jsonSize`.
   */
  #outcomeSize(effects: MessageEffects): number {
    const json = effects.idempotencyBytes ?? jsonSize(effects.idempotency);
    const { idempotency } = effects;
    return this.#paged && idempotency && !effects.replacesOutcome
      ? pageEntryBytes(idempotency, json)
      : json;
  }
}

const overflowKey = (mark: OverflowMark) => `${mark.kind}\u0000${mark.peer}`;
