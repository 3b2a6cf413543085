/**
 * `baton dead-letters redrive | purge`: the actions on one dead letter named, or on `--all`
 * that match the filters, with `--dry-run` to see which first. A bulk redrive leaves, and lists
 * apart, the letters it must not redrive (a bulk purge, the timeouts of asks it must not purge,
 * and the letters whose last redrive is not applied yet); each action asks first and writes the
 * audit line. What is a redrive's alone is in deadLetterRedrive.ts, a purge's in
 * deadLetterPurge.ts.
 */
import type { DeadLetter } from '@baton/core/adapter';
import { purgeDeadLetter, redriveDeadLetter, shellQuote } from '@baton/core/engine';
import {
  type PendingRedrive,
  purgedReplies,
  purgeLeftLines,
  purgeNoneActed,
  purgeSorted,
  purgeWarning,
  repliesLine,
} from './deadLetterPurge.ts';
import {
  forcedLine,
  pausedOf,
  redriveLeftLines,
  redriveNoneActed,
  redrivenLine,
  redriveSorted,
  voidedOf,
  wouldApplyNothing,
} from './deadLetterRedrive.ts';
import { type Left, targets, typeUnchecked } from './deadLetterSelection.ts';
import { table } from './format.ts';
import { recordRedrive, writerOf } from './letterTrails.ts';
import { pasteable } from './messageIds.ts';
import type { OpsContext } from './OpsContext.ts';
import { eachInTurn } from './partway.ts';

/**
 * `baton dead-letters redrive <type/key> <message id> | --all [filters] [--dry-run] [--force]`:
 * each goes back to its actor's inbox and is applied exactly once, however often it is
 * redriven. A letter whose sender was answered DEAD_LETTERED (an actor's or a client's ask), or
 * one kept as too old to tell whether it was applied, is refused, or left by `--all`, unless
 * `--force`.
 */
export async function deadLettersRedrive(ctx: OpsContext): Promise<void> {
  const force = ctx.values.force === true;
  await bulk(ctx, 'redrive', async (letter) => {
    const { store } = await ctx.target();
    const queue = await ctx.inboxOf(letter.actorId);
    await redriveDeadLetter(store, queue, letter.actorId, letter.messageId, {
      force,
      followUp: ctx.followUp,
      clock: { now: () => ctx.io.now() },
    });
    // Counted beside the letter, which the engine writes anew if the redrive fails again.
    await recordRedrive(await writerOf(ctx), letter);
  });
}

/**
 * `baton dead-letters purge <type/key> <message id> | --all [filters] [--dry-run]
 * [--include-pending] --yes`. The letter of an ask's timeout, which holds its asker's
 * continuation, is refused by the engine (named) or left (`--all`); the letter of an ask's reply
 * goes, and the ask then times out. `--all` leaves a letter whose last redrive is not applied
 * yet, unless `--include-pending`; named, the question says its redrive then applies nothing.
 */
export async function deadLettersPurge(ctx: OpsContext): Promise<void> {
  await bulk(ctx, 'purge', async (letter) => {
    const { store } = await ctx.target();
    const by = await ctx.operator();
    await purgeDeadLetter(store, letter.actorId, letter.messageId, { by, followUp: ctx.followUp });
  });
}

/**
 * The letters an action takes, and those it leaves (`left`), with why (deadLetterRedrive.ts,
 * deadLetterPurge.ts); of a purge, how many it takes are asks' replies (`replies`) and which
 * have a redrive not applied yet (`pending`).
 */
async function sorted(
  ctx: OpsContext,
  verb: 'redrive' | 'purge',
  letters: DeadLetter[],
): Promise<{ acted: DeadLetter[]; left: Left[]; replies: number; pending: PendingRedrive[] }> {
  if (verb === 'purge') return purgeSorted(ctx, letters);
  return { ...(await redriveSorted(ctx, letters)), replies: 0, pending: [] };
}

/** What a bulk action that leaves every letter that matches says. */
const noneActed = (verb: 'redrive' | 'purge', left: readonly Left[]) =>
  verb === 'purge' ? purgeNoneActed(left) : redriveNoneActed(left);

/** What a bulk action says of the letters it left, after what it did. */
const leftLines = (ctx: OpsContext, left: readonly Left[]) =>
  purgeLeftLines(left, ctx.followUp) + redriveLeftLines(left, ctx.followUp);

async function bulk(
  ctx: OpsContext,
  verb: 'redrive' | 'purge',
  act: (letter: DeadLetter) => Promise<void>,
): Promise<void> {
  const picked = await targets(ctx, verb);
  const { acted: letters, left, replies, pending } = await sorted(ctx, verb, picked);
  const listed = letters.map((l) => ({ actor: l.actorId, messageId: l.messageId }));
  const leftOut = left.length === 0 ? {} : { left };
  // The fires whose timer is gone: redriven, they apply nothing (said, not promised applied).
  const voided = verb === 'redrive' ? await voidedOf(ctx, letters) : [];
  const nothing = voided.length === 0 ? {} : { appliesNothing: voided };
  // None picked at all: a --type no --app checked may be a typo.
  const noMatch = `no dead letter matches${picked.length === 0 ? typeUnchecked(ctx) : ''}`;
  if (ctx.values['dry-run']) {
    ctx.print(
      { dryRun: true, [verb]: listed, ...leftOut, ...nothing },
      () =>
        (letters.length === 0
          ? `would ${verb} nothing: ${left.length === 0 ? noMatch : noneActed(verb, left)}`
          : `would ${verb} ${letters.length} dead letter(s):\n${table(listed.map(pasteable), ['actor', 'messageId'])}${replies === 0 ? '' : `\n${repliesLine(replies)}`}${voided.length === 0 ? '' : `\n${wouldApplyNothing(voided, ctx.followUp)}`}`) +
        leftLines(ctx, left),
    );
    return;
  }
  // The named letter of an ask's timeout: the engine refuses its purge, saying why, and changes
  // nothing, so there is nothing to ask first. (Were its timeout let go between the two reads,
  // the engine would purge it as asked by name: audited and said as any purge.)
  if (verb === 'purge' && !ctx.values.all && left.length === 1) {
    const [letter] = picked;
    await act(letter!);
    await ctx.audit('dead-letters purge', { actor: letter!.actorId, messageId: letter!.messageId });
    ctx.print(
      { purge: [{ actor: letter!.actorId, messageId: letter!.messageId }] },
      () => 'purged 1 dead letter(s)',
    );
    return;
  }
  if (letters.length === 0) {
    ctx.print(
      { [verb]: [], ...leftOut },
      () =>
        (left.length === 0 ? `${noMatch}: nothing to ${verb}` : noneActed(verb, left)) +
        leftLines(ctx, left),
    );
    return;
  }
  const what =
    letters.length === 1
      ? `dead letter ${letters[0]!.messageId}`
      : `${letters.length} dead letters`;
  const warning =
    verb === 'purge'
      ? `${purgeWarning(ctx.followUp, letters.length, pending)}${replies === 0 ? '' : `. ${repliesLine(replies)}`}`
      : await forcedLine(ctx, letters);
  await ctx.confirm(`${verb} ${what}?${warning === '' ? '' : ` ${warning}`}`);
  // Confirmed by --yes, the question was never shown: its warning is, before the action.
  if (ctx.values.yes && warning !== '') {
    ctx.note(`${verb === 'purge' ? 'purging' : 'redriving'} ${what}. ${warning}`);
  }
  const done = await eachInTurn(
    letters,
    async (letter) => {
      await act(letter);
      const one = { actor: letter.actorId, messageId: letter.messageId };
      await ctx.audit(`dead-letters ${verb}`, one);
      return one;
    },
    {
      did: verb === 'redrive' ? 'redrove' : 'purged',
      items: 'dead letters',
      name: (letter) => `${letter.actorId} ${shellQuote(letter.messageId)}`,
      json: (letter) => ({ actor: letter.actorId, messageId: letter.messageId }),
      again:
        verb === 'redrive'
          ? 'Once that is fixed, run it again: a letter it redrove is sent again, and still applied once'
          : 'Once that is fixed, run it again: those it purged are gone',
    },
  );
  // A paused actor parks what is redriven to it, as any message: applied once it is resumed.
  const paused = verb === 'redrive' ? await pausedOf(ctx, done) : [];
  ctx.print(
    { [verb]: done, ...leftOut, ...(paused.length > 0 ? { parkedAt: paused } : {}), ...nothing },
    () =>
      (verb === 'redrive'
        ? redrivenLine(done, paused, ctx.followUp, voided)
        : `purged ${done.length} dead letter(s)${purgedReplies(replies)}`) + leftLines(ctx, left),
  );
}
