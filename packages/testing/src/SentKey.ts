import type { SerializedError } from '@baton/core';

/**
 * The idempotency key `sim.send` returns: a string that also carries, in its type only, the reply
 * of the message it keys, so that `sim.outcome(key)` gives that reply typed.
 *
 * @example
 * const key = sim.send(Account.ref('alice'), 'withdraw', { amount: 5 }); // SentKey<number>
 * const outcome = await sim.outcome(key); // SentOutcome<number> | undefined
 */
export type SentKey<Reply = unknown> = string & { readonly __reply?: Reply };

/**
 * A message's stored outcome as `sim.outcome` reads it: the handler's reply (its JSON, as
 * `ReplyOf` types it), or its error.
 *
 * @example
 * if (outcome?.ok) expect(outcome.value).toBe(95);
 */
export type SentOutcome<Reply = unknown> =
  | { readonly ok: true; readonly value: Reply }
  | { readonly ok: false; readonly error: SerializedError };
