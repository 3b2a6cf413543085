/**
 * What the engine puts on a handler context beyond the public `ActorContext`, under symbols:
 * the hooks workflows run on (spans for their steps, pages for their history, a warm cache for
 * suspended runs). Not part of the public context. Defined here, in the app API, where
 * workflows read them; the engine fills them in (createHandlerContext.ts).
 */

import type { OpenTelemetryApi, SpanParent } from './openTelemetry.ts';

/**
 * Where a handler context keeps the `traceparent` of its handling's span (what the messages it
 * sends carry), for workflows to keep their first turn's as the parent of their commands' spans.
 */
export const TURN_TRACE = Symbol.for('baton.turnTrace');

/**
 * Where a handler context keeps what spans inside its handling start from (an
 * {@link InnerSpanSource}), when the handling is traced with OpenTelemetry: workflows read it to
 * give each step a span (see `startInnerSpan` in openTelemetry.ts).
 */
export const INNER_SPAN = Symbol.for('baton.innerSpan');

/** The app's OpenTelemetry module and the handling's trace: what {@link INNER_SPAN} holds. */
export interface InnerSpanSource {
  readonly openTelemetry: OpenTelemetryApi;
  readonly trace: SpanParent;
}

/**
 * Pages of an actor's state moved out into items of their own, for state that only grows (a
 * workflow's history): a handler puts a page with its commit, as an overflow mark of kind
 * `page`, and reads pages back, its turn's own uncommitted ones included. Workflows read it
 * from the handler context under {@link STATE_PAGES}.
 */
export interface StatePages {
  /**
   * How much of the growing state the record should keep: more moves out into pages of up to
   * seven eighths of this (the store's `historyBytes`).
   */
  readonly keepBytes: number;
  /** Writes page `id` with this handling's commit (a page is written once; put again, replaced). */
  put(id: string, value: unknown): void;
  /**
   * Forgets page `id` with this handling's commit: a small stand-in replaces it that expires at
   * once (reads leave it out; a store deletes it as it deletes expired marks, DynamoDB by TTL).
   */
  drop(id: string): void;
  /** The pages of `ids` (committed, or put earlier in this turn); a page never put is absent. */
  read(ids: readonly string[]): Promise<Map<string, unknown>>;
}

export const STATE_PAGES = Symbol.for('baton.statePages');

/** {@link StatePages.keepBytes} on a store that sets no `historyBytes`. */
export const KEEP_BYTES = 8 * 1024;

/**
 * A worker's memory of live objects a handler leaves for the actor's next turn (the engine's
 * `WarmCache`): a handler takes its entry out as it starts and puts one back as it ends.
 */
export interface WarmEntries {
  /** Removes and returns the entry of `key`. */
  take(key: string): unknown;
  put(key: string, value: unknown): void;
}

/**
 * Where a handler context keeps its worker's {@link WarmEntries}: workflows read it to continue
 * a suspended run in memory.
 */
export const WARM_CACHE = Symbol.for('baton.warmCache');

/**
 * Where a handler context keeps a check that the turn's record is still the store's: it rejects
 * with a version conflict (the turn is then done again on the store's record) when another
 * worker committed over the worker's warm copy the turn began from. Workflows call it before
 * work outside Baton (a step), which a commit's conflict could no longer take back.
 */
export const CONFIRM_RECORD = Symbol.for('baton.confirmRecord');

/**
 * Where a handler context keeps, when its record holds the effects of earlier messages of its
 * turn not committed yet (they would commit with this one), a function that asks the turn to
 * commit those first and to handle this message again on the committed record: what this
 * handling did is dropped. Absent when nothing of the turn waits to commit. Workflows call it
 * before a step (see the Replayer's `drive`): such a record may hold what an earlier message
 * drew (a callback's secret) or armed (a compensation), which a commit that fails would take
 * back after the step's effect outside saw it.
 */
export const COMMIT_FIRST = Symbol.for('baton.commitFirst');

/**
 * Where a handler context keeps its turn's {@link TurnDeadline}, when its host says when it
 * stops the turn's work: workflows start no step that would end past it, less the time their
 * commit takes.
 */
export const TURN_DEADLINE = Symbol.for('baton.turnDeadline');

/** When a turn's host stops its work, and the steps its workflows ran so far: one per turn. */
export interface TurnDeadline {
  /** Epoch ms, the machine's clock: a Lambda invocation's timeout. */
  readonly at: number;
  /** Steps run in the turn, by all its messages. */
  steps: number;
  /** The longest of them, in ms. */
  longestMs: number;
}

/**
 * Reads pages of an actor's state (see {@link StatePages}) by id, the ones never put left out:
 * what a query context keeps under {@link QUERY_PAGES} when its server's store can read them.
 * Pages commit with the record that counts them and never change, so a query that read the
 * record depends on nothing more.
 */
export type ReadPages = (actorId: string, ids: readonly string[]) => Promise<Map<string, unknown>>;

/** Where a query context keeps its {@link ReadPages}: `workflowHistory` reads older entries. */
export const QUERY_PAGES = Symbol.for('baton.queryPages');
