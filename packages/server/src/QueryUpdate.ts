import type { SerializedError } from '@baton/core';

/**
 * A new result of a query instance. `version` grows by one each time the result changes.
 *
 * @example
 * const update: QueryResult = { kind: 'result', version: 3, hash: 'kq…', value: { total: 5 } };
 */
export interface QueryResult {
  readonly kind: 'result';
  /** The instance's result version: 1 for the first result, then +1 per changed result. */
  readonly version: number;
  /** A stable hash of the result's canonical JSON: equal results have equal hashes. */
  readonly hash: string;
  /** The result as JSON (parsed back from its canonical text), frozen and shared by all subscribers. */
  readonly value: unknown;
}

/**
 * The query failed (its handler threw, or a read failed); a later successful run replaces it.
 *
 * @example
 * const update: QueryError = { kind: 'error', error: { code: 'REJECTED', message: 'no', details: {} } };
 */
export interface QueryError {
  readonly kind: 'error';
  readonly error: SerializedError;
}

/**
 * What a subscriber receives: always the instance's newest state, never an older one.
 *
 * @example
 * const onUpdate = (update: QueryUpdate) =>
 *   update.kind === 'result' ? render(update.value) : showError(update.error.message);
 */
export type QueryUpdate = QueryResult | QueryError;

/**
 * The answer to a reconnecting client: `'unchanged'` when its last result (by hash) is still the
 * newest, else the full newest result or the error the query now gives. (Patches come with the
 * wire protocol.)
 *
 * @example
 * const answer: ResumeAnswer = await engine.resume({ query, args, lastVersion, hash });
 */
export type ResumeAnswer =
  | 'unchanged'
  | {
      readonly kind: 'full';
      readonly version: number;
      readonly hash: string;
      readonly value: unknown;
    }
  | QueryError;
