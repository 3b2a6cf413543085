/**
 * Pages of an actor's state moved out into items of their own, for state that only grows (a
 * workflow's history): a handler puts a page with its commit, as an overflow mark of kind
 * `page`, and reads pages back, its turn's own uncommitted ones included. Not part of the public
 * context: workflows read it from the handler context under {@link STATE_PAGES}.
 */
export interface StatePages {
  /** Writes page `id` with this handling's commit (a page is written once; put again, replaced). */
  put(id: string, value: unknown): void;
  /** The pages of `ids` (committed, or put earlier in this turn); a page never put is absent. */
  read(ids: readonly string[]): Promise<Map<string, unknown>>;
}

export const STATE_PAGES = Symbol.for('baton.statePages');

/** When a store may forget a page: never (the instance's record says which pages it holds). */
export const PAGE_EXPIRES_AT = Number.MAX_SAFE_INTEGER;
