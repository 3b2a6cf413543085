import { describe, expect, it } from 'vitest';
import type { Envelope } from '../adapter/envelope.ts';
import { BatonError, ErrorCode } from '../errors.ts';
import {
  commitTooLarge,
  deadLettered,
  leftNotJson,
  outlivedItsProof,
  replyTooLarge,
  stateBreaksSchema,
  stateTooLarge,
  waitsForNewerCode,
} from './turnErrors.ts';

const LIMITS = { maxTransactionItems: 100, maxTransactionBytes: 4_000_000, maxItemBytes: 400_000 };
const envelope: Envelope = {
  id: 'ingress:k1',
  from: 'ingress',
  seq: 0,
  to: 'account/alice',
  name: 'deposit',
  payload: { amount: 1 },
  sentAt: 0,
};

describe('the errors a turn gives a message it cannot apply', () => {
  it('say what was wrong, with the numbers, and what to do', () => {
    const cases: [BatonError, string, RegExp[], Record<string, unknown>][] = [
      [
        stateTooLarge('account/alice', LIMITS),
        ErrorCode.STATE_TOO_LARGE,
        [
          /state of account\/alice would grow past the backend's 400000-byte record limit/,
          /kept as a dead letter: keep large data elsewhere or split the actor, deploy, then redrive it$/,
        ],
        { actorId: 'account/alice', limit: 400_000 },
      ],
      [
        leftNotJson('account/alice', 'deposit', 'state', new Error('cycle')),
        ErrorCode.INVALID_STATE,
        [
          /handler "deposit" of account\/alice left state that is not JSON \(cycle\)/,
          /kept as a dead letter: keep state to plain JSON values/,
          /deploy, then redrive it$/,
        ],
        { actorId: 'account/alice', handler: 'deposit', state: 'not JSON' },
      ],
      [
        leftNotJson('account/alice', 'deposit', 'reply', 'a BigInt'),
        ErrorCode.INVALID_STATE,
        [/returned a reply that is not JSON \(a BigInt\)/, /keep replies to plain JSON values/],
        { actorId: 'account/alice', handler: 'deposit', reply: 'not JSON' },
      ],
      [
        stateBreaksSchema('account/alice', 'deposit', [
          { path: ['balance'], message: 'expected an integer' },
          { path: ['owners', 0], message: 'too short' },
        ]),
        ErrorCode.INVALID_STATE,
        [
          /^handler "deposit" of account\/alice left state its schema refuses/,
          /\(state\.balance: expected an integer; state\.owners\.0: too short\)/,
          /kept as a dead letter: fix the handler or the schema, deploy, then redrive it$/,
        ],
        {
          actorId: 'account/alice',
          handler: 'deposit',
          issues: [
            { path: 'state.balance', message: 'expected an integer' },
            { path: 'state.owners.0', message: 'too short' },
          ],
        },
      ],
      [
        stateBreaksSchema('account/alice', 'deposit', [
          { path: ['limit'], message: 'Invalid input: expected number, received undefined' },
        ]),
        ErrorCode.INVALID_STATE,
        [
          // The likely cause leads: a field the schema gained since the record was written.
          /^state of account\/alice lacks a field its schema requires \(state\.limit: Invalid input: expected number, received undefined\) as handler "deposit" left it: most often one the schema gained since the record was written \(a \.default\(\) is not filled in on load\), else one the handler removed; /,
          /the state is unchanged and the message was kept as a dead letter: raise the actor's version with a migrate step that adds it \(or fix the handler\), deploy, then redrive it$/,
        ],
        {
          actorId: 'account/alice',
          handler: 'deposit',
          issues: [
            { path: 'state.limit', message: 'Invalid input: expected number, received undefined' },
          ],
        },
      ],
      [
        // A field missing beside another issue: the handler's fault leads.
        stateBreaksSchema('account/alice', 'deposit', [
          { path: ['balance'], message: 'expected an integer' },
          { path: ['limit'], message: 'Invalid input: expected number, received undefined' },
        ]),
        ErrorCode.INVALID_STATE,
        [
          /^handler "deposit" of account\/alice left state its schema refuses \(state\.balance: expected an integer; state\.limit: /,
          /kept as a dead letter: fix the handler or the schema, deploy, then redrive it$/,
        ],
        {
          actorId: 'account/alice',
          handler: 'deposit',
          issues: [
            { path: 'state.balance', message: 'expected an integer' },
            { path: 'state.limit', message: 'Invalid input: expected number, received undefined' },
          ],
        },
      ],
      [
        replyTooLarge(envelope, 391_808),
        ErrorCode.MESSAGE_TOO_LARGE,
        [/reply to ingress:k1 is larger than the 391808 bytes/, /reply with less/],
        { message: 'ingress:k1', limit: 391_808 },
      ],
      [
        commitTooLarge(envelope, LIMITS),
        ErrorCode.MESSAGE_TOO_LARGE,
        [
          /ingress:k1 produces more than one commit can hold \(100 items, 4000000 bytes\)/,
          /send fewer/,
        ],
        { message: 'ingress:k1', ...LIMITS },
      ],
    ];
    for (const [error, code, messages, details] of cases) {
      expect(error.code).toBe(code);
      for (const message of messages) expect(error.message).toMatch(message);
      expect(error.details).toEqual(details);
    }
  });

  it('dead-letter a message naming its attempts and its last error', () => {
    const last = new BatonError(ErrorCode.RETRYABLE, 'boom');
    const error = deadLettered(envelope, 3, last);
    expect(error.code).toBe(ErrorCode.DEAD_LETTERED);
    expect(error.message).toMatch(/ingress:k1 to account\/alice failed 3 times \(last: boom\)/);
    expect(error.message).toMatch(/fix the cause, then redrive it/);
    expect(error.details).toEqual({
      messageId: 'ingress:k1',
      actorId: 'account/alice',
      attempts: 3,
      cause: last.toJSON(),
    });
  });

  it('make a message unknown to this code wait for code that knows it, and leave other errors as they are', () => {
    for (const code of [
      ErrorCode.UNKNOWN_ACTOR,
      ErrorCode.UNKNOWN_MESSAGE,
      ErrorCode.INVALID_PAYLOAD,
    ]) {
      const cause = new BatonError(code, 'no such thing');
      const error = waitsForNewerCode(envelope, cause);
      expect(error.code).toBe(ErrorCode.RETRYABLE);
      expect(error.message).toMatch(
        /ingress:k1 to account\/alice is unknown to the code running here \(no such thing\)/,
      );
      expect(error.message).toMatch(
        /another release most likely sent it: it waits \(then a dead letter\) for code that knows it, then redrive it, or purge it if none will$/,
      );
      expect(error.details).toEqual({
        messageId: 'ingress:k1',
        actorId: 'account/alice',
        cause: cause.toJSON(),
      });
      expect(error.cause).toBe(cause);
    }
    const rejected = new BatonError(ErrorCode.REJECTED, 'no');
    expect(waitsForNewerCode(envelope, rejected)).toBe(rejected);
  });
});

describe('a copy older than the proof that it was applied', () => {
  const DAY = 24 * 60 * 60 * 1000;
  const retention = { idempotencyRetentionMs: 14 * DAY, markRetentionMs: 28 * DAY };
  const fromActor: Envelope = { ...envelope, id: 'account/bob:l1.3', from: 'account/bob', seq: 3 };

  it('is an ingress message sent a day less than its outcome is kept ago, or longer', () => {
    const edge = 13 * DAY;
    expect(outlivedItsProof(envelope, edge - 1, retention, false)).toBeUndefined();
    const error = outlivedItsProof(envelope, edge, retention, false);
    expect(error?.code).toBe(ErrorCode.DEAD_LETTERED);
    expect(error?.message).toMatch(
      /^ingress message ingress:k1 to account\/alice was sent 13 days ago, about as long as its outcome is kept \(14 days\)/,
    );
    expect(error?.details).toMatchObject({ sentAt: 0, retentionMs: 14 * DAY });
  });

  it('is an actor’s message from a sender the receiver holds no mark for, past the mark retention less a day', () => {
    const edge = 27 * DAY;
    expect(outlivedItsProof(fromActor, edge - 1, retention, false)).toBeUndefined();
    expect(outlivedItsProof(fromActor, edge + DAY / 2, retention, false)?.message).toMatch(
      /^message account\/bob:l1\.3 to account\/alice was sent 27\.5 days ago, about as long as its sender's mark is kept \(28 days\)/,
    );
  });

  it('is never a message its mark tells, a timer’s fire or an engine redrive', () => {
    const late = 400 * DAY;
    expect(outlivedItsProof(fromActor, late, retention, true)).toBeUndefined();
    expect(
      outlivedItsProof({ ...fromActor, from: 'timer' }, late, retention, false),
    ).toBeUndefined();
    expect(outlivedItsProof({ ...envelope, redrive: 1 }, late, retention, false)).toBeUndefined();
  });
});
