import {
  type ActorRef,
  type AnyActorDefinition,
  BatonError,
  createQueryContext,
  ErrorCode,
  isBatonError,
  type Registry,
  type Store,
  toBatonError,
} from '@baton/core';
import { canonicalJson } from './canonicalJson.ts';
import type { DependencyIndex } from './DependencyIndex.ts';
import type { QueryInstance, RunOutcome } from './QueryInstance.ts';

/** What a run reads with and records into. */
export interface RunEnvironment {
  readonly registry: Registry;
  readonly store: Pick<Store, 'load'>;
  readonly index: DependencyIndex<QueryInstance>;
}

/**
 * Runs an instance's query once against committed state. Each `ctx.get` loads the actor's record
 * (once per run: later reads of it in the run share the first), records `(actor id, ver)` as a
 * dependency and adds the instance to the index at once, so a commit racing the run is noticed.
 * The caller ends the run with `instance.endRun()`.
 *
 * @example
 * const outcome = await runQuery(instance, { registry, store, index });
 * const { dropped, dirty } = instance.endRun();
 */
export async function runQuery(instance: QueryInstance, env: RunEnvironment): Promise<RunOutcome> {
  const run = instance.beginRun();
  const reads = new Map<string, Promise<unknown>>();
  const ctx = createQueryContext({
    identity: instance.identity,
    get: async (ref) => {
      checkRef(ref);
      const known = reads.get(ref.id);
      if (known) return known;
      const read = readActor(instance, run, env, ref);
      reads.set(ref.id, read);
      return read;
    },
  });
  const { name } = instance.definition;
  try {
    const result = await instance.definition.handler(ctx, instance.args);
    return { ok: true, text: canonicalJson(result, `the result of query "${name}"`) };
  } catch (error) {
    return { ok: false, error: toBatonError(error), unexpected: !isBatonError(error) };
  }
}

async function readActor(
  instance: QueryInstance,
  run: number,
  env: RunEnvironment,
  ref: ActorRef,
): Promise<unknown> {
  const definition: AnyActorDefinition = env.registry.definition(ref.type);
  if (instance.beginRead(run, ref.id) && !instance.closed) env.index.add(ref.id, instance);
  const record = await env.store.load(ref.id);
  instance.endRead(run, ref.id, record?.ver ?? 0);
  return record ? record.state : definition.initial(ref.key);
}

function checkRef(ref: ActorRef): void {
  if (typeof ref?.id !== 'string' || typeof ref.type !== 'string' || typeof ref.key !== 'string') {
    throw new BatonError(
      ErrorCode.INVALID_REF,
      'ctx.get(ref) needs an actor ref, e.g. ctx.get(Account.ref(key))',
    );
  }
}
