/** A step's retry policy: how long to wait before the next attempt, or that none is left. */
import { BatonError, ErrorCode } from '../errors.ts';
import type { RetryPolicy } from './WorkflowContext.ts';

const HOUR = 60 * 60 * 1000;

/**
 * The wait before attempt `attempt + 1` under `policy`, or `undefined` when `attempt` was the
 * last. Defaults: 3 attempts, 1 s, doubling, at most an hour.
 *
 * @example
 * retryDelay({ maxAttempts: 4, initialDelayMs: 100 }, 2); // 200
 */
export function retryDelay(policy: RetryPolicy | undefined, attempt: number): number | undefined {
  const maxAttempts = policy?.maxAttempts ?? 3;
  if (attempt >= maxAttempts) return undefined;
  const initial = policy?.initialDelayMs ?? 1000;
  const factor = policy?.backoffFactor ?? 2;
  return Math.min(initial * factor ** (attempt - 1), policy?.maxDelayMs ?? HOUR);
}

/**
 * The defaults of undo work (a step's compensation, a `saga.step` in a call's): 20 attempts, so
 * with the backoff's own defaults about 8 hours before it gives up for good, as an undo left
 * undone is money or stock out of place, where a failed step only fails its run.
 */
export const COMPENSATION_RETRY: RetryPolicy = { maxAttempts: 20 };

/**
 * The policy of undo work: `own` (a `saga.step`'s `retry`) over the workflow's
 * `compensationRetry` over {@link COMPENSATION_RETRY}, field by field.
 *
 * @example
 * undoRetry({ initialDelayMs: 5_000 }, undefined); // { maxAttempts: 20, initialDelayMs: 5000 }
 */
export function undoRetry(
  workflow: RetryPolicy | undefined,
  own: RetryPolicy | undefined,
): RetryPolicy {
  return { ...COMPENSATION_RETRY, ...given(workflow), ...given(own) };
}

/** `policy` without its fields set to `undefined`, which leave the defaults as they are. */
const given = (policy: RetryPolicy | undefined): RetryPolicy =>
  Object.fromEntries(Object.entries(policy ?? {}).filter(([, value]) => value !== undefined));

/** Throws INVALID_ARGUMENT for a policy that is not one. */
export function checkRetryPolicy(where: string, policy: RetryPolicy | undefined): void {
  if (policy === undefined) return;
  const problems: string[] = [];
  const { maxAttempts, initialDelayMs, backoffFactor, maxDelayMs } = policy;
  const whole = Number.isInteger(maxAttempts) || maxAttempts === Number.POSITIVE_INFINITY;
  if (maxAttempts !== undefined && !(whole && maxAttempts >= 1)) {
    problems.push('maxAttempts must be an integer ≥ 1, or Infinity');
  }
  for (const [name, value] of Object.entries({ initialDelayMs, backoffFactor, maxDelayMs })) {
    if (
      value !== undefined &&
      !(typeof value === 'number' && Number.isFinite(value) && value >= 0)
    ) {
      problems.push(`${name} must be a number ≥ 0`);
    }
  }
  if (problems.length > 0) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `${where}: invalid retry policy: ${problems.join('; ')}`,
    );
  }
}

/**
 * What the run sees of a step that failed its last attempt; `compensation`: the step that failed
 * is the compensation of step `name` (a refund that failed, not the charge).
 */
export function stepFailed(
  name: string,
  attempts: number,
  last: BatonError,
  compensation = false,
): BatonError {
  const what = `${compensation ? 'the compensation of ' : ''}step "${name}"`;
  return new BatonError(
    ErrorCode.STEP_FAILED,
    `${what} failed after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${last.message}`,
    {
      details: {
        step: name,
        ...(compensation && { compensation: true }),
        attempts,
        cause: last.toJSON(),
      },
    },
  );
}
