import {
  type AnyActorDefinition,
  type AnyQueryDefinition,
  BatonError,
  ErrorCode,
  jsonLogger,
  type Logger,
} from '@baton/core';
import {
  type ChangeFeed,
  type Clock,
  canonicalJson,
  type Store,
  systemClock,
} from '@baton/core/adapter';

/**
 * Options of a {@link QueryEngine}.
 *
 * @example
 * const options: QueryEngineOptions = { queries, actors, store: backend.store, feed: backend.feed };
 */
export interface QueryEngineOptions {
  /** The queries clients may subscribe to; names must be unique. */
  readonly queries: readonly AnyQueryDefinition[];
  /** The actor types queries read (for their initial state). */
  readonly actors: readonly AnyActorDefinition[];
  /** Where committed state is read from (strongly consistent `load`). */
  /** With `readOverflow`, `workflowHistory` reads entries moved out into pages too. */
  readonly store: Pick<Store, 'load'> & Partial<Pick<Store, 'readOverflow'>>;
  /** Committed actor records: what invalidates instances. */
  readonly feed: ChangeFeed;
  /** Drives leases. @default the system clock */
  readonly clock?: Clock;
  /** @default JSON lines on stdout at level info */
  readonly logger?: Logger;
  /**
   * The least time between two batches of re-runs: a change that comes `batchMs` after the last
   * batch re-runs at the end of its turn of the event loop, and changes that come sooner are
   * gathered until `batchMs` after it. @default 10 ms
   */
  readonly batchMs?: number;
  /** First retry delay after a retryable failure (a store outage); doubles up to 30 s. @default 1 s */
  readonly retryMs?: number;
  /**
   * The identity scope of a subscription when the subscriber gives none: subscribers with equal
   * scopes share an instance (and its `ctx.identity`). @default one scope per distinct identity
   */
  readonly scope?: (identity: unknown) => string;
  /**
   * The most dependencies (one per actor a live instance read) the engine keeps, in all: what
   * bounds its memory, whoever subscribes. A run that would read one more actor past it fails
   * with LIMIT_EXCEEDED, which its subscribers get. @default 1,000,000 (a few hundred MB)
   */
  readonly maxDependencies?: number;
  /**
   * The most dependencies the instances of one identity scope keep: all anonymous subscribers
   * share one scope, so together they cannot take the whole of `maxDependencies` from signed-in
   * users (nor one user from the others). @default 100,000
   */
  readonly maxDependenciesPerScope?: number;
}

/**
 * The default scope: one per distinct identity (its canonical JSON), `anonymous` for none.
 *
 * @example
 * identityScope({ userId: 'u1' }); // '{"userId":"u1"}'
 */
export function identityScope(identity: unknown): string {
  return identity === undefined ? 'anonymous' : canonicalJson(identity, 'identity');
}

/**
 * Checks the options (all problems at once) and fills in the defaults.
 *
 * @example
 * resolveEngineOptions(options).batchMs; // 10 unless given
 */
export function resolveEngineOptions(options: QueryEngineOptions) {
  const problems: string[] = [];
  const queries = new Map<string, AnyQueryDefinition>();
  for (const query of options?.queries ?? []) {
    if (query?.kind !== 'query') problems.push('queries must be made with query()');
    else if (queries.has(query.name)) problems.push(`two queries are named "${query.name}"`);
    else queries.set(query.name, query);
  }
  if (!Array.isArray(options?.queries)) problems.push('queries must be an array');
  if (!Array.isArray(options?.actors)) problems.push('actors must be an array');
  if (typeof options?.store?.load !== 'function') problems.push('store must have load(actorId)');
  if (typeof options?.feed?.subscribe !== 'function') problems.push('feed must have subscribe()');
  const duration = (name: string, value: number | undefined, fallback: number) => {
    const v = value ?? fallback;
    if (!Number.isFinite(v) || v < 0) problems.push(`${name} must be a number ≥ 0, got ${v}`);
    return v;
  };
  const resolved = {
    queries,
    clock: options?.clock ?? systemClock,
    logger: options?.logger ?? jsonLogger(),
    batchMs: duration('batchMs', options?.batchMs, 10),
    retryMs: duration('retryMs', options?.retryMs, 1_000),
    scope: options?.scope ?? identityScope,
    maxDependencies: duration('maxDependencies', options?.maxDependencies, 1_000_000),
    maxDependenciesPerScope: duration(
      'maxDependenciesPerScope',
      options?.maxDependenciesPerScope,
      100_000,
    ),
  };
  if (problems.length > 0) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `invalid query engine options: ${problems.join('; ')}`,
    );
  }
  return resolved;
}
