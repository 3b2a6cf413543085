/**
 * Baton's one error model. Every error Baton raises is a {@link BatonError} with a stable
 * `code` from {@link ErrorCode}, and its retry semantics are part of its type:
 * a terminal error is never retried, a retryable one is (after `retryAfterMs` if given).
 */

/** The stable error codes, each its own name: see {@link ErrorCode}. */
export interface ErrorCodes {
  /**
   * A message payload failed its zod schema. Terminal at the doors (client, `ctx.send`); in the
   * inbox, where newer code may have sent it, the message waits (see `docs/deploys.md`). Refused
   * at a handler's `ctx` (`send`, `ask`, `start`, `schedule`, `effect`), it names that handler
   * first (`in handler "checkout" of cart/42: …`), and `details.sentBy` is `{ actor, handler }`,
   * as do UNKNOWN_ACTOR, UNKNOWN_MESSAGE and INVALID_REF refused there; if the handler lets it
   * escape, its message is kept as a dead letter (DEAD_LETTERED, this error its cause).
   */
  readonly INVALID_PAYLOAD: 'INVALID_PAYLOAD';
  /** No actor type with that name is registered. Terminal at the doors; waits in the inbox. */
  readonly UNKNOWN_ACTOR: 'UNKNOWN_ACTOR';
  /** The actor type has no handler with that message name. Terminal at the doors; waits in the inbox. */
  readonly UNKNOWN_MESSAGE: 'UNKNOWN_MESSAGE';
  /** An actor key or ref is malformed. Terminal. */
  readonly INVALID_REF: 'INVALID_REF';
  /**
   * A request carried no valid credentials (no token, an expired, forged or foreign one). Terminal;
   * the caller learns only "unauthorized", the reason stays in the server's logs.
   */
  readonly UNAUTHENTICATED: 'UNAUTHENTICATED';
  /** A handler grew the state past the backend's record limit. Terminal; the state is unchanged. */
  readonly STATE_TOO_LARGE: 'STATE_TOO_LARGE';
  /**
   * A handler left state that is not plain JSON (a BigInt, a cycle). Terminal; state unchanged.
   * Also an operator's action refused for the state a message is in: a redrive of a parked
   * message, or a plain redrive of a dead letter whose sender was answered DEAD_LETTERED.
   */
  readonly INVALID_STATE: 'INVALID_STATE';
  /** A message (or a turn's sends) passed the backend's item limit. Terminal. */
  readonly MESSAGE_TOO_LARGE: 'MESSAGE_TOO_LARGE';
  /**
   * A handler threw a TerminalError: the message is rejected, the state unchanged. Also what a
   * workflow instance answers a message it cannot take: a signal after it ended, a start with
   * another input than its run's (refused at the client's door already when its record shows it).
   */
  readonly REJECTED: 'REJECTED';
  /** A handler threw a RetryableError or an unexpected error: the message is retried later. */
  readonly RETRYABLE: 'RETRYABLE';
  /** A commit lost a race: the record's version moved. The engine reloads and redoes the batch. */
  readonly VERSION_CONFLICT: 'VERSION_CONFLICT';
  /**
   * An idempotency key was used again for another message (another name or payload) to the same
   * actor. Terminal: the first message's outcome is not handed out; pick a fresh key.
   */
  readonly IDEMPOTENCY_KEY_REUSED: 'IDEMPOTENCY_KEY_REUSED';
  /**
   * A message kept failing and the engine ended it — or an ingress copy arrived older than its
   * outcome's retention, so the engine could not tell whether it was applied (see
   * `docs/deploys.md`): state unchanged, kept as a dead letter to inspect and redrive. Terminal.
   */
  readonly DEAD_LETTERED: 'DEAD_LETTERED';
  /**
   * The actor is paused by an operator: its messages are held, in order, and applied when it is
   * resumed (`baton actors resume`). Not a failure of the message.
   */
  readonly ACTOR_PAUSED: 'ACTOR_PAUSED';
  /** A commit held an idempotency key that was already used. The engine skips that message. */
  readonly DUPLICATE: 'DUPLICATE';
  /** A commit passed a backend transaction limit (items or bytes). */
  readonly TRANSACTION_TOO_LARGE: 'TRANSACTION_TOO_LARGE';
  /** An ask got no answer within its timeout. The message may still be processed later. */
  readonly ASK_TIMEOUT: 'ASK_TIMEOUT';
  /** A thing asked for by id does not exist (yet), e.g. the outcome of an unprocessed message. */
  readonly NOT_FOUND: 'NOT_FOUND';
  /** Something called Baton wrongly (bad option, bad argument). */
  readonly INVALID_ARGUMENT: 'INVALID_ARGUMENT';
  /** The backend went away mid-operation (a crash, a closed store). Retryable. */
  readonly UNAVAILABLE: 'UNAVAILABLE';
  /**
   * The caller may not do that: a message or query that is not public (or unknown), or one whose
   * `authorize` check refused this caller. Terminal; nothing was enqueued or subscribed.
   */
  readonly FORBIDDEN: 'FORBIDDEN';
  /**
   * @deprecated No door sends it: the HTTP ingress, which refused credentials with it, now does
   * with {@link ErrorCode.UNAUTHENTICATED}, as every other door.
   */
  readonly UNAUTHORIZED: 'UNAUTHORIZED';
  /** A connection sent more frames per second than its host allows. Retryable, after `retryAfterMs`. */
  readonly RATE_LIMITED: 'RATE_LIMITED';
  /** A per-connection cap was reached (e.g. its number of subscriptions). Terminal for that request. */
  readonly LIMIT_EXCEEDED: 'LIMIT_EXCEEDED';
  /**
   * A workflow's code no longer replays its recorded history (a step renamed, reordered or
   * removed): the instance is paused, its history intact; deploy code that replays it (keep the
   * old path behind `ctx.patched`) and it resumes on its next message or `client.resumeWorkflow`.
   */
  readonly NON_DETERMINISTIC: 'NON_DETERMINISTIC';
  /** A workflow step kept failing past its retry policy: what the run sees. Terminal. */
  readonly STEP_FAILED: 'STEP_FAILED';
  /** A workflow's wait (an event, a callback) or a result awaited passed its timeout. Terminal. */
  readonly TIMED_OUT: 'TIMED_OUT';
  /** A workflow was cancelled or terminated before it completed. Terminal. */
  readonly CANCELLED: 'CANCELLED';
}

/** The codes of {@link ErrorCodes}, in its order; the compiler checks that it has them all. */
const CODES = [
  'INVALID_PAYLOAD',
  'UNKNOWN_ACTOR',
  'UNKNOWN_MESSAGE',
  'INVALID_REF',
  'UNAUTHENTICATED',
  'STATE_TOO_LARGE',
  'INVALID_STATE',
  'MESSAGE_TOO_LARGE',
  'REJECTED',
  'RETRYABLE',
  'VERSION_CONFLICT',
  'IDEMPOTENCY_KEY_REUSED',
  'DEAD_LETTERED',
  'ACTOR_PAUSED',
  'DUPLICATE',
  'TRANSACTION_TOO_LARGE',
  'ASK_TIMEOUT',
  'NOT_FOUND',
  'INVALID_ARGUMENT',
  'UNAVAILABLE',
  'FORBIDDEN',
  'UNAUTHORIZED',
  'RATE_LIMITED',
  'LIMIT_EXCEEDED',
  'NON_DETERMINISTIC',
  'STEP_FAILED',
  'TIMED_OUT',
  'CANCELLED',
] as const satisfies readonly (keyof ErrorCodes)[];
/** A code of {@link ErrorCodes} not in {@link CODES} makes this `false`, and the line below fail. */
const allCodes: Exclude<keyof ErrorCodes, (typeof CODES)[number]> extends never ? true : false =
  true;
void allCodes;

/** Stable error codes. Match on these, never on messages. */
export const ErrorCode: ErrorCodes = Object.fromEntries(
  CODES.map((code) => [code, code]),
) as unknown as ErrorCodes;

export type ErrorCode = ErrorCodes[keyof ErrorCodes];

/**
 * The codes of errors that are retried: a message failing with one comes back (after
 * `retryAfterMs` if given). Every other code is terminal: its message is rejected for good.
 */
const RETRIED_CODES: ReadonlySet<string> = new Set<ErrorCode>([
  'RETRYABLE',
  'VERSION_CONFLICT',
  'ACTOR_PAUSED',
  'DUPLICATE',
  'TRANSACTION_TOO_LARGE',
  'ASK_TIMEOUT',
  'UNAVAILABLE',
  'RATE_LIMITED',
]);

/** The codes of terminal errors: every code of {@link ErrorCodes} but the retried ones. */
const TERMINAL_CODES: ReadonlySet<string> = new Set(
  CODES.filter((code) => !RETRIED_CODES.has(code)),
);

const MARK = Symbol.for('baton.error');
/** Set on an error whose message is for the server's log only (`BatonErrorOptions.internal`). */
const INTERNAL = Symbol.for('baton.error.internal');

export interface BatonErrorOptions {
  /** Extra machine-readable facts (field paths, limits, the actor id). */
  readonly details?: Readonly<Record<string, unknown>>;
  /** For retryable errors: the earliest time to retry, in milliseconds from now. */
  readonly retryAfterMs?: number;
  readonly cause?: unknown;
  /**
   * The message is about the app's insides — a vendor's text, a host, a queue's or a table's
   * name — as an adapter's failure is: the server's log keeps it, a caller outside the app is
   * told only the code (see {@link withheld}).
   */
  readonly internal?: boolean;
}

/**
 * The base of every error Baton raises. Recognise it with {@link isBatonError}, which works
 * across bundles holding two copies of this package.
 */
export class BatonError extends Error {
  readonly code: ErrorCode;
  readonly details: Readonly<Record<string, unknown>>;
  readonly retryAfterMs: number | undefined;

  constructor(code: ErrorCode, message: string, options: BatonErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'BatonError';
    this.code = code;
    this.details = options.details ?? {};
    this.retryAfterMs = options.retryAfterMs;
    Object.defineProperty(this, MARK, { value: true });
    if (options.internal) Object.defineProperty(this, INTERNAL, { value: true });
  }

  /** Terminal errors reject one message for good; others are retried. */
  get terminal(): boolean {
    return TERMINAL_CODES.has(this.code);
  }

  /**
   * The error as JSON carries it: its details as they read back (a Map or a Set in them is `{}`,
   * a Date its ISO string), so what a workflow journals or an outcome keeps is JSON already.
   * Details JSON cannot hold (a BigInt, a cycle) are given as they are, and fail where written.
   */
  toJSON(): SerializedError {
    let details: Record<string, unknown>;
    try {
      // Errors are few: the round trip itself, not the walk of `shared/asJson` (a layer above).
      details = JSON.parse(JSON.stringify(this.details)) as Record<string, unknown>;
    } catch {
      details = this.details;
    }
    return { code: this.code, message: this.message, details };
  }
}

/**
 * Throw from a handler to reject the message for good: the state is unchanged, the sends are
 * dropped, and an asker receives this error.
 *
 * @example
 * if (ctx.state.balance < amount) throw new TerminalError('insufficient funds', { details: { balance } });
 */
export class TerminalError extends BatonError {
  constructor(message: string, options: Omit<BatonErrorOptions, 'retryAfterMs'> = {}) {
    super(ErrorCode.REJECTED, message, options);
    this.name = 'TerminalError';
  }
}

/**
 * Throw from a handler to retry the message later. The batch stops before this message; the
 * messages before it commit. Any other unexpected error is retried the same way.
 *
 * @example
 * throw new RetryableError('rate limited', { retryAfterMs: 5_000 });
 */
export class RetryableError extends BatonError {
  constructor(message: string, options: BatonErrorOptions = {}) {
    super(ErrorCode.RETRYABLE, message, options);
    this.name = 'RetryableError';
  }
}

/** The wire and storage form of an error. */
export interface SerializedError {
  readonly code: ErrorCode;
  readonly message: string;
  readonly details: Readonly<Record<string, unknown>>;
}

export function isBatonError(value: unknown): value is BatonError {
  return (
    typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARK] === true
  );
}

/** Rebuilds an error from its serialized form (e.g. an ask's stored outcome). */
export function errorFromJSON(error: SerializedError): BatonError {
  return new BatonError(error.code, error.message, { details: error.details });
}

/** Wraps anything thrown into a BatonError, keeping Baton errors as they are. */
export function toBatonError(error: unknown): BatonError {
  if (isBatonError(error)) return error;
  return unexpected(messageOf(error), { cause: error });
}

/** The text of anything thrown: an error's message, or the value as a string. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * A retryable error about what code threw by surprise (no Baton error): {@link withheld} keeps
 * its text from callers outside the app.
 */
export function unexpected(message: string, options: BatonErrorOptions = {}): BatonError {
  return new BatonError(ErrorCode.RETRYABLE, `${UNEXPECTED}${message}`, options);
}

const UNEXPECTED = 'unexpected error: ';

/**
 * What a caller outside the app is shown of `error`: an error that code threw by surprise (no
 * Baton error: a driver's, a bug's), or one an adapter marked `internal` (a store or a queue
 * that failed), keeps its code and its `retryAfterMs`, but not its text or details, which may
 * name what an outsider must not see (a connection string, a table, a queue, an account, a
 * stack); the server's log and the dead letter keep them. A Baton error (a `TerminalError`'s
 * "insufficient funds") is for the caller, and is shown as it is. `log` is given the text
 * withheld, for the server's log.
 *
 * @example
 * withheld(toBatonError(new Error('ECONNREFUSED postgres://admin:pw@db'))).message;
 * // 'an unexpected error; its text is in the server's log'
 */
export function withheld(error: BatonError, log?: (text: string) => void): BatonError {
  const unexpected = error.code === ErrorCode.RETRYABLE && error.message.startsWith(UNEXPECTED);
  if (!unexpected && (error as unknown as Record<symbol, unknown>)[INTERNAL] !== true) {
    return error;
  }
  log?.(error.message);
  const message = unexpected
    ? "an unexpected error; its text is in the server's log"
    : "a service the app uses failed; retry later (its text is in the server's log)";
  return new BatonError(
    error.code,
    message,
    error.retryAfterMs === undefined ? {} : { retryAfterMs: error.retryAfterMs },
  );
}

/**
 * The error for a wrong option or argument, the one every package throws: `message` says what
 * was wrong and what to do instead.
 *
 * @example
 * throw invalidArgument(`batchSize must be 1 to 10, got ${size}`, { option: 'batchSize', value: size });
 */
export function invalidArgument(message: string, details?: Record<string, unknown>): BatonError {
  return batonError(ErrorCode.INVALID_ARGUMENT, message, details);
}

/**
 * Throws INVALID_ARGUMENT for the `problems` found in the options of `what` (`engine`), if any,
 * each one saying what was wrong and what the option must be.
 */
export function refuseOptions(what: string, problems: readonly string[]): void {
  if (problems.length > 0) {
    throw invalidArgument(`invalid ${what} options: ${problems.join('; ')}`);
  }
}

/**
 * Adds a problem to `problems` unless `value`, option `name`'s, is an integer from 1 to `max`;
 * `why`, after the range, says where `max` comes from.
 */
export function checkCount(
  problems: string[],
  name: string,
  value: number,
  max = Infinity,
  why = '',
): void {
  if (Number.isInteger(value) && value >= 1 && value <= max) return;
  const range = max === Infinity ? '≥ 1' : `from 1 to ${max}${why}`;
  problems.push(`${name} must be an integer ${range}, got ${value}`);
}

/**
 * A {@link BatonError} with `details` and no other option: the shape most of Baton's errors take.
 *
 * @example
 * throw batonError(ErrorCode.UNKNOWN_ACTOR, `unknown actor type "${type}"`, { type });
 */
export function batonError(
  code: ErrorCode,
  message: string,
  details?: Record<string, unknown>,
): BatonError {
  return new BatonError(code, message, { details });
}
