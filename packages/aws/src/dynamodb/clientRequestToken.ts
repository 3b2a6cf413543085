import { createHash } from 'node:crypto';
import type { Commit } from '@baton/core/adapter';

/**
 * The `ClientRequestToken` of a commit's `TransactWriteItems`: 36 characters derived from the
 * actor, the version the commit expects and a hash of its content. The SDK resends the same
 * token when it retries, so a retry of a transaction that did apply (its answer was lost)
 * succeeds without writing twice; a different commit gets a different token. A `variant` gives
 * another request of the same commit a token of its own (DynamoDB refuses a token reused with
 * other items).
 *
 * @example
 * clientRequestToken(commit); // 'a3F9…' (36 URL-safe base64 characters)
 */
export function clientRequestToken(commit: Commit, variant = ''): string {
  const content = createHash('sha256')
    .update(JSON.stringify([commit.record, commit.outbox, commit.idempotency]))
    .digest('base64url');
  return createHash('sha256')
    .update(`${commit.record.id}\n${commit.expectedVer}\n${content}${variant}`)
    .digest('base64url')
    .slice(0, 36);
}
