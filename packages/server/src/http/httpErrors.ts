import { BatonError, ErrorCode, type Logger, toBatonError, withheld } from '@baton/core';

/** HTTP status per error code: 4xx for what the caller must change, 5xx for what may pass. */
const STATUS: Record<ErrorCode, number> = {
  INVALID_PAYLOAD: 400,
  INVALID_ARGUMENT: 400,
  INVALID_REF: 400,
  UNAUTHENTICATED: 401,
  UNKNOWN_ACTOR: 404,
  UNKNOWN_MESSAGE: 404,
  NOT_FOUND: 404,
  MESSAGE_TOO_LARGE: 413,
  STATE_TOO_LARGE: 422,
  REJECTED: 422,
  INVALID_STATE: 422,
  DEAD_LETTERED: 422,
  ACTOR_PAUSED: 503,
  IDEMPOTENCY_KEY_REUSED: 409,
  RETRYABLE: 503,
  UNAVAILABLE: 503,
  VERSION_CONFLICT: 503,
  DUPLICATE: 409,
  TRANSACTION_TOO_LARGE: 413,
  ASK_TIMEOUT: 504,
  FORBIDDEN: 403,
  UNAUTHORIZED: 401,
  RATE_LIMITED: 429,
  LIMIT_EXCEEDED: 429,
  NON_DETERMINISTIC: 409,
  STEP_FAILED: 422,
  TIMED_OUT: 504,
  CANCELLED: 409,
};

export interface HttpResponse {
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

export function json(statusCode: number, value: unknown): HttpResponse {
  return {
    statusCode,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(value),
  };
}

/**
 * `{ error: { code, message, details } }` with the code's status. An unexpected error (no Baton
 * error: a driver's, a bug's) is answered without its text, which goes to `logger`.
 */
export function errorResponse(error: unknown, logger?: Logger): HttpResponse {
  const shown = withheld(toBatonError(error), (text) =>
    logger?.error('a request failed', { error: text }),
  );
  return json(STATUS[shown.code], { error: shown.toJSON() });
}

export function badRequest(message: string, details: Record<string, unknown> = {}): BatonError {
  return new BatonError(ErrorCode.INVALID_ARGUMENT, message, { details });
}
