/**
 * A history larger than a record should hold moves out into pages: once the record's journal
 * passes the store's `historyBytes` (8 KiB by default; DynamoDB bills each write of the record
 * by its size), its oldest final entries (no message changes them any more) move into pages of
 * up to seven eighths of that, items of their own written with the turn's commit. The record
 * keeps the rest and counts what moved (`state.sealed`). Large pages keep the record small
 * between moves and make the moves rare: each move makes the turn's commit a transaction, which
 * bills the record's write twice. A warm worker never reads the pages back (its run holds them);
 * a cold one reads them all before it replays.
 *
 * A turn that journaled more than one commit can move out (thousands of sends at once) has its
 * pages written ahead, in commits of their own before its message's (see `roomFirst`): no one
 * reads a page before a record counts it, and a message done again puts its pages again.
 *
 * A pending entry does not stop the move: the record keeps it (`state.pinned`) while the final
 * entries around it move out, and it moves out with a later page once final.
 *
 * The pages go with the record: when a finished instance's retention ends, its turns forget
 * them ({@link dropHistory}) before it halts.
 */
import type { ActorContext } from '../ActorContext.ts';
import { KEEP_BYTES, STATE_PAGES, type StatePages } from '../contextSlots.ts';
import { BatonError, ErrorCode, RetryableError } from '../errors.ts';
import { jsonSize } from '../shared/jsonSize.ts';
import { type JournalEntry, recordEntries, sealedCount, type WorkflowState } from './journal.ts';
import type { Replayer } from './Replayer.ts';

type Ctx = ActorContext<WorkflowState>;

const slot = (ctx: Ctx) => (ctx as unknown as Record<symbol, StatePages | undefined>)[STATE_PAGES];

function pagesOf(ctx: Ctx): StatePages {
  const pages = slot(ctx);
  if (!pages) {
    throw new BatonError(
      ErrorCode.INVALID_STATE,
      'this engine keeps no pages of state: run workflows on a Baton worker of the same version as @baton/core',
    );
  }
  return pages;
}

/**
 * The id of page `n` of the instance's run (another start of the id, or a run continued as new,
 * writes other pages).
 */
export const pageId = (state: WorkflowState, n: number) => pageOfRun(state.runId, n);
const pageOfRun = (run: string | undefined, n: number) => `wf:${run ?? ''}:${n}`;

/** Moves the oldest final entries out into pages while the record's entries are too large. */
export function sealHistory(ctx: Ctx, replayer: Replayer): void {
  const { state } = ctx;
  const keep = slot(ctx)?.keepBytes ?? KEEP_BYTES;
  if (heldBytes(state) <= keep) return;
  let pages: StatePages | undefined;
  for (;;) {
    const next = nextPage(state, keep - Math.floor(keep / 8));
    if (!next) return;
    pages ??= pagesOf(ctx);
    const n = state.sealed?.pages ?? 0;
    replayer.seal(next.count, next.page);
    pages.put(pageId(state, n), next.page);
    if (heldBytes(state) <= keep) return;
  }
}

/** The bytes of the entries the record holds: its journal and its pinned entries. */
const heldBytes = (state: WorkflowState) =>
  jsonSize(state.journal) + (state.pinned ? jsonSize(state.pinned) : 0);

/**
 * The next page: the oldest final entries the record holds (the pinned ones, then the
 * journal's), at most `pageBytes` (or one entry larger than that); `count` is how many of the
 * journal's entries it takes out of the journal (the pending ones among them stay pinned). None
 * until a page is full.
 */
function nextPage(
  state: WorkflowState,
  pageBytes: number,
): { count: number; page: JournalEntry[] } | undefined {
  const pinned = state.pinned ?? [];
  const page: JournalEntry[] = [];
  let bytes = 2;
  let count = 0;
  for (const [i, entry] of [...pinned, ...state.journal].entries()) {
    if (entry.state === 'pending') continue;
    const size = jsonSize(entry) + 1;
    // Only a full page moves: the tail the record keeps is where the run goes on.
    if (bytes + size > pageBytes && page.length > 0) return { count, page };
    bytes += size;
    page.push(entry);
    if (i >= pinned.length) count = i - pinned.length + 1;
  }
  return undefined;
}

/**
 * Most pages one turn forgets: each is an item of the turn's commit (DynamoDB takes 100 a
 * commit, the record, its timers and sends among them).
 */
export const DROPS_PER_TURN = 64;

/** Drops the newest `budget` of pages 0 to `count − 1` of run `run`; how many are left. */
function dropPages(ctx: Ctx, run: string | undefined, count: number, budget: number): number {
  const left = Math.max(0, count - budget);
  const pages = pagesOf(ctx);
  for (let n = count - 1; n >= left; n--) pages.drop(pageOfRun(run, n));
  return left;
}

/**
 * Forgets pages of the runs that continued as new (`state.earlierPages`), the newest first and
 * at most {@link DROPS_PER_TURN} in this turn (the `_forget` turns, then `_expire`'s); how many.
 */
export function dropEarlierPages(ctx: Ctx): number {
  const { state } = ctx;
  let dropped = 0;
  const kept: { run: string; pages: number }[] = [];
  for (const { run, pages } of state.earlierPages ?? []) {
    const left = dropPages(ctx, run, pages, DROPS_PER_TURN - dropped);
    dropped += pages - left;
    if (left > 0) kept.push({ run, pages: left });
  }
  if (kept.length > 0) state.earlierPages = kept;
  else delete state.earlierPages;
  return dropped;
}

/**
 * Forgets the pages of a finished instance whose retention ended — any left of runs that
 * continued as new, then its run's — the newest first and at most {@link DROPS_PER_TURN} in this
 * turn. True when none is left (the instance may halt); false when more are, and the record
 * counts those left.
 */
export function dropHistory(ctx: Ctx): boolean {
  const { state } = ctx;
  const dropped = dropEarlierPages(ctx);
  if (state.earlierPages) return false;
  const count = state.sealed?.pages ?? 0;
  if (count === 0) return true;
  const left = dropPages(ctx, state.runId, count, DROPS_PER_TURN - dropped);
  state.sealed = { entries: state.sealed?.entries ?? 0, pages: left };
  return left === 0;
}

/**
 * The entries of the instance's pages, read back in page order (an entry pinned for a while
 * is in a later page than the ones after it: the replayer orders them).
 */
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

/** Pages per entry of `state.sealed.lows`: the blocks a history window skips unread. */
export const PAGE_BLOCK = 64;

/**
 * `sealed.lows` with the page about to be sealed (page number `sealed.pages`) counted in:
 * started with a run's first page, and never for a run whose first pages had none.
 */
export function indexPage(
  sealed: WorkflowState['sealed'],
  page: readonly JournalEntry[],
): number[] | undefined {
  if (sealed !== undefined && sealed.lows === undefined) return undefined;
  const lows = [...(sealed?.lows ?? [])];
  const block = Math.floor((sealed?.pages ?? 0) / PAGE_BLOCK);
  let low = lows[block] ?? Number.POSITIVE_INFINITY;
  for (const entry of page) low = Math.min(low, entry.seq);
  lows[block] = low;
  return lows;
}

/** Most entries one `workflowHistory` result holds: an instance's newest, or those before `before`. */
export const HISTORY_WINDOW = 500;

/** Pages read at once while a window is filled from the newest page back. */
const PAGES_PER_READ = 16;

/**
 * The newest entries of the instance's history numbered below `before` (all when absent), at
 * most `limit`, in number order: commands are numbered densely, so the window is the numbers
 * from `max(0, top − limit)` to `top − 1` (`top`: `before`, or the history's length). The
 * record's entries first, then its pages' from the newest back until the window is whole — a
 * pinned entry, moved out after the entries that follow it, is in a later page than they are —
 * skipping the blocks of pages that hold no entry below `top` (`sealed.lows`), so a window of a
 * long history's first commands reads a block or two. `older` says whether entries before the
 * window are left out. Without `read`, only the record's entries.
 */
export async function historyWindow(
  state: WorkflowState,
  read: ((ids: readonly string[]) => Promise<Map<string, unknown>>) | undefined,
  { before = Number.POSITIVE_INFINITY, limit = HISTORY_WINDOW } = {},
): Promise<{ entries: JournalEntry[]; older: boolean }> {
  const top = Math.min(before, sealedCount(state) + state.journal.length);
  const low = Math.max(0, top - limit);
  const found = new Map<number, JournalEntry>();
  const take = (entries: readonly JournalEntry[]) => {
    for (const e of entries) if (e.seq >= low && e.seq < top) found.set(e.seq, e);
  };
  take(recordEntries(state));
  let n = read ? (state.sealed?.pages ?? 0) : 0;
  const lows = state.sealed?.lows;
  // A block of pages holding no entry below `top` is skipped unread.
  const skip = () => {
    while (n > 0 && lows !== undefined) {
      const block = Math.floor((n - 1) / PAGE_BLOCK);
      if ((lows[block] ?? 0) < top) return;
      n = block * PAGE_BLOCK;
    }
  };
  while (n > 0 && found.size < top - low) {
    const ids: string[] = [];
    for (let k = 0; k < PAGES_PER_READ && n > 0; k++) {
      skip();
      if (n > 0) ids.push(pageId(state, --n));
    }
    if (ids.length === 0) break;
    const pages = await read!(ids);
    for (const id of ids) {
      const page = pages.get(id);
      // A page missing from the store ends the reading there.
      if (!Array.isArray(page)) {
        n = 0;
        break;
      }
      take(page as JournalEntry[]);
    }
  }
  // Whole or not, the window is the unbroken run of numbers down from `top − 1`: without the
  // pages, or with some forgotten (a finished instance's, newest first), it stops at the first
  // one missing, and says older ones are left out.
  let start = top;
  while (start > low && found.has(start - 1)) start--;
  const entries: JournalEntry[] = [];
  for (let seq = start; seq < top; seq++) entries.push(found.get(seq)!);
  return { entries, older: start > 0 };
}
