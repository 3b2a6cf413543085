/**
 * A query run once against committed state, as a subscriber's first result: for tests of
 * queries, without a server or a socket.
 */
import {
  type AnyQueryDefinition,
  type ArgsOf,
  BatonError,
  ErrorCode,
  type IdentityOf,
  type ResultOf,
} from '@baton/core';
import { type EvaluateEnvironment, evaluateQuery } from '@baton/server/evaluation';

/** What a query reads: the app's actor types, and the store holding their records. */
export type QueryEnvironment = EvaluateEnvironment;

/**
 * Runs `definition` with `args` (checked by its schema, as a server checks a subscription's) and
 * `identity` as `ctx.identity`, as the servers run it (`evaluateQuery`: the same read limits,
 * a workflow's history pages read too), and gives the result as a subscriber gets it: JSON. The
 * query's `authorize` is not asked. Throws what the query throws, its text kept (a subscriber is
 * shown an unexpected error's code alone).
 */
export async function runQuery<Q extends AnyQueryDefinition>(
  definition: Q,
  args: ArgsOf<Q>,
  env: QueryEnvironment,
  identity?: IdentityOf<Q>,
): Promise<ResultOf<Q>> {
  const parsed = definition.args.safeParse(args);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `args.${i.path.join('.')}: ${i.message}`);
    throw new BatonError(
      ErrorCode.INVALID_PAYLOAD,
      `invalid args for query "${definition.name}": ${issues.join('; ')}`,
    );
  }
  const { outcome } = await evaluateQuery(definition, parsed.data, identity, env);
  if (!outcome.ok) throw outcome.error;
  return JSON.parse(outcome.text) as ResultOf<Q>;
}
