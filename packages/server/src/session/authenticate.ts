import { BatonError, ErrorCode } from '@baton/core';
import { authTimedOut } from './connectionLimits.ts';

/**
 * What a connection attempt offers the app's `auth` hook, as each host reads it (the deadline
 * setter is added here).
 */
export interface ConnectAttempt {
  readonly token?: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** Aborted when the host stops waiting for the hook (the local host's `authTimeoutMs`). */
  readonly signal?: AbortSignal;
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
  checkPlainIdentity(identity);
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

/**
 * {@link authenticate}, waited for `timeoutMs` at most: past it, `abort` (the hook's
 * `request.signal`) is aborted with the UNAVAILABLE error of `authTimedOut`, and the wait rejects
 * with it ({@link isAuthTimeout} tells it from a hook's refusal). An abort from elsewhere, such as
 * a server closing, ends the wait too, with its reason.
 *
 * @example
 * const { identity } = await authenticateWithin(app.auth, { token, headers }, clock, 10_000);
 */
export async function authenticateWithin(
  auth: ((request: never) => unknown) | undefined,
  attempt: Omit<ConnectAttempt, 'signal'>,
  clock: { now(): number },
  timeoutMs: number,
  abort = new AbortController(),
): Promise<ConnectAuth> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const ended = new Promise<never>((_resolve, reject) => {
    abort.signal.addEventListener('abort', () => reject(abort.signal.reason), { once: true });
    timer = setTimeout(() => {
      const error = authTimedOut(timeoutMs);
      timeouts.add(error);
      abort.abort(error);
    }, timeoutMs);
  });
  try {
    const signedIn = authenticate(auth, { ...attempt, signal: abort.signal }, clock);
    return await Promise.race([signedIn, ended]);
  } finally {
    clearTimeout(timer);
  }
}

/** The errors of {@link authenticateWithin} for hooks that ran past their time. */
const timeouts = new WeakSet<object>();

/** Whether `error` is that of an auth hook that ran past its time: the client tries again later. */
export function isAuthTimeout(error: unknown): boolean {
  return typeof error === 'object' && error !== null && timeouts.has(error);
}

/** Nesting past this is taken for a cycle. */
const MAX_DEPTH = 64;

/**
 * Refuses an identity that is not plain JSON data. Baton tells users apart by their identity's
 * JSON (the instance of a query reading `ctx.identity`, the scope of idempotency keys, the
 * per-user connection cap), and API Gateway's connections keep it as JSON: a class instance
 * whose fields are private or getters, a Map or a Set, reads as `{}`, which would make one user
 * of them all.
 */
function checkPlainIdentity(identity: unknown): void {
  const problem = identity === undefined ? undefined : notPlain(identity, 'identity', 0);
  if (problem === undefined) return;
  throw new BatonError(
    ErrorCode.INVALID_STATE,
    `the auth hook returned an identity that is not plain JSON data (${problem}): Baton tells ` +
      'users apart by their identity as JSON, where such a value would read as {} for every ' +
      'user. Return plain data, e.g. { userId: session.userId }',
  );
}

/** Where `value` is not plain JSON data, as `path is what`; `undefined` when it is. */
function notPlain(value: unknown, path: string, depth: number): string | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number') {
    return Number.isFinite(value) ? undefined : `${path} is ${value}`;
  }
  if (typeof value !== 'object') return `${path} is a ${typeof value}`;
  if (depth >= MAX_DEPTH) return `${path} nests past ${MAX_DEPTH} levels`;
  const proto = Object.getPrototypeOf(value);
  const array = Array.isArray(value) && proto === Array.prototype;
  if (!array && proto !== Object.prototype && proto !== null) {
    return `${path} is a ${(value.constructor as { name?: string } | undefined)?.name || 'non-plain object'}`;
  }
  // What JSON leaves out (a symbol key, a hidden member, a named member of a list) may be all
  // that tells two users apart.
  for (const key of Reflect.ownKeys(value)) {
    if (typeof key === 'symbol') return `${path} has a symbol key`;
    if (array && (key === 'length' || /^(0|[1-9]\d*)$/.test(key))) continue;
    if (array) return `${path} has a member "${key}" besides its elements`;
    if (!Object.prototype.propertyIsEnumerable.call(value, key)) {
      return `${path}.${key} is not enumerable`;
    }
  }
  const members: [string, unknown][] = array
    ? (value as unknown[]).map((element, i) => [`[${i}]`, element])
    : Object.entries(value).map(([key, member]) => [`.${key}`, member]);
  for (const [at, member] of members) {
    // JSON leaves an undefined member out, and writes an undefined element (or a hole) as null,
    // the same for every user.
    if (member === undefined) continue;
    const found = notPlain(member, `${path}${at}`, depth + 1);
    if (found) return found;
  }
  return undefined;
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
