/**
 * `baton dead-letters redrive | purge`: the actions on one dead letter named, or on `--all`
 * that match the filters, with `--dry-run` to see which first. A bulk redrive leaves, and lists
 * apart, the letters it must not redrive; each action asks first and writes the audit line.
 */
import type { DeadLetter } from '@baton/core/adapter';
import { answeredSender, purgeDeadLetter, redriveDeadLetter } from '@baton/core/engine';
import { targets } from './deadLetterSelection.ts';
import { table } from './format.ts';
import { pasteable } from './messageIds.ts';
import type { OpsContext } from './OpsContext.ts';
import type { FollowUp } from './target.ts';

/**
 * What a purge asks about. A redrive sent but not yet applied by its actor's turn leaves its
 * letter kept (and listed) as before: Baton records no redrive in flight, so no command can tell
 * one, and a purge meanwhile makes it apply nothing.
 */
const purgeWarning = (follow: FollowUp) =>
  `They are forgotten, never applied. A redrive of one sent and not yet applied by its actor's turn is cancelled too (it then applies nothing): Baton keeps no record of a redrive in flight, and a letter stays listed until its redrive is applied, so if you redrove one, wait for it to leave ${follow`dead-letters list`} rather than purge it`;

/**
 * `baton dead-letters redrive <type/key> <message id> | --all [filters] [--dry-run] [--force]`:
 * each goes back to its actor's inbox and is applied exactly once, however often it is
 * redriven. A letter whose sender was answered DEAD_LETTERED (an actor's or a client's ask) is
 * refused, or left by `--all`, unless `--force`.
 */
export async function deadLettersRedrive(ctx: OpsContext): Promise<void> {
  const force = ctx.values.force === true;
  await bulk(ctx, 'redrive', async (letter) => {
    const { store } = await ctx.target();
    const queue = await ctx.inbox();
    await redriveDeadLetter(store, queue, letter.actorId, letter.messageId, {
      force,
      followUp: ctx.followUp,
    });
  });
}

/** `baton dead-letters purge <type/key> <message id> | --all [filters] [--dry-run] --yes`. */
export async function deadLettersPurge(ctx: OpsContext): Promise<void> {
  await bulk(ctx, 'purge', async (letter) => {
    const { store } = await ctx.target();
    const by = await ctx.operator();
    await purgeDeadLetter(store, letter.actorId, letter.messageId, { by, followUp: ctx.followUp });
  });
}

/** A letter a bulk redrive leaves, and why. */
type Left = { readonly actor: string; readonly messageId: string; readonly reason: string };

/**
 * What a bulk redrive can redrive: a letter kept without its payload (too large) cannot be, and
 * one whose sender was answered DEAD_LETTERED is not without `--force`, so `--all` leaves them
 * and lists them apart (`left`). A named one is refused, saying why.
 */
function redrivable(
  ctx: OpsContext,
  verb: 'redrive' | 'purge',
  letters: DeadLetter[],
): { acted: DeadLetter[]; left: Left[] } {
  if (verb !== 'redrive' || !ctx.values.all) return { acted: letters, left: [] };
  const force = ctx.values.force === true;
  const acted: DeadLetter[] = [];
  const left: Left[] = [];
  for (const l of letters) {
    const why = !l.redrivable
      ? CUT
      : !force && answeredSender(l) !== undefined
        ? ANSWERED
        : undefined;
    if (why === undefined) acted.push(l);
    else left.push({ actor: l.actorId, messageId: l.messageId, reason: why });
  }
  return { acted, left };
}

/** Why a bulk redrive leaves a letter. */
const CUT = 'kept without its payload (too large to keep whole): send it again from its source';
const ANSWERED =
  "its sender was answered DEAD_LETTERED when it was kept (an actor's or a client's ask): purge it, or redrive it with --force if it must be applied still";

/** What a bulk redrive that leaves every letter that matches says. */
function noneRedrivable(left: readonly Left[]): string {
  const answered = left.some((l) => l.reason === ANSWERED);
  return `no dead letter that matches can be redriven${answered ? ' without --force' : ''}`;
}

/**
 * What a bulk redrive says of the letters it left, after what it did: each reason apart. A letter
 * whose sender was answered is named with the commands for it, one per letter: `purge --all` with
 * the same filters would purge the letters the redrive took too (cancelling their redrive).
 */
function leftLines(left: readonly Left[], follow: FollowUp): string {
  const cut = left.filter((l) => l.reason === CUT);
  const answered = left.filter((l) => l.reason === ANSWERED);
  let lines = '';
  if (answered.length > 0) {
    lines +=
      `\nleft ${answered.length} dead letter(s) whose sender was answered DEAD_LETTERED when they were kept (an actor's ask, whose asker went on as for a failed call — a workflow failed, or its saga undid the call —, or a client's ask, which was told so): applied now, they would change their actor after that answer. For each, purge it if it must not run, or redrive it with --force if it must be applied still:\n` +
      answered
        .map(
          (l) =>
            `  ${follow`dead-letters purge ${l.actor} ${l.messageId}`}\n  ${follow`dead-letters redrive ${l.actor} ${l.messageId} --force`}`,
        )
        .join('\n');
  }
  if (cut.length > 0) {
    lines +=
      `\nleft ${cut.length} dead letter(s) kept without their payload (too large to keep whole), which cannot be redriven: send their messages again from their source, then purge them:\n` +
      table(cut.map(pasteable), ['actor', 'messageId']);
  }
  return lines;
}

async function bulk(
  ctx: OpsContext,
  verb: 'redrive' | 'purge',
  act: (letter: DeadLetter) => Promise<void>,
): Promise<void> {
  const { acted: letters, left } = redrivable(ctx, verb, await targets(ctx, verb));
  const listed = letters.map((l) => ({ actor: l.actorId, messageId: l.messageId }));
  const leftOut = left.length === 0 ? {} : { left };
  if (ctx.values['dry-run']) {
    ctx.print(
      { dryRun: true, [verb]: listed, ...leftOut },
      () =>
        (letters.length === 0
          ? `would ${verb} nothing: ${left.length === 0 ? 'no dead letter matches' : noneRedrivable(left)}`
          : `would ${verb} ${letters.length} dead letter(s):\n${table(listed.map(pasteable), ['actor', 'messageId'])}`) +
        leftLines(left, ctx.followUp),
    );
    return;
  }
  if (letters.length === 0) {
    ctx.print(
      { [verb]: [], ...leftOut },
      () =>
        (left.length === 0 ? `no dead letter matches: nothing to ${verb}` : noneRedrivable(left)) +
        leftLines(left, ctx.followUp),
    );
    return;
  }
  const what =
    letters.length === 1
      ? `dead letter ${letters[0]!.messageId}`
      : `${letters.length} dead letters`;
  await ctx.confirm(
    verb === 'purge' ? `purge ${what}? ${purgeWarning(ctx.followUp)}` : `redrive ${what}?`,
  );
  // Confirmed by --yes, the question was never shown: its warning is, before the purge.
  if (verb === 'purge' && ctx.values.yes) {
    ctx.note(`purging ${what}. ${purgeWarning(ctx.followUp)}`);
  }
  const done: typeof listed = [];
  for (const letter of letters) {
    await act(letter);
    done.push({ actor: letter.actorId, messageId: letter.messageId });
    await ctx.audit(`dead-letters ${verb}`, { actor: letter.actorId, messageId: letter.messageId });
  }
  // A paused actor parks what is redriven to it, as any message: applied once it is resumed.
  const paused = verb === 'redrive' ? await pausedOf(ctx, done) : [];
  ctx.print(
    { [verb]: done, ...leftOut, ...(paused.length > 0 ? { parkedAt: paused } : {}) },
    () =>
      (verb === 'redrive'
        ? redrivenLine(done, paused, ctx.followUp)
        : `purged ${done.length} dead letter(s)`) + leftLines(left, ctx.followUp),
  );
}

/** The actors of `letters` that are paused now. */
async function pausedOf(
  ctx: OpsContext,
  letters: ReadonlyArray<{ actor: string }>,
): Promise<string[]> {
  const { store } = await ctx.target();
  const actors = [...new Set(letters.map((l) => l.actor))];
  const records = await Promise.all(actors.map((actor) => store.load(actor)));
  return actors.filter((_, i) => records[i]?.paused !== undefined);
}

/** What a redrive says it did: when each is applied, and which wait parked at a paused actor. */
function redrivenLine(
  done: ReadonlyArray<{ actor: string }>,
  paused: readonly string[],
  follow: FollowUp,
): string {
  const listed = `\n${stillListed(follow)}`;
  if (paused.length === 0) {
    return `redriven ${done.length} dead letter(s): each is applied once, in its actor's next turn${listed}`;
  }
  const held = done.filter((l) => paused.includes(l.actor)).length;
  const others = done.length - held;
  return (
    `redriven ${done.length} dead letter(s): ${held} to paused actor(s) (${paused.join(', ')}), parked there until resumed, then applied once, in order (${resumeCommands(paused, follow)})` +
    (others > 0 ? `; the other ${others} each applied once, in its actor's next turn` : '') +
    listed
  );
}

/**
 * What a redrive says of the letters it sent: Baton records no redrive in flight, so each stays
 * listed until its actor applies it, and a purge meanwhile makes the redrive apply nothing.
 */
const stillListed = (follow: FollowUp) =>
  `each stays listed in ${follow`dead-letters list`} until its actor applies it: do not purge it meanwhile (the redrive would then apply nothing)`;

/** The command that resumes each of `paused`, its id quoted: `baton actors resume tally/q …; …`. */
export function resumeCommands(paused: readonly string[], follow: FollowUp): string {
  return paused.map((actor) => follow`actors resume ${actor}`).join('; ');
}
