import type { Commit } from '@baton/core/adapter';
import { sha256 } from '../internal/sha256.ts';

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
  const content = sha256(JSON.stringify([commit.record, commit.outbox, commit.idempotency]));
  return sha256(`${commit.record.id}\n${commit.expectedVer}\n${content}${variant}`).slice(0, 36);
}
