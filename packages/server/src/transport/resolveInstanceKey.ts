import { type AnyQueryDefinition, BatonError, ErrorCode } from '@baton/core';
import { canonicalJson } from '@baton/core/adapter';
import { parseQueryArgs } from '../parseQueryArgs.ts';
import type { SubscribeRequest } from '../SubscribeRequest.ts';

/** A subscription request resolved to its query, parsed args and instance key. */
export interface ResolvedRequest {
  readonly definition: AnyQueryDefinition;
  readonly args: unknown;
  /** `[name, canonical args, scope]` as JSON: equal for requests that share an instance. */
  readonly key: string;
}

/**
 * Finds the query (NOT_FOUND, listing the known ones), parses the args (INVALID_PAYLOAD naming
 * the field) and computes the instance key from the canonical parsed args and the identity scope.
 *
 * @example
 * resolveInstanceKey(queries, identityScope, { query: 'totalBalance', args: { accounts: ['a'] } })
 *   .key; // '["totalBalance","{\"accounts\":[\"a\"]}","anonymous"]'
 */
export function resolveInstanceKey(
  queries: ReadonlyMap<string, AnyQueryDefinition>,
  defaultScope: (identity: unknown) => string,
  request: SubscribeRequest,
): ResolvedRequest {
  const definition = queries.get(request.query);
  if (!definition) {
    const known = [...queries.keys()].join(', ') || 'none';
    throw new BatonError(
      ErrorCode.NOT_FOUND,
      `unknown query "${request.query}": register it with the engine (known: ${known})`,
      { details: { query: request.query, known: [...queries.keys()] } },
    );
  }
  const args = parseQueryArgs(definition, request.args);
  const scope = (request.scope ?? defaultScope)(request.identity);
  if (typeof scope !== 'string') {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `an identity scope must be a string, got ${typeof scope}`,
    );
  }
  const key = JSON.stringify([definition.name, canonicalJson(args, 'args'), scope]);
  return { definition, args, key };
}
