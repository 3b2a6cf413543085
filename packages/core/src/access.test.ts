/**
 * The refusals of callers outside the app: what they say of a name the app does not have, and
 * that they never repeat a caller's long string whole.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { authorizeMessage, unknownQuery } from './access.ts';
import { actor } from './actor.ts';
import { ANONYMOUS } from './caller.ts';
import { type BatonError, isBatonError } from './errors.ts';
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
