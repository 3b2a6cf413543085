import { describe, expect, it } from 'vitest';
import {
  BatonError,
  ErrorCode,
  errorFromJSON,
  isBatonError,
  RetryableError,
  type SerializedError,
  TerminalError,
  toBatonError,
  withheld,
} from './errors.ts';

const TERMINAL: readonly ErrorCode[] = [
  'INVALID_PAYLOAD',
  'UNKNOWN_ACTOR',
  'UNKNOWN_MESSAGE',
  'INVALID_REF',
  'UNAUTHENTICATED',
  'STATE_TOO_LARGE',
  'INVALID_STATE',
  'MESSAGE_TOO_LARGE',
  'REJECTED',
  'INVALID_ARGUMENT',
  'NOT_FOUND',
  'IDEMPOTENCY_KEY_REUSED',
  'DEAD_LETTERED',
  'FORBIDDEN',
  'UNAUTHORIZED',
  'LIMIT_EXCEEDED',
  'NON_DETERMINISTIC',
  'STEP_FAILED',
  'TIMED_OUT',
  'CANCELLED',
];
const RETRIED: readonly ErrorCode[] = [
  'RETRYABLE',
  'VERSION_CONFLICT',
  'DUPLICATE',
  'TRANSACTION_TOO_LARGE',
  'ASK_TIMEOUT',
  'UNAVAILABLE',
  'RATE_LIMITED',
  'ACTOR_PAUSED',
];

describe('ErrorCode', () => {
  it('maps every code to itself, so codes survive serialization as plain strings', () => {
    for (const [key, value] of Object.entries(ErrorCode)) expect(value).toBe(key);
  });

  it('classes every code as either terminal or retried', () => {
    expect([...TERMINAL, ...RETRIED].sort()).toEqual(Object.values(ErrorCode).sort());
  });

  it.each(TERMINAL)('treats %s as terminal', (code) => {
    expect(new BatonError(code, 'x').terminal).toBe(true);
  });

  it.each(RETRIED)('treats %s as not terminal', (code) => {
    expect(new BatonError(code, 'x').terminal).toBe(false);
  });
});

describe('BatonError', () => {
  it('carries its code, message, details and cause', () => {
    const cause = new Error('root');
    const error = new BatonError(ErrorCode.INVALID_REF, 'bad ref', {
      details: { ref: 'x' },
      cause,
    });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('BatonError');
    expect(error.code).toBe('INVALID_REF');
    expect(error.message).toBe('bad ref');
    expect(error.details).toEqual({ ref: 'x' });
    expect(error.cause).toBe(cause);
    expect(error.retryAfterMs).toBeUndefined();
  });

  it('defaults details to an empty object and leaves cause unset', () => {
    const error = new BatonError(ErrorCode.UNAVAILABLE, 'gone');
    expect(error.details).toEqual({});
    expect('cause' in error).toBe(false);
  });

  it('serializes to code, message and details only', () => {
    const error = new BatonError(ErrorCode.INVALID_PAYLOAD, 'bad', {
      details: { path: 'payload.amount' },
      cause: new Error('hidden'),
    });
    expect(JSON.parse(JSON.stringify(error))).toEqual({
      code: 'INVALID_PAYLOAD',
      message: 'bad',
      details: { path: 'payload.amount' },
    });
  });
});

describe('TerminalError', () => {
  it('is a terminal BatonError with code REJECTED', () => {
    const error = new TerminalError('insufficient funds', { details: { balance: 3 } });
    expect(isBatonError(error)).toBe(true);
    expect(error).toBeInstanceOf(BatonError);
    expect(error.name).toBe('TerminalError');
    expect(error.code).toBe(ErrorCode.REJECTED);
    expect(error.terminal).toBe(true);
    expect(error.details).toEqual({ balance: 3 });
  });
});

describe('RetryableError', () => {
  it('is a non-terminal BatonError with code RETRYABLE that keeps retryAfterMs', () => {
    const error = new RetryableError('rate limited', { retryAfterMs: 5_000 });
    expect(isBatonError(error)).toBe(true);
    expect(error.name).toBe('RetryableError');
    expect(error.code).toBe(ErrorCode.RETRYABLE);
    expect(error.terminal).toBe(false);
    expect(error.retryAfterMs).toBe(5_000);
  });
});

describe('isBatonError', () => {
  it('recognises an error made by a second copy of the package by its Symbol.for marker', () => {
    // What another bundle's copy of BatonError looks like: a different class, the same marker.
    class OtherCopyError extends Error {
      readonly code = 'REJECTED';
      constructor() {
        super('from the other copy');
        Object.defineProperty(this, Symbol.for('baton.error'), { value: true });
      }
    }
    const foreign = new OtherCopyError();
    expect(foreign).not.toBeInstanceOf(BatonError);
    expect(isBatonError(foreign)).toBe(true);
  });

  it('rejects look-alikes without the marker', () => {
    expect(isBatonError(new Error('x'))).toBe(false);
    expect(isBatonError({ code: 'REJECTED', message: 'x', details: {} })).toBe(false);
    expect(isBatonError({ [Symbol('baton.error')]: true })).toBe(false);
    expect(isBatonError({ [Symbol.for('baton.error')]: 'yes' })).toBe(false);
  });

  it('rejects values that are not objects', () => {
    for (const value of [null, undefined, 0, 'BatonError', true]) {
      expect(isBatonError(value)).toBe(false);
    }
  });
});

describe('toBatonError', () => {
  it('keeps a BatonError as it is', () => {
    const error = new TerminalError('no');
    expect(toBatonError(error)).toBe(error);
  });

  it('keeps an error from a second copy of the package as it is', () => {
    const foreign = Object.defineProperty(new Error('other copy'), Symbol.for('baton.error'), {
      value: true,
    });
    expect(toBatonError(foreign)).toBe(foreign);
  });

  it('wraps a plain Error as a retryable error that keeps it as the cause', () => {
    const thrown = new TypeError('undefined is not a function');
    const error = toBatonError(thrown);
    expect(error.code).toBe(ErrorCode.RETRYABLE);
    expect(error.terminal).toBe(false);
    expect(error.message).toContain('undefined is not a function');
    expect(error.cause).toBe(thrown);
  });

  it('wraps a thrown non-error value with its string form', () => {
    const error = toBatonError('boom');
    expect(error.code).toBe(ErrorCode.RETRYABLE);
    expect(error.message).toContain('boom');
    expect(error.cause).toBe('boom');
  });
});

describe('errorFromJSON', () => {
  it('rebuilds an error with the same code, message, details and terminality', () => {
    const original = new TerminalError('insufficient funds', { details: { balance: 3 } });
    const wire = JSON.parse(JSON.stringify(original)) as SerializedError;
    const rebuilt = errorFromJSON(wire);
    expect(isBatonError(rebuilt)).toBe(true);
    expect(rebuilt.code).toBe(original.code);
    expect(rebuilt.message).toBe(original.message);
    expect(rebuilt.details).toEqual(original.details);
    expect(rebuilt.terminal).toBe(original.terminal);
    expect(rebuilt.toJSON()).toEqual(original.toJSON());
  });

  it('round-trips every error code', () => {
    for (const code of Object.values(ErrorCode)) {
      const rebuilt = errorFromJSON(new BatonError(code, `a ${code}`).toJSON());
      expect(rebuilt.code).toBe(code);
      expect(rebuilt.terminal).toBe(TERMINAL.includes(code));
    }
  });
});

describe('withheld', () => {
  it('gives an outside caller the code of an internal error, not its text or details', () => {
    const logged: string[] = [];
    const internal = new BatonError(ErrorCode.UNAVAILABLE, 'SQS SendMessage failed: arn:aws:…', {
      details: { queue: 'internal-billing' },
      retryAfterMs: 1_000,
      internal: true,
    });
    const shown = withheld(internal, (text) => logged.push(text));
    expect(shown).toMatchObject({ code: ErrorCode.UNAVAILABLE, retryAfterMs: 1_000, details: {} });
    expect(shown.message).toBe(
      "a service the app uses failed; retry later (its text is in the server's log)",
    );
    expect(logged).toEqual(['SQS SendMessage failed: arn:aws:…']);
  });

  it('hides a surprise error’s text, and shows a Baton error as it is', () => {
    const surprise = toBatonError(new Error('ECONNREFUSED postgres://admin:pw@db'));
    expect(withheld(surprise).message).toBe("an unexpected error; its text is in the server's log");
    const meant = new BatonError(
      ErrorCode.UNAVAILABLE,
      'the query instance was dropped; subscribe again',
    );
    expect(withheld(meant)).toBe(meant);
  });
});
