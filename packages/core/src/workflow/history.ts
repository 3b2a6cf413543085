/**
 * A history larger than a record moves out into pages: once the record's journal passes
 * {@link SEAL_AT_BYTES}, its oldest final entries (no message changes them any more) move into
 * pages of at most {@link PAGE_BYTES}, items of their own written with the turn's commit. The
 * record keeps the rest and counts what moved (`state.sealed`). A warm worker never reads the
 * pages back (its run holds them); a cold one reads them all before it replays.
 *
 * A pending entry stops the move: the entries after it stay in the record until it completes.
 *
 * The pages go with the record: when a finished instance's retention ends, its turns forget
 * them ({@link dropHistory}) before it halts.
 */
import type { ActorContext } from '../ActorContext.ts';
import { STATE_PAGES, type StatePages } from '../contextSlots.ts';
import { BatonError, ErrorCode, RetryableError } from '../errors.ts';
import { jsonSize } from '../shared/jsonSize.ts';
import type { JournalEntry, WorkflowState } from './journal.ts';
import type { Replayer } from './Replayer.ts';

/** The record's journal may take this much before its oldest entries move out. */
export const SEAL_AT_BYTES = 96 * 1024;
/** A page's most bytes (one journaled value takes at most 64 KiB, so one always fits). */
export const PAGE_BYTES = 160 * 1024;

type Ctx = ActorContext<WorkflowState>;

function pagesOf(ctx: Ctx): StatePages {
  const pages = (ctx as unknown as Record<symbol, StatePages | undefined>)[STATE_PAGES];
  if (!pages) {
    throw new BatonError(
      ErrorCode.INVALID_STATE,
      'this engine keeps no pages of state: run workflows on a Baton worker of the same version as @baton/core',
    );
  }
  return pages;
}

/** The id of page `n` of the instance's run (another start of the id writes other pages). */
export const pageId = (state: WorkflowState, n: number) => `wf:${state.runId ?? ''}:${n}`;

/** Moves the oldest final entries out into pages while the record's journal is too large. */
export function sealHistory(ctx: Ctx, replayer: Replayer): void {
  const { state } = ctx;
  if (jsonSize(state.journal) <= SEAL_AT_BYTES) return;
  let pages: StatePages | undefined;
  for (;;) {
    const count = pageLength(state.journal);
    if (count === 0) return;
    pages ??= pagesOf(ctx);
    const n = state.sealed?.pages ?? 0;
    pages.put(pageId(state, n), replayer.seal(count));
    if (jsonSize(state.journal) <= SEAL_AT_BYTES) return;
  }
}

/** How many of the oldest entries make the next page: final ones, at most PAGE_BYTES. */
function pageLength(journal: readonly JournalEntry[]): number {
  let bytes = 2;
  let count = 0;
  for (const entry of journal) {
    if (entry.state === 'pending') break;
    bytes += jsonSize(entry) + 1;
    if (bytes > PAGE_BYTES && count > 0) break;
    count++;
  }
  // Only a full page moves: the tail the record keeps is where the run goes on.
  return bytes > PAGE_BYTES ? count : 0;
}

/**
 * Most pages one turn forgets: each is an item of the turn's commit (DynamoDB takes 100 a
 * commit, the record, its timers and sends among them).
 */
export const DROPS_PER_TURN = 16;

/**
 * Forgets the pages of a finished instance whose retention ended, the newest first and at most
 * {@link DROPS_PER_TURN} in this turn. True when none is left (the instance may halt); false
 * when more are, and `state.sealed.pages` counts those left.
 */
export function dropHistory(ctx: Ctx): boolean {
  const { state } = ctx;
  const count = state.sealed?.pages ?? 0;
  if (count === 0) return true;
  const pages = pagesOf(ctx);
  const left = Math.max(0, count - DROPS_PER_TURN);
  for (let n = count - 1; n >= left; n--) pages.drop(pageId(state, n));
  state.sealed = { entries: state.sealed?.entries ?? 0, pages: left };
  return left === 0;
}

/** The sealed entries of the instance, read back from their pages, in order. */
export async function readSealed(ctx: Ctx): Promise<JournalEntry[]> {
  const { state } = ctx;
  const count = state.sealed?.pages ?? 0;
  if (count === 0) return [];
  const ids = Array.from({ length: count }, (_, n) => pageId(state, n));
  const found = await pagesOf(ctx).read(ids);
  const entries: JournalEntry[] = [];
  for (const id of ids) {
    const page = found.get(id);
    if (!Array.isArray(page)) {
      // The pages commit with the record that counts them: a missing one is a store fault.
      throw new RetryableError(
        `workflow instance ${ctx.self.key}: page ${id} of its history is missing from the store; the message is retried`,
      );
    }
    entries.push(...(page as JournalEntry[]));
  }
  return entries;
}
