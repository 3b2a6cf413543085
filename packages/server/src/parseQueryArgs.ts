import { type AnyQueryDefinition, BatonError, ErrorCode } from '@baton/core';

/**
 * Validates a subscriber's args against the query's schema and returns them as parsed (defaults
 * applied). Bad args throw INVALID_PAYLOAD naming each failing field, e.g. `args.accounts.0`.
 *
 * @example
 * parseQueryArgs(totalBalance, { accounts: ['alice'] }); // { accounts: ['alice'] }
 */
export function parseQueryArgs(definition: AnyQueryDefinition, args: unknown): unknown {
  const result = definition.args.safeParse(args);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => ({
    path: ['args', ...issue.path.map(String)].join('.'),
    message: issue.message,
  }));
  const summary = issues.map((i) => `${i.path}: ${i.message}`).join('; ');
  throw new BatonError(
    ErrorCode.INVALID_PAYLOAD,
    `invalid args for query "${definition.name}": ${summary}`,
    { details: { query: definition.name, issues } },
  );
}
