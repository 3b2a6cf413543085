import type { Registry, Store } from '@baton/core/adapter';
import type { DependencyIndex } from './DependencyIndex.ts';
import { evaluateQuery } from './evaluation/evaluateQuery.ts';
import type { QueryInstance, RunOutcome } from './QueryInstance.ts';

/** What a run reads with and records into. */
export interface RunEnvironment {
  readonly registry: Registry;
  /** With `readOverflow`, `workflowHistory` reads entries moved out into pages too. */
  readonly store: Pick<Store, 'load'> & Partial<Pick<Store, 'readOverflow'>>;
  readonly index: DependencyIndex<QueryInstance>;
  /**
   * Throws (LIMIT_EXCEEDED) when `instance` may not depend on one more actor, `actorId`: the
   * run fails with that error, and its subscribers get it.
   */
  readonly checkRoom?: (instance: QueryInstance, actorId: string) => void;
}

/**
 * Runs an instance's query once against committed state ({@link evaluateQuery}). Each read
 * records `(actor id, ver, life)` as a dependency of the instance and adds the instance to the index
 * before the load, so a commit racing the run is noticed. The caller ends the run with
 * `instance.endRun()`.
 *
 * @example
 * const outcome = await runQuery(instance, { registry, store, index });
 * const { dropped, dirty } = instance.endRun();
 */
export async function runQuery(instance: QueryInstance, env: RunEnvironment): Promise<RunOutcome> {
  const run = instance.beginRun();
  const { definition, args, identity } = instance;
  const { outcome } = await evaluateQuery(definition, args, identity, env, {
    beforeLoad: (actorId) => {
      env.checkRoom?.(instance, actorId);
      if (instance.beginRead(run, actorId) && !instance.closed) env.index.add(actorId, instance);
    },
    afterLoad: (actorId, at) => instance.endRead(run, actorId, at),
  });
  return outcome;
}
