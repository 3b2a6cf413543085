/**
 * The refusals of callers outside the app: what they say of a name the app does not have, that
 * they never repeat a caller's long string whole, and that an `authorize` lets a caller through
 * only by returning `true`.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { authorizeMessage, authorizeQuery, unknownQuery } from './access.ts';
import { actor } from './actor.ts';
import { ANONYMOUS, callerOf } from './caller.ts';
import { type BatonError, ErrorCode, invalidArgument, isBatonError } from './errors.ts';
import { query } from './query.ts';
import { Registry } from './registry.ts';
import { CLIP_CHARS } from './shared/clip.ts';

const Account = actor({
  name: 'account',
  state: z.object({ balance: z.number() }),
  initial: () => ({ balance: 0 }),
  handlers: {
    deposit: { public: true, payload: z.object({}), handle: () => undefined },
    audit: { payload: z.object({}), handle: () => undefined },
  },
});
const Ledger = actor({
  name: 'ledger',
  state: z.object({}),
  initial: () => ({}),
  handlers: { record: { payload: z.object({}), handle: () => undefined } },
});
const registry = new Registry([Account, Ledger]);
const HINT = 'trusted code says so';

function refusal(to: string, name: string): BatonError {
  try {
    authorizeMessage(registry, ANONYMOUS, to, name, {}, HINT);
  } catch (error) {
    if (isBatonError(error)) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('a refusal to a caller outside the app', () => {
  it('reads the same for an internal type and one the app does not register, saying what a type clients send to is', () => {
    const internal = refusal('ledger/main', 'record');
    const unknown = refusal('ledgr/main', 'record');
    expect(internal.message).toBe(
      'no actor type "ledger" takes messages from clients (types that do: account): one clients send to is among the app\'s actors, with a public handler; trusted code says so',
    );
    expect(unknown.message).toBe(
      'no actor type "ledgr" takes messages from clients (types that do: account): one clients send to is among the app\'s actors, with a public handler',
    );
  });

  it('gives the hint for trusted code only when the handler is an internal one, not a misspelt one', () => {
    expect(refusal('account/a', 'audit').message).toBe(
      'actor type "account" has no public handler "audit" (clients may send: deposit); trusted code says so',
    );
    expect(refusal('account/a', 'depost').message).toBe(
      'actor type "account" has no public handler "depost" (clients may send: deposit)',
    );
  });

  it('repeats at most CLIP_CHARS characters of a long name, in its message and its details', () => {
    const long = 'x'.repeat(100_000);
    const refusals = [
      refusal(`${long}/k`, 'record'),
      refusal('account/a', long),
      unknownQuery(long, ['balance']),
    ];
    for (const error of refusals) {
      expect(JSON.stringify(error.toJSON()).length).toBeLessThan(600);
      expect(error.message).toContain(`"${'x'.repeat(CLIP_CHARS)}…"`);
    }
    expect(refusals[1]!.details).toMatchObject({ name: `${'x'.repeat(CLIP_CHARS)}…` });
    expect(refusals[2]!.details).toMatchObject({ query: `${'x'.repeat(CLIP_CHARS)}…` });
  });
});

describe('an authorize that does not return true', () => {
  // What a check written in JavaScript, or cast, may return or do: each refuses.
  const verdicts: [string, () => unknown][] = [
    [
      'throws',
      () => {
        throw new Error('lookup failed');
      },
    ],
    ['returns undefined', () => undefined],
    ['returns a truthy string', () => 'yes'],
    ['returns 1', () => 1],
    ['returns a promise', () => Promise.resolve(true)],
  ];
  const alice = callerOf({ user: 'alice' });

  for (const [what, verdict] of verdicts) {
    it(`refuses a message when it ${what}`, () => {
      const Vault = actor({
        name: 'vault',
        state: z.object({}),
        initial: () => ({}),
        handlers: {
          open: {
            public: true,
            payload: z.object({}),
            authorize: verdict as never,
            handle: () => 1,
          },
        },
      });
      const vaults = new Registry([Vault]);
      expect(() => authorizeMessage(vaults, alice, 'vault/v', 'open', {})).toThrow(
        expect.objectContaining({
          code: ErrorCode.FORBIDDEN,
          message: 'not allowed: this caller may not send "open" to vault/v',
        }),
      );
    });

    it(`refuses a subscription when it ${what}`, () => {
      const secrets = query({
        name: 'secrets',
        public: true,
        args: z.object({}),
        authorize: verdict as never,
        handler: () => 1,
      });
      expect(() => authorizeQuery(secrets, alice, {})).toThrow(
        expect.objectContaining({ code: ErrorCode.FORBIDDEN }),
      );
    });
  }

  it('lets the caller through on true, and passes on a Baton error it throws on purpose', () => {
    const Vault = actor({
      name: 'vault',
      state: z.object({}),
      initial: () => ({}),
      handlers: {
        open: { public: true, payload: z.object({}), authorize: () => true, handle: () => 1 },
        shut: {
          public: true,
          payload: z.object({}),
          authorize: () => {
            throw invalidArgument('say which vault');
          },
          handle: () => 1,
        },
      },
    });
    const vaults = new Registry([Vault]);
    expect(authorizeMessage(vaults, alice, 'vault/v', 'open', {}).key).toBe('v');
    expect(() => authorizeMessage(vaults, alice, 'vault/v', 'shut', {})).toThrow(
      expect.objectContaining({ code: ErrorCode.INVALID_ARGUMENT, message: 'say which vault' }),
    );
  });
});
