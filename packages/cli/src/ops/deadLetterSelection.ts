/**
 * The dead letters a `baton dead-letters` command works on: those its filters (`--type`, checked
 * against the app's types with `--app`, `--code`, `--since`) pick, or the one `<type/key>
 * <message id>` names, refused with why when it is not kept (parked at a paused actor, redriven,
 * purged).
 */
import { BatonError, ErrorCode } from '@baton/core';
import { type DeadLetter, ingressTarget } from '@baton/core/adapter';
import { failingNotDeadLettered, parkedLetterRefused } from '@baton/core/engine';
import { actorArg, noRecord } from './actors.ts';
import { causeOf, countByCode, errorChain } from './deadLetterCauses.ts';
import { since } from './format.ts';
import { APP_CHECKS_TYPE, type KnownTypeUse, knownType, seenTypes } from './knownType.ts';
import { lostItsQuotes, quotesLost } from './messageIds.ts';
import type { OpsContext } from './OpsContext.ts';
import type { FollowUp } from './target.ts';

/** A letter a bulk action leaves, and why. */
export type Left = { readonly actor: string; readonly messageId: string; readonly reason: string };

/** The `dead-letters` commands that take the filters. */
export type FilteredCommand = 'list' | 'redrive' | 'purge';

/**
 * The dead letters the filters (`--type`, `--code`, `--since`) pick, oldest first, for
 * `command`. With `--app`, a `--type` the app does not define is refused (the nearest offered)
 * before anything is read; without, a `--type` no letter kept has is named, with the types the
 * letters kept have and the nearest.
 */
export async function matching(ctx: OpsContext, command: FilteredCommand): Promise<DeadLetter[]> {
  const { indexReader } = await ctx.target();
  const { type, code, since: from } = ctx.values;
  const after = from === undefined ? undefined : since(from, ctx.io.now());
  if (from !== undefined && after === undefined) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `--since takes an ISO 8601 time or a duration back from now (30m, 2h, 7d), not "${from}"`,
    );
  }
  if (type?.includes('/')) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `--type takes an actor type (${type.slice(0, type.indexOf('/'))}), not an actor id: name one dead letter with <type/key> <message id>`,
    );
  }
  const again = (near: string) =>
    command === 'list'
      ? ctx.followUp`dead-letters list --type ${near}`
      : ctx.values['dry-run']
        ? ctx.followUp`dead-letters ${command} --all --type ${near} --dry-run`
        : ctx.followUp`dead-letters ${command} --all --type ${near}`;
  if (type !== undefined) await knownType(ctx, type, typeUse(command, again));
  const kept = (await indexReader.listDeadLetters()).filter((l) => l.parked === undefined);
  const picked = kept.filter(
    (l) =>
      (type === undefined || l.actorId.startsWith(`${type}/`)) &&
      (code === undefined || errorChain(l).some((error) => error.code === code)) &&
      (after === undefined || l.at >= after),
  );
  if (picked.length === 0 && kept.length > 0) {
    // A filter that matches nothing is as likely a typo (UNKNOWN_MESAGE): say what there is.
    const codes = countByCode(kept.map((l) => causeOf(l).code));
    // A --type no letter kept has, unchecked (no --app): the types they have, and the nearest.
    const seen =
      type === undefined || ctx.values.app || kept.some((l) => l.actorId.startsWith(`${type}/`))
        ? ''
        : seenTypes(
            type,
            kept.map((l) => l.actorId),
            again,
          );
    ctx.note(
      `none of the ${kept.length} dead letter(s) kept matches the filters; by code: ${codes}${seen}`,
    );
  }
  return picked;
}

/** How a `command` refuses a `--type` the app `--app` names does not define. */
function typeUse(command: FilteredCommand, again: (near: string) => string): KnownTypeUse {
  if (command === 'list') {
    return {
      again,
      after: '',
      instead:
        'Nothing was read. To list the dead letters of a type another version of the app defined, leave out --app',
    };
  }
  const done = command === 'redrive' ? 'redriven' : 'purged';
  return {
    again,
    after: `. Nothing was ${done}`,
    instead: `To ${command} the dead letters of a type another version of the app defined, leave out --app`,
  };
}

/**
 * What an answer that found no dead letter adds when `--type` was not checked against the app
 * (no `--app`): a misspelt type picks nothing, as a type with no letter does. '' otherwise.
 */
export function typeUnchecked(ctx: OpsContext): string {
  const { type, app } = ctx.values;
  return type === undefined || app
    ? ''
    : ` (--type ${type}: an actor type is the name its actor() definition gives; ${APP_CHECKS_TYPE})`;
}

/**
 * The one dead letter `<type/key> <message id>` names; for `show`, a message parked at a paused
 * actor too (a redrive or purge of one is refused, saying it is parked). The message failing at
 * the head of the actor's inbox is refused, saying how to end it.
 */
export async function named(
  ctx: OpsContext,
  action: 'show' | 'redrive' | 'purge',
): Promise<DeadLetter> {
  const actorId = actorArg(ctx, 0);
  const messageId = ctx.arg(1, 'message id');
  const { store } = await ctx.target();
  const letter = await store.readDeadLetter(actorId, messageId);
  if (!letter && lostItsQuotes(messageId)) throw quotesLost(messageId, { actorId });
  if (letter?.parked !== undefined) {
    if (action === 'show') return letter;
    throw parkedLetterRefused(letter, action, ctx.followUp);
  }
  if (!letter) {
    const record = await store.load(actorId);
    if (!record) throw noRecord(actorId, `keeps no dead letter ${messageId}`, ctx.followUp);
    throw (
      failingNotDeadLettered(record, messageId, ctx.followUp) ??
      noLetter(actorId, messageId, letter, ctx.followUp)
    );
  }
  if (letter.applied) throw noLetter(actorId, messageId, letter, ctx.followUp);
  return letter;
}

/**
 * The refusal of a letter not kept, with how to tell why: a redrive applied it, or a purge
 * forgot it (or it was never dead-lettered). A client's message keeps its outcome, which says
 * which; a message between actors keeps none, but the proof an ended life's leaves.
 */
function noLetter(
  actorId: string,
  messageId: string,
  proof: DeadLetter | undefined,
  follow: FollowUp,
): BatonError {
  const details = { details: { actorId, messageId } };
  if (proof?.applied) {
    return new BatonError(
      ErrorCode.NOT_FOUND,
      `${actorId} keeps no dead letter ${messageId}: it was redriven, and applied at ${new Date(proof.applied.at).toISOString()}; nothing is left to redrive or purge`,
      details,
    );
  }
  const which =
    ingressTarget(messageId) === undefined
      ? `a message between actors keeps no outcome to tell which: ${follow`actors get ${actorId}`} shows the actor's state`
      : `${follow`outcome ${messageId}`} tells which: the outcome a redrive applied, or DEAD_LETTERED with its letter purged`;
  return new BatonError(
    ErrorCode.NOT_FOUND,
    `${actorId} keeps no dead letter ${messageId}: it was redriven or purged already, or never dead-lettered; ${which}; ${follow`dead-letters list`} shows the letters kept`,
    details,
  );
}

/** The dead letters a bulk action works on: one named, or `--all` matching the filters. */
export async function targets(ctx: OpsContext, verb: 'redrive' | 'purge'): Promise<DeadLetter[]> {
  if (ctx.values.all) {
    if (ctx.args.length > 0) {
      throw new BatonError(
        ErrorCode.INVALID_ARGUMENT,
        `${verb} takes <type/key> <message id>, or --all with filters, not both`,
      );
    }
    return matching(ctx, verb);
  }
  if (ctx.args.length < 2) throw oneOrAll(ctx, verb);
  return [await named(ctx, verb)];
}

/** The refusal of a redrive or purge that names no letter whole, nor `--all`: both forms. */
function oneOrAll(ctx: OpsContext, verb: 'redrive' | 'purge'): BatonError {
  const [actor] = ctx.args;
  const missing =
    actor === undefined
      ? 'missing <type/key> <message id>, or --all'
      : `missing the <message id> of ${actor}'s dead letter, after its <type/key>`;
  return new BatonError(
    ErrorCode.INVALID_ARGUMENT,
    `${missing}: dead-letters ${verb} takes <type/key> <message id> (one dead letter, as ${ctx.followUp`dead-letters list`} prints them), or --all with filters (--type, --code, --since) for every one that matches — ${ctx.followUp`dead-letters ${verb} --all --dry-run`} shows which first; nothing was done`,
  );
}
