/**
 * The commands one replay issued, by number: each one's slot (its promise, and how it settles)
 * and what a drive asks of them — the step that may run next, and whether a compensable call or
 * a race loser's undo is still under way.
 */
import { errorFromJSON } from '../errors.ts';
import { entryAt, type JournalEntry, type WorkflowState } from './journal.ts';
import { journaled } from './replayErrors.ts';
import type { Slot } from './replayTypes.ts';

export class ReplaySlots {
  readonly #slots = new Map<number, Slot>();
  /** Steps and compensations issued so far, by name: what their keys count. */
  readonly #issuedByName = new Map<string, number>();

  /** The slot of command `entry`, issued now: `fresh` when it is past the journal. */
  open(entry: JournalEntry, fresh: boolean): Slot {
    let resolve!: (value: unknown) => void;
    let reject!: (error: unknown) => void;
    const promise = new Promise<unknown>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    // A failed command nobody awaits (a race's loser) is no unhandled rejection.
    promise.catch(() => {});
    let nth = 0;
    if (entry.kind === 'step' || entry.kind === 'compensate') {
      nth = this.#issuedByName.get(entry.name) ?? 0;
      this.#issuedByName.set(entry.name, nth + 1);
    }
    const slot: Slot = { seq: entry.seq, entry, promise, resolve, reject, fresh, nth };
    this.#slots.set(entry.seq, slot);
    return slot;
  }

  get(seq: number): Slot | undefined {
    return this.#slots.get(seq);
  }

  has(seq: number): boolean {
    return this.#slots.has(seq);
  }

  /** Every slot, in issue order. */
  values(): MapIterator<Slot> {
    return this.#slots.values();
  }

  /** The first issued step that may run now: new, or due for its next attempt. */
  runnable(): Slot | undefined {
    let first: Slot | undefined;
    for (const slot of this.#slots.values()) {
      const { entry } = slot;
      if (!slot.step || entry.state !== 'pending' || entry.retryAt !== undefined) continue;
      if (!first || slot.seq < first.seq) first = slot;
    }
    return first;
  }

  /** Whether a call with a compensation is under way (see `startRunner`). */
  callsUnderWay(): boolean {
    for (const slot of this.#slots.values()) {
      if (slot.compensable && slot.entry.state === 'pending') return true;
    }
    return false;
  }

  /**
   * Moves the slots over from record `from` to `to`, a later turn's (see `Replayer.continueWith`):
   * entries in pages (the first `base`) are final, and their slots keep them; the record's (pinned
   * or in its journal) are `to`'s objects from now on. False, and nothing changed, when `to` does
   * not hold one of them as it was.
   */
  carryOver(from: WorkflowState, to: WorkflowState, base: number): boolean {
    const live = [...this.#slots.values()].filter(
      (slot) => slot.seq >= base || entryAt(from, slot.seq) !== undefined,
    );
    for (const slot of live) {
      const entry = entryAt(to, slot.seq);
      if (!entry || entry.kind !== slot.entry.kind || entry.name !== slot.entry.name) return false;
    }
    for (const slot of live) slot.entry = entryAt(to, slot.seq) as JournalEntry;
    return true;
  }

  /** Whether a race's losing call is under way (its compensation runs once its reply came). */
  undoUnderWay(): boolean {
    for (const slot of this.#slots.values()) {
      if (slot.undo && slot.entry.state === 'pending') return true;
    }
    return false;
  }
}

/** Resolves or rejects a slot with its journaled result. */
export function settle(slot: Slot): void {
  const { entry } = slot;
  if (entry.state === 'done') slot.resolve(entry.value);
  else if (entry.state === 'failed' && entry.error) {
    slot.reject(journaled(errorFromJSON(entry.error)));
  }
}
