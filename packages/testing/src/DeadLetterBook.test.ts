import { ErrorCode, type SerializedError } from '@baton/core';
import type { DeadLetter } from '@baton/core/adapter';
import { describe, expect, it } from 'vitest';
import { DeadLetterBook } from './DeadLetterBook.ts';

function letter(messageId: string, error: SerializedError): DeadLetter {
  return {
    actorId: 'fan/f',
    messageId,
    envelope: {
      id: messageId,
      to: 'fan/f',
      from: 'ingress',
      name: 'fanout',
      payload: {},
      seq: 1,
      sentAt: 0,
    },
    redrivable: true,
    error,
    attempts: 1,
    at: 0,
  };
}

/**
 * A DEAD_LETTERED whose cause is `cause` (with `details`), whole or cut to its gist as a small
 * item keeps it.
 */
function deadLettered(cause: ErrorCode, gist = false, details = {}): SerializedError {
  return {
    code: ErrorCode.DEAD_LETTERED,
    message: 'kept',
    details: gist
      ? { truncated: true, cause: { code: cause } }
      : { messageId: 'm', actorId: 'fan/f', cause: { code: cause, message: 'why', details } },
  };
}

describe("the simulation's book of dead letters", () => {
  it("redrives a letter that kept failing, not one kept for its code's fault (too large for a commit, state it cannot commit or too large for its record, a migration that threw), its error whole or a gist", () => {
    const book = new DeadLetterBook();
    const put = book.committed('fan/f', {
      put: [
        letter('large', deadLettered(ErrorCode.MESSAGE_TOO_LARGE)),
        letter('large-gist', deadLettered(ErrorCode.MESSAGE_TOO_LARGE, true)),
        letter('invalid', deadLettered(ErrorCode.INVALID_STATE)),
        letter('invalid-gist', deadLettered(ErrorCode.INVALID_STATE, true)),
        letter('state', deadLettered(ErrorCode.STATE_TOO_LARGE)),
        letter('state-gist', deadLettered(ErrorCode.STATE_TOO_LARGE, true)),
        letter('migration', deadLettered(ErrorCode.RETRYABLE, false, { migrateStep: 1 })),
        letter('retried', deadLettered(ErrorCode.RETRYABLE)),
      ],
      remove: [],
    });
    expect(put).toBe(8);
    expect(book.next()).toMatchObject({ actorId: 'fan/f', messageId: 'retried', redriven: false });
    book.next()!.redriven = true;
    expect(book.next()).toBeUndefined();
    // The run stops at the first state the code cannot commit: a test on state alone would
    // pass with the message lost.
    expect(book.fault).toMatchObject({ messageId: 'invalid', cause: ErrorCode.INVALID_STATE });
  });

  it('leaves a letter kept for state the code cannot commit, or a migration that threw, to the test when it expects dead letters (no redrives), or when old code kept it', () => {
    const expecting = new DeadLetterBook(0);
    expecting.committed('fan/f', {
      put: [letter('invalid', deadLettered(ErrorCode.INVALID_STATE))],
      remove: [],
    });
    expect(expecting.fault).toBeUndefined();

    const rolling = new DeadLetterBook();
    rolling.committed(
      'fan/f',
      { put: [letter('invalid', deadLettered(ErrorCode.INVALID_STATE))], remove: [] },
      true,
    );
    expect(rolling.fault).toBeUndefined();
    // A commit too large is left to the run's own store limits, which set it up.
    rolling.committed('fan/f', {
      put: [letter('large', deadLettered(ErrorCode.MESSAGE_TOO_LARGE))],
      remove: [],
    });
    expect(rolling.fault).toBeUndefined();
    rolling.committed('fan/f', {
      put: [letter('migration', deadLettered(ErrorCode.RETRYABLE, false, { migrateStep: 1 }))],
      remove: [],
    });
    expect(rolling.fault).toMatchObject({ messageId: 'migration', handler: 'fanout' });
  });

  it('stops redriving a message whose letter comes back after the last redrive allowed, but not one kept while old code runs in a rolling deploy', () => {
    const book = new DeadLetterBook(1);
    const unknown = deadLettered(ErrorCode.RETRYABLE, false, {
      cause: { code: ErrorCode.UNKNOWN_MESSAGE, message: 'no such message', details: {} },
    });
    const keep = () =>
      book.committed('fan/f', {
        put: [letter('failing', deadLettered(ErrorCode.RETRYABLE)), letter('new', unknown)],
        remove: [],
      });
    keep();
    book.redriving(book.next()!);
    book.redriving(book.next()!);
    expect(book.loop).toBeUndefined();
    keep();
    expect(book.loop).toEqual({
      actorId: 'fan/f',
      messageId: 'failing',
      handler: 'fanout',
      redrives: 1,
      error: 'kept',
      cause: ErrorCode.RETRYABLE,
    });
    expect(book.next()).toMatchObject({ messageId: 'new', redriven: false });
  });

  it('redrives none with 0 redrives allowed, and finds no loop', () => {
    const book = new DeadLetterBook(0);
    book.committed('fan/f', {
      put: [letter('failing', deadLettered(ErrorCode.RETRYABLE))],
      remove: [],
    });
    expect(book.next()).toBeUndefined();
    expect(book.loop).toBeUndefined();
  });
});
