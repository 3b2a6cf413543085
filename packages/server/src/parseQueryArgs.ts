import { type AnyQueryDefinition, BatonError, ErrorCode } from '@baton/core';
import { schemaIssues } from '@baton/core/shared';

/**
 * Validates a subscriber's args against the query's schema and returns them as parsed (defaults
 * applied). Bad args throw INVALID_PAYLOAD naming each failing field, e.g. `args.accounts.0` (the
 * first `MAX_SCHEMA_ISSUES`, then how many more).
 *
 * @example
 * parseQueryArgs(totalBalance, { accounts: ['alice'] }); // { accounts: ['alice'] }
 */
export function parseQueryArgs(definition: AnyQueryDefinition, args: unknown): unknown {
  const result = definition.args.safeParse(args);
  if (result.success) return result.data;
  const { found: issues, summary } = schemaIssues('args', result.error.issues);
  throw new BatonError(
    ErrorCode.INVALID_PAYLOAD,
    `invalid args for query "${definition.name}": ${summary}`,
    { details: { query: definition.name, issues } },
  );
}
