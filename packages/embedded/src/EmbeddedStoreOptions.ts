/**
 * The options of an `EmbeddedStore`: its transaction limits, clock and journal, where a
 * listener's error goes, and whether commits are frozen (for tests).
 */
import type { Clock, StoreLimits } from '@baton/core/adapter';
import type { Journal } from './Journal.ts';

/** Options of an `EmbeddedStore`. */
export interface EmbeddedStoreOptions {
  /** Transaction limits; the ones not given are DynamoDB's (100 items, 4 MB, 400 KB per item). */
  readonly limits?: Partial<StoreLimits>;
  /** Decides when idempotency records expire. Default: the system clock. */
  readonly clock?: Clock;
  /** Where commits are made durable and replayed from on start. Default: none (memory only). */
  readonly journal?: Journal;
  /** Called when a change or outcome listener throws (the commit stays done). Default: console.error. */
  readonly onListenerError?: (error: unknown) => void;
  /**
   * Freezes what a commit passes in, which the store keeps as it is: code that changes a
   * committed object afterwards throws instead of changing the store. It also measures every
   * commit whole, and throws where the engine measured a size otherwise (`Commit.measured`).
   * It costs walks of every commit, so it is for tests. Default: on when the environment
   * variable `BATON_FREEZE_COMMITS` is `1` (Baton's own test suite sets it).
   */
  readonly freezeCommits?: boolean;
}
