import { canonicalJson } from '@baton/core/shared';

/**
 * The key of a shared subscription: the query name and its args as canonical JSON (object keys
 * sorted, `undefined` members left out), so `{ a, b }` and `{ b, a }` share one subscription.
 */
export function canonicalKey(query: string, args: unknown): string {
  return `${query}\u0000${canonicalJson(args, 'query args')}`;
}
