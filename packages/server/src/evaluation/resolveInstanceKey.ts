import { type AnyQueryDefinition, BatonError, ErrorCode, isTrusted } from '@baton/core';
import { authorizeQuery, canonicalJson, listedQueries, unknownQuery } from '@baton/core/adapter';
import { parseQueryArgs } from '../parseQueryArgs.ts';
import type { SubscribeRequest } from '../SubscribeRequest.ts';

/**
 * Most bytes a query's args may take as JSON: an instance keeps them (twice, on API Gateway:
 * in its key too) beside the list of what its run read, in one item.
 */
export const MAX_QUERY_ARGS_BYTES = 32 * 1024;

/** A subscription request resolved to its query, parsed args and instance key. */
export interface ResolvedRequest {
  readonly definition: AnyQueryDefinition;
  readonly args: unknown;
  /** `[name, canonical args, scope]` as JSON: equal for requests that share an instance. */
  readonly key: string;
  /** The identity scope: whose live queries' reads it counts against (`maxReadsPerScope`). */
  readonly scope: string;
}

/**
 * Finds the query (NOT_FOUND, listing the known ones), parses the args (INVALID_PAYLOAD naming
 * the field) and computes the instance key from the canonical parsed args and the identity scope.
 * A request with a `caller` (a host subscribing for a client) is checked by the one access rule
 * every door shares: an unknown or internal query, or one whose `authorize` refuses, is
 * FORBIDDEN, naming only the public queries (not a token-guarded one: `listedQueries`).
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
  const outside = request.caller !== undefined && !isTrusted(request.caller);
  if (outside && definition?.public !== true) {
    throw unknownQuery(request.query, listedQueries(queries.values()));
  }
  if (!definition) {
    const known = [...queries.keys()].join(', ') || 'none';
    throw new BatonError(
      ErrorCode.NOT_FOUND,
      `unknown query "${request.query}": register it with the engine (known: ${known})`,
      { details: { query: request.query, known: [...queries.keys()] } },
    );
  }
  const args = parseQueryArgs(definition, request.args);
  if (request.caller !== undefined) authorizeQuery(definition, request.caller, args);
  const scope = (request.scope ?? defaultScope)(request.identity);
  if (typeof scope !== 'string') {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `an identity scope must be a string, got ${typeof scope}`,
    );
  }
  const canonical = canonicalJson(args, 'args');
  const bytes = new TextEncoder().encode(canonical).length;
  if (bytes > MAX_QUERY_ARGS_BYTES) {
    throw new BatonError(
      ErrorCode.LIMIT_EXCEEDED,
      `the args of query "${definition.name}" take ${bytes} bytes of JSON, more than a live query may keep (${MAX_QUERY_ARGS_BYTES}): pass ids or a page, not data`,
      { details: { query: definition.name, bytes, maxBytes: MAX_QUERY_ARGS_BYTES } },
    );
  }
  const key = JSON.stringify([definition.name, canonical, scope]);
  return { definition, args, key, scope };
}
