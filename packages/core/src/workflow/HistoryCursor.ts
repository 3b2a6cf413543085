/**
 * Where a replay is in its history: the entries it replays, in the record (its journal and the
 * pinned ones) and in pages of their own (sealed, all final), and the journaled completions in
 * the order they first came, with how many of them this replay has resolved.
 */
import { BatonError, ErrorCode } from '../errors.ts';
import { indexPage } from './history.ts';
import {
  entryAt,
  type JournalEntry,
  recordEntries,
  sealedCount,
  type WorkflowState,
} from './journal.ts';

export class HistoryCursor {
  /** The entries before the record's journal, moved out into pages (all final). */
  readonly #sealed: JournalEntry[];
  /** Journaled completions in completion order, and how many this replay resolved. */
  #byOrder: JournalEntry[];
  #next = 0;
  /** How many completions of the whole history this replay resolved (across carry-overs). */
  #position = 0;

  /** `paged`: the entries moved out of the record (`state.sealed`), read back from their pages. */
  constructor(workflow: string, state: WorkflowState, paged: readonly JournalEntry[]) {
    // The pages hold the final entries before the journal, the record the pinned ones.
    this.#sealed = [...paged, ...(state.pinned ?? [])].sort((a, b) => a.seq - b.seq);
    if (
      this.#sealed.length !== sealedCount(state) ||
      this.#sealed.some((entry, n) => entry.seq !== n)
    ) {
      const given = this.#sealed.length - (state.pinned?.length ?? 0);
      throw new BatonError(
        ErrorCode.INVALID_ARGUMENT,
        `workflow "${workflow}": the history has ${sealedCount(state) - (state.pinned?.length ?? 0)} entries in pages of their own, but ${given} were given: pass every page's entries (replayWorkflow's \`paged\`, as \`baton workflows export\` writes them)`,
      );
    }
    this.#byOrder = [...this.#sealed, ...state.journal]
      .filter((entry) => entry.order !== undefined)
      .sort((a, b) => (a.order as number) - (b.order as number));
  }

  /** Entry number `seq`: the record's (in its journal or pinned), else a sealed one. */
  entry(state: WorkflowState, seq: number): JournalEntry | undefined {
    return entryAt(state, seq) ?? this.#sealed[seq];
  }

  /** How many entries come before the record's journal (in pages, or pinned). */
  get sealedCount(): number {
    return this.#sealed.length;
  }

  /**
   * Whether `state` may be the record the last drive left on record `from`, changed since only
   * by the handlers: as many entries in pages, `seq` commands in all, no fewer completions.
   */
  follows(from: WorkflowState, state: WorkflowState, seq: number): boolean {
    const base = this.#sealed.length;
    return (
      sealedCount(state) === base &&
      base + state.journal.length === seq &&
      state.completed >= from.completed
    );
  }

  /** The journaled completion this replay resolves next, if any is left. */
  get next(): JournalEntry | undefined {
    return this.#byOrder[this.#next];
  }

  /** Whether this replay resolved every journaled completion. */
  get caughtUp(): boolean {
    return this.#next >= this.#byOrder.length;
  }

  /** Counts {@link next} resolved. */
  took(): void {
    this.passed(this.#byOrder[this.#next++]);
  }

  /** Counts `entry`'s completion resolved: one of the history, or one that comes now. */
  passed(entry: JournalEntry | undefined): void {
    if (entry?.order !== undefined) this.#position = Math.max(this.#position, entry.order + 1);
  }

  /** How many completions of the history the run has resolved: where it is in its history. */
  get position(): number {
    return this.#position;
  }

  /**
   * Moves the oldest `count` entries of the record's journal out of it, and `page` (final
   * entries among them and the pinned ones) out of the record: `page` is to be written as a
   * page with this turn, and the pending ones moved stay pinned in the record.
   */
  seal(state: WorkflowState, count: number, page: readonly JournalEntry[]): void {
    const moved = state.journal.splice(0, count);
    this.#sealed.push(...moved);
    const out = new Set(page);
    // A pinned entry's object is the record's of the turn that ended it: the one to keep.
    for (const entry of page) this.#sealed[entry.seq] = entry;
    const pinned = [...(state.pinned ?? []), ...moved].filter((entry) => !out.has(entry));
    if (pinned.length > 0) state.pinned = pinned;
    else delete state.pinned;
    const sealed = state.sealed;
    const lows = indexPage(sealed, page);
    const entries = this.#sealed.length;
    const pages = (sealed?.pages ?? 0) + 1;
    state.sealed = lows ? { entries, pages, lows } : { entries, pages };
  }

  /**
   * Goes on over a later turn's record (see `Replayer.continueWith`): the completions it
   * journaled from number `settled` on are the ones left to resolve, in their order.
   */
  carryOver(state: WorkflowState, settled: number): void {
    this.#byOrder = recordEntries(state)
      .filter((entry) => entry.order !== undefined && entry.order >= settled)
      .sort((a, b) => (a.order as number) - (b.order as number));
    this.#next = 0;
  }
}
