/**
 * An instance's whole history as stored, read from outside a turn (operator tools): the entries
 * moved out into pages (see `workflow/history.ts`) followed by those its record keeps.
 */
import type { TurnStore } from '../adapter/ports.ts';
import { BatonError, ErrorCode } from '../errors.ts';
import { HISTORY_WINDOW, historyWindow, pageId } from '../workflow/history.ts';
import type { JournalEntry, WorkflowState } from '../workflow/journal.ts';

/**
 * Every journal entry of the instance `actorId` whose record holds `state`, in order.
 *
 * @example
 * const record = await store.load('wf-fulfil/o-17');
 * const history = await readStoredHistory(store, record.id, record.state as WorkflowState);
 */
export async function readStoredHistory(
  store: TurnStore,
  actorId: string,
  state: WorkflowState,
): Promise<JournalEntry[]> {
  const entries = [...(await readPagedEntries(store, actorId, state)), ...(state.pinned ?? [])];
  // Pages hold the final entries before the journal, the record the pinned ones (see history.ts).
  entries.sort((a, b) => a.seq - b.seq);
  return [...entries, ...state.journal];
}

/**
 * The entries of the instance's history that its record moved out into pages, in order: with
 * the record's state, what `replayWorkflow` replays (its `paged` option).
 *
 * @example
 * await replayWorkflow(Fulfil, state, { paged: await readPagedEntries(store, id, state) });
 */
export async function readPagedEntries(
  store: Pick<TurnStore, 'readOverflow'>,
  actorId: string,
  state: WorkflowState,
): Promise<JournalEntry[]> {
  const count = state.sealed?.pages ?? 0;
  if (count === 0) return [];
  const ids = Array.from({ length: count }, (_, n) => pageId(state, n));
  const marks = await store.readOverflow(
    actorId,
    ids.map((peer) => ({ kind: 'page' as const, peer })),
  );
  const pages = new Map(marks.map((m) => [m.peer, m.kind === 'page' ? m.mark : undefined]));
  const entries: JournalEntry[] = [];
  for (const id of ids) {
    const page = pages.get(id);
    if (!Array.isArray(page)) {
      throw new BatonError(
        ErrorCode.UNAVAILABLE,
        `page ${id} of ${actorId}'s history is not in the store (its record counts ${count}); read it again — a page commits with the record that counts it`,
        { details: { actorId, page: id } },
      );
    }
    entries.push(...(page as JournalEntry[]));
  }
  return entries.sort((a, b) => a.seq - b.seq);
}

/**
 * The newest entries of instance `actorId`'s history, at most `limit` (default
 * {@link HISTORY_WINDOW}), in order: what an inspector shows of it, reading its pages from the
 * newest back only as far as the window takes. `older` says whether earlier ones are left out.
 *
 * @example
 * const { entries, older } = await readHistoryWindow(store, record.id, state, { limit: 200 });
 */
export function readHistoryWindow(
  store: Pick<TurnStore, 'readOverflow'>,
  actorId: string,
  state: WorkflowState,
  options: { readonly limit?: number; readonly before?: number } = {},
): Promise<{ entries: JournalEntry[]; older: boolean }> {
  return historyWindow(
    state,
    async (ids) => {
      const keys = ids.map((peer) => ({ kind: 'page' as const, peer }));
      const found = await store.readOverflow(actorId, keys);
      return new Map(found.map((page) => [page.peer, page.mark]));
    },
    {
      limit: options.limit ?? HISTORY_WINDOW,
      ...(options.before === undefined ? {} : { before: options.before }),
    },
  );
}
