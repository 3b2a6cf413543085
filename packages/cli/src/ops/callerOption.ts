/**
 * `baton outcome <type/key> <key> --caller <caller>`: the caller whose scope the key is read in.
 * An idempotency key names a message per caller (its id carries a digest of the caller), so a
 * key a client sent is not the message the CLI's own key of that name is. The option only makes
 * the id the operator could read by message id already, with the same access to the table: no
 * client is given any, and a client's own reads stay scoped to it.
 */
import { BatonError, type Caller, callerOf, ErrorCode } from '@baton/core';
import type { OpsContext } from './OpsContext.ts';

/** How `--caller` is spelt, for its usage and its errors. */
export const CALLER_FORMS =
  'anonymous (a client with no identity), iam:<principal ARN> (a SigV4-signed HTTP request), or user:<identity JSON> (the identity the app\'s auth returned, e.g. user:\'{"userId":"alice"}\')';

/**
 * The caller `--caller` names; undefined when not given (the CLI's own scope).
 *
 * @example
 * callerOption('iam:arn:aws:iam::123456789012:user/ops');
 * // { kind: 'iam', principal: 'arn:aws:iam::123456789012:user/ops' }
 */
export function callerOption(value: string | undefined): Caller | undefined {
  if (value === undefined) return undefined;
  if (value === 'anonymous') return { kind: 'anonymous' };
  const colon = value.indexOf(':');
  const [kind, rest] = colon < 0 ? [value, ''] : [value.slice(0, colon), value.slice(colon + 1)];
  if (kind === 'iam' && rest !== '') return { kind: 'iam', principal: rest };
  if (kind === 'user' && rest !== '') {
    try {
      return callerOf(JSON.parse(rest) as unknown);
    } catch {
      throw new BatonError(
        ErrorCode.INVALID_ARGUMENT,
        `--caller user: takes the identity as JSON, exactly as the app's auth returned it (quoted for the shell: user:'{"userId":"alice"}'), not ${rest}`,
        { details: { caller: value } },
      );
    }
  }
  throw new BatonError(
    ErrorCode.INVALID_ARGUMENT,
    `--caller takes ${CALLER_FORMS}, not "${value}"`,
    { details: { caller: value } },
  );
}

/**
 * What `outcome` says around its "not processed yet" of a message it found no outcome of, by
 * the form it was given: by key in the CLI's own scope, first that a key names a message per
 * caller, and how to read a client's (`--caller`, or its message id), so that a client's message
 * processed long ago is not read as never processed; by key with `--caller`, that another caller
 * may have sent it; by message id, nothing.
 */
export function keyScope(ctx: OpsContext): { readonly lead: string; readonly tail: string } {
  const [to, key] = ctx.args;
  if (key === undefined || to === undefined) return { lead: '', tail: '' };
  if (ctx.values.caller !== undefined) {
    return {
      lead: ' (the key as the caller --caller names sent it)',
      tail: ', or another caller than --caller names sent it (a key names a message per caller)',
    };
  }
  return {
    lead: ` under the CLI's own caller scope. A key names a message per caller: by key, this reads only a message the CLI sent (baton send, baton ask), and a key a client sent names another message — give that client's caller, ${ctx.followUp`outcome ${to} ${key} --caller <caller>`} (<caller>: ${CALLER_FORMS}), or the message id its send was answered with. Sent by the CLI`,
    tail: '',
  };
}
