import { BatonError, ErrorCode } from '../errors.ts';

/**
 * The error for a wrong option or argument, the one every package throws: `message` says what
 * was wrong and what to do instead.
 *
 * @example
 * throw invalidArgument(`batchSize must be 1 to 10, got ${size}`, { option: 'batchSize', value: size });
 */
export function invalidArgument(message: string, details?: Record<string, unknown>): BatonError {
  return new BatonError(ErrorCode.INVALID_ARGUMENT, message, details ? { details } : {});
}
