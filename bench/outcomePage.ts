/**
 * The outcome page of a hand-built baseline (1a, 1b), kept by hand as the engine keeps an
 * actor's (`appendOutcomes` in the engine's `outcomePages.ts`), so that the baseline's pages
 * roll over at the same turns as the engine's and its commits write the same items: each
 * outcome takes its `pageEntryBytes` (its JSON, its key again and 32 bytes), and the commit that
 * brings the page to the store's `pageBytes` closes it, so the next commit begins the next page.
 * Only the byte rules are the engine's; the bookkeeping is written out here.
 */
import type { OutcomePageState, PagedOutcome, StoreLimits } from '@baton/core/adapter';
import { pageEntryBytes } from '@baton/core/adapter';
import { pageBytes } from '@baton/core/engine';

/** Where one commit's outcome goes, and the record's page state after the commit. */
export interface PageAppend {
  /** The page the outcome is written to. */
  readonly page: number;
  /** Whether this commit begins its page (it held nothing): a store may put it whole. */
  readonly begins: boolean;
  /** The latest `sentAt` of this page and every page before it, after the write (`pm` on DynamoDB). */
  readonly sentAt: number;
  /** The outcome's entry bytes, as `Commit.measured.outcomes` takes them. */
  readonly entryBytes: number;
  /** The record's page state after the commit. */
  readonly state: OutcomePageState;
}

/** The page state of an actor's first commit: its pages begin at `now` (the engine's `firstPage`). */
export function firstPageState(now: number): OutcomePageState {
  return { page: Math.max(0, Math.floor(now)), bytes: 0 };
}

/** Appends one commit's one outcome to the page `state` says is open, on a store with `limits`. */
export function appendOutcome(
  state: OutcomePageState,
  outcome: PagedOutcome,
  limits: StoreLimits,
): PageAppend {
  const entryBytes = pageEntryBytes(outcome);
  const bytes = state.bytes + entryBytes;
  const sentAt = Math.max(state.sentAt ?? outcome.sentAt, outcome.sentAt);
  const upTo = Math.max(state.closedSentAt ?? sentAt, sentAt);
  const next: OutcomePageState =
    bytes >= pageBytes(limits)
      ? { page: state.page + 1, bytes: 0, closedSentAt: upTo }
      : {
          page: state.page,
          bytes,
          sentAt,
          ...(state.closedSentAt === undefined ? {} : { closedSentAt: state.closedSentAt }),
        };
  return { page: state.page, begins: state.bytes === 0, sentAt: upTo, entryBytes, state: next };
}
