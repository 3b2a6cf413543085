/**
 * A query run once against committed state, as a subscriber's first result: for tests of
 * queries, without a server or a socket.
 */
import {
  type AnyQueryDefinition,
  type ArgsOf,
  BatonError,
  ErrorCode,
  type ResultOf,
} from '@baton/core';
import { createQueryContext, type Registry, type Store, upgradeState } from '@baton/core/adapter';

/** What a query reads: the app's actor types, and the store holding their records. */
export interface QueryEnvironment {
  readonly registry: Registry;
  readonly store: Pick<Store, 'load'>;
}

/**
 * Runs `definition` with `args` (checked by its schema, as a server checks a subscription's) and
 * `identity` as `ctx.identity`: each `ctx.get` reads the actor's committed state (its initial
 * state while it has no record), and the result comes back as JSON, as a subscriber gets it.
 * The query's `authorize` is not asked. Throws what the query throws.
 */
export async function runQuery<Q extends AnyQueryDefinition>(
  definition: Q,
  args: ArgsOf<Q>,
  env: QueryEnvironment,
  identity?: unknown,
): Promise<ResultOf<Q>> {
  const parsed = definition.args.safeParse(args);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `args.${i.path.join('.')}: ${i.message}`);
    throw new BatonError(
      ErrorCode.INVALID_PAYLOAD,
      `invalid args for query "${definition.name}": ${issues.join('; ')}`,
    );
  }
  const ctx = createQueryContext({
    identity,
    get: async (ref) => {
      const actor = env.registry.definition(ref.type);
      const record = await env.store.load(ref.id);
      if (!record) return actor.initial(ref.key);
      return upgradeState(actor, record.state, record.stateVersion ?? 1, ref.id);
    },
  });
  const result = await definition.handler(ctx, parsed.data);
  return (result === undefined ? undefined : JSON.parse(JSON.stringify(result))) as ResultOf<Q>;
}
