/**
 * Whether an actor type an operator typed is one the app defines (`--app`): a misspelt type
 * reads as an actor with no record, a type with no actors, or a queue with no message to it. The
 * commands that take a type or an actor id refuse a type the app does not define, offering the
 * app's type nearest to it (`closestWord`, as a misspelt command gets) and what to do instead.
 */
import { BatonError, ErrorCode } from '@baton/core';
import { closestWord } from '../unknownCommand.ts';
import type { OpsContext } from './OpsContext.ts';

/** What a command that found nothing of a type no `--app` checked says of `--app`. */
export const APP_CHECKS_TYPE =
  "--app <entry> checks the type against the app's, and names the nearest";

/** The actor types of the app `--app` names; `undefined` without `--app`: nothing to check. */
export async function appTypes(ctx: OpsContext): Promise<readonly string[] | undefined> {
  if (!ctx.values.app) return undefined;
  const app = await ctx.app('checking the actor type');
  return app.actors.map((a) => a.name);
}

/** What a refusal of a type the app does not define says, in every command that refuses one. */
export interface TypeRefusal {
  /** `the app defines no actor type "…" (it has …)`. */
  readonly why: string;
  /** ` Did you mean <the command again, on the nearest type>?`, or '' when none is near. */
  readonly meant: string;
  /** The app's type nearest to the one typed, if one is near enough to be meant. */
  readonly near: string | undefined;
}

/**
 * The words of a refusal of `type`, which the app (its `types`) does not define: why, and the
 * command again (`again`) on the nearest type.
 *
 * @example
 * typeRefusal('ntoe', ['note'], (t) => `baton actors list ${t}`).meant;
 * // ' Did you mean baton actors list note?'
 */
export function typeRefusal(
  type: string,
  types: readonly string[],
  again: (near: string) => string,
): TypeRefusal {
  const near = closestWord(type, types);
  return {
    why: `the app defines no actor type "${type}" (it has ${types.join(', ')})`,
    meant: near === undefined ? '' : ` Did you mean ${again(near)}?`,
    near,
  };
}

/** What a command that takes a type says when it refuses one the app does not define. */
export interface KnownTypeUse {
  /** The command again, on type `near`. */
  readonly again: (near: string) => string;
  /** What follows the refusal's why: `, and the table holds no record of …`; '' for nothing. */
  readonly after: string;
  /** After the nearest type: what the command did not do, or how to go on all the same. */
  readonly instead?: string;
}

/**
 * Refuses (INVALID_ARGUMENT, before the command reads or changes anything) a type the app
 * `--app` names does not define; without `--app`, there is nothing to check it against.
 */
export async function knownType(ctx: OpsContext, type: string, use: KnownTypeUse): Promise<void> {
  const types = await appTypes(ctx);
  if (types === undefined || types.includes(type)) return;
  const { why, meant, near } = typeRefusal(type, types, use.again);
  const instead = use.instead ? ` ${use.instead}` : '';
  throw new BatonError(ErrorCode.INVALID_ARGUMENT, `${why}${use.after}.${meant}${instead}`, {
    details: { type, knownTypes: types, ...(near === undefined ? {} : { nearType: near }) },
  });
}

/**
 * For a command that found nothing of `type` among what it read, with no `--app` to check the
 * type against: the types of the actors it did read (`seen`, their ids), and the one nearest to
 * `type` as the command again; '' when it read none.
 *
 * @example
 * seenTypes('acount', ['account/alice', 'user/bob'], (t) => `baton … --type ${t}`);
 * // ' (those read are to actors of type account, user: did you mean baton … --type account?)'
 */
export function seenTypes(
  type: string,
  seen: Iterable<string>,
  again: (near: string) => string,
): string {
  const typeOf = (id: string) => (id.includes('/') ? id.slice(0, id.indexOf('/')) : '');
  const types = [...new Set([...seen].map(typeOf))].filter((t) => t !== '' && t !== type).sort();
  if (types.length === 0) return '';
  const near = closestWord(type, types);
  const meant = near === undefined ? '' : `: did you mean ${again(near)}?`;
  return ` (those read are to actors of type ${types.join(', ')}${meant})`;
}
