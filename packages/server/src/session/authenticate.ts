import { BatonError, ErrorCode } from '@baton/core';

/**
 * What a connection attempt offers the app's `auth` hook, as each host reads it (the deadline
 * setter is added here).
 */
export interface ConnectAttempt {
  readonly token?: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/**
 * What the `auth` hook settled for a connection: its identity, and the time (epoch ms) that
 * identity ends, if the hook set one (`request.validUntil`).
 */
export interface ConnectAuth {
  readonly identity: unknown;
  readonly validUntil?: number;
}

/** The latest time there is (a JavaScript Date's last one), in epoch ms. */
const LAST_TIME = 8.64e15;

/**
 * Runs an app's `auth` hook on a connection attempt (or a request of the HTTP ingress), handing
 * it `validUntil` (the earliest call counts; a call after the hook settled throws). Rejects with
 * what the hook threw, with INVALID_ARGUMENT for a `validUntil` that is not a time, and with
 * UNAUTHENTICATED for one past by the time the hook settled: the door refuses for each, as for
 * any throw of the hook ({@link authRefusal}).
 *
 * @example
 * const { identity, validUntil } = await authenticate(app.auth, { token, headers }, clock);
 */
export async function authenticate(
  auth: ((request: never) => unknown) | undefined,
  attempt: ConnectAttempt,
  clock: { now(): number },
): Promise<ConnectAuth> {
  if (!auth) return { identity: undefined };
  let validUntil: number | undefined;
  let settled = false;
  const request = {
    ...attempt,
    validUntil: (epochMs: number) => {
      if (settled) {
        throw new BatonError(
          ErrorCode.INVALID_STATE,
          'validUntil was called after the auth hook settled: call it before the hook returns',
        );
      }
      if (typeof epochMs !== 'number' || !(Math.abs(epochMs) <= LAST_TIME)) {
        throw new BatonError(
          ErrorCode.INVALID_ARGUMENT,
          `validUntil takes a time in epoch milliseconds, got ${String(epochMs)}`,
        );
      }
      validUntil = Math.min(validUntil ?? epochMs, epochMs);
    },
  };
  let identity: unknown;
  try {
    identity = await (auth as (request: unknown) => unknown)(request);
  } finally {
    settled = true;
  }
  if (validUntil === undefined) return { identity };
  if (validUntil <= clock.now()) {
    throw new BatonError(
      ErrorCode.UNAUTHENTICATED,
      `the identity was valid until ${describeTime(validUntil)}, before now: ` +
        'validUntil takes epoch milliseconds (a JWT exp is seconds: exp * 1000)',
    );
  }
  return { identity, validUntil };
}

/** Whether a connection's identity ended by `now` (never, without a `validUntil`). */
export function authLapsed(validUntil: number | undefined, now: number): boolean {
  return validUntil !== undefined && validUntil <= now;
}

/** What a connection whose identity ended is told, as it is closed. */
export function authExpired(validUntil: number): BatonError {
  return new BatonError(
    ErrorCode.UNAUTHENTICATED,
    `the connection's token expired at ${describeTime(validUntil)}: connect again with a fresh ` +
      'one (BatonClient does when its token option is a function)',
  );
}

function describeTime(epochMs: number): string {
  const date = new Date(epochMs);
  return Number.isNaN(date.getTime()) ? String(epochMs) : date.toISOString();
}
