import { BatonError, ErrorCode, isBatonError } from '@baton/core';
import { messageOf } from '@baton/core/adapter';

/** AWS error names that mean "slow down": retry after a pause rather than at once. */
const THROTTLING = new Set([
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'RequestThrottled',
]);

/** The name AWS SDK v3 gives a service error (`error.name`), or `Error`. */
export function awsErrorName(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'name' in error) {
    return String((error as { name: unknown }).name);
  }
  return 'Error';
}

/**
 * Wraps a vendor failure the engine cannot act on (throttling after the SDK's own retries, a
 * network error, a missing table) into a retryable UNAVAILABLE BatonError, keeping the cause.
 * Its text is internal: the server's log has it, a caller outside the app is told the code.
 * A BatonError passes through unchanged.
 */
export function unavailable(
  service: string,
  operation: string,
  error: unknown,
  throttled = false,
): BatonError {
  if (isBatonError(error)) return error;
  const name = awsErrorName(error);
  const message = messageOf(error);
  return new BatonError(
    ErrorCode.UNAVAILABLE,
    `${service} ${operation} failed: ${name}: ${message}`,
    {
      cause: error,
      details: { service, operation, awsError: name },
      // The SDK's text may name the account, a role, a table, a queue or a host.
      internal: true,
      ...(throttled || THROTTLING.has(name) ? { retryAfterMs: 1_000 } : {}),
    },
  );
}
