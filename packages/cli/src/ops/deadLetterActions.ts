/**
 * `baton dead-letters redrive | purge`: the actions on one dead letter named, or on `--all`
 * that match the filters, with `--dry-run` to see which first. A bulk redrive leaves, and lists
 * apart, the letters it must not redrive (a bulk purge, the timeouts of asks it must not purge);
 * each action asks first and writes the audit line.
 */
import type { DeadLetter } from '@baton/core/adapter';
import { heldAsk, purgeDeadLetter, redriveDeadLetter } from '@baton/core/engine';
import { targets } from './deadLetterSelection.ts';
import { forceReason } from './deadLetters.ts';
import { table } from './format.ts';
import { recordRedrive, writerOf } from './letterTrails.ts';
import { pasteable } from './messageIds.ts';
import type { OpsContext } from './OpsContext.ts';
import type { FollowUp } from './target.ts';
import { VOID_FIRE_TEXT, type VoidFire, voidFires } from './voidFires.ts';

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
    });
    // Counted beside the letter, which the engine writes anew if the redrive fails again.
    await recordRedrive(await writerOf(ctx), letter);
  });
}

/**
 * `baton dead-letters purge <type/key> <message id> | --all [filters] [--dry-run] --yes`. The
 * letter of an ask's timeout, which holds its asker's continuation, is refused by the engine
 * (named) or left (`--all`); the letter of an ask's reply goes, and the ask then times out.
 */
export async function deadLettersPurge(ctx: OpsContext): Promise<void> {
  await bulk(ctx, 'purge', async (letter) => {
    const { store } = await ctx.target();
    const by = await ctx.operator();
    await purgeDeadLetter(store, letter.actorId, letter.messageId, { by, followUp: ctx.followUp });
  });
}

/** A letter a bulk action leaves, and why. */
type Left = { readonly actor: string; readonly messageId: string; readonly reason: string };

/**
 * The letters an action takes, and those it leaves (`left`), with why. A redrive cannot take a
 * letter kept without its payload (too large), and takes one whose sender was answered
 * DEAD_LETTERED, or one kept as too old to tell whether it was applied, only with `--force`:
 * `--all` leaves them and lists them apart; a named one is refused, saying why. A purge leaves
 * the letter of an ask's timeout, held with its asker's continuation (see {@link heldAsks}); its
 * `replies` are the letters of asks' replies whose asks then time out.
 */
async function sorted(
  ctx: OpsContext,
  verb: 'redrive' | 'purge',
  letters: DeadLetter[],
): Promise<{ acted: DeadLetter[]; left: Left[]; replies: number }> {
  if (verb === 'purge') {
    const { timeouts, replies } = await heldAsks(ctx, letters);
    const leftOut = (l: DeadLetter) => ({
      actor: l.actorId,
      messageId: l.messageId,
      reason: ASK_TIMEOUT,
    });
    return {
      acted: letters.filter((l) => !timeouts.has(l)),
      left: letters.filter((l) => timeouts.has(l)).map(leftOut),
      replies: replies.length,
    };
  }
  if (!ctx.values.all) return { acted: letters, left: [], replies: 0 };
  const force = ctx.values.force === true;
  const acted: DeadLetter[] = [];
  const left: Left[] = [];
  for (const l of letters) {
    const because = force ? undefined : forceReason(l);
    const why = !l.redrivable
      ? CUT
      : because === 'answered'
        ? ANSWERED
        : because === 'tooOldToTell'
          ? TOO_OLD
          : undefined;
    if (why === undefined) acted.push(l);
    else left.push({ actor: l.actorId, messageId: l.messageId, reason: why });
  }
  return { acted, left, replies: 0 };
}

/**
 * Which of `letters` are an ask's with its timeout held, as the engine's purge tells them
 * (`heldAsk`): the letter of the timeout's own fire (`timeouts`), which a purge must not take
 * (the asker would wait for good), and the letter of its reply (`replies`), whose purge leaves
 * the timeout to fire: the ask ends with ASK_TIMEOUT.
 */
async function heldAsks(
  ctx: OpsContext,
  letters: readonly DeadLetter[],
): Promise<{ timeouts: Set<DeadLetter>; replies: DeadLetter[] }> {
  const timeouts = new Set<DeadLetter>();
  const replies: DeadLetter[] = [];
  if (!letters.some((l) => l.timer !== undefined)) return { timeouts, replies };
  const { store } = await ctx.target();
  for (const l of letters) {
    const held = await heldAsk(store, l);
    if (held === 'timeout') timeouts.add(l);
    else if (held === 'reply') replies.push(l);
  }
  return { timeouts, replies };
}

/** Why a bulk action leaves a letter. */
const CUT = 'kept without its payload (too large to keep whole): send it again from its source';
const ANSWERED =
  "its sender was answered DEAD_LETTERED when it was kept (an actor's or a client's ask): purge it, or redrive it with --force if it must be applied still";
const TOO_OLD =
  'kept as too old to tell whether it was applied (it may have been already): redrive it with --force only if you know it was never applied, else purge it';
const ASK_TIMEOUT =
  "the timeout of an ask, which holds its asker's continuation: purged, the asker would wait for good; redrive it instead (the continuation runs once, with ASK_TIMEOUT)";

/** What a bulk action that leaves every letter that matches says. */
function noneActed(verb: 'redrive' | 'purge', left: readonly Left[]): string {
  if (verb === 'purge') return 'no dead letter that matches can be purged';
  const forced = left.some((l) => l.reason === ANSWERED || l.reason === TOO_OLD);
  return `no dead letter that matches can be redriven${forced ? ' without --force' : ''}`;
}

/**
 * What a bulk action says of the letters it left, after what it did: each reason apart. A letter
 * a redrive leaves for its answered sender or its age is named with the commands for it, one per
 * letter: `purge --all` with the same filters would purge the letters the redrive took too
 * (cancelling their redrive). So is the letter of an ask's timeout a purge leaves.
 */
function leftLines(left: readonly Left[], follow: FollowUp): string {
  const cut = left.filter((l) => l.reason === CUT);
  const answered = left.filter((l) => l.reason === ANSWERED);
  const tooOld = left.filter((l) => l.reason === TOO_OLD);
  const timeouts = left.filter((l) => l.reason === ASK_TIMEOUT);
  const commands = (letters: readonly Left[]) =>
    letters
      .map(
        (l) =>
          `  ${follow`dead-letters purge ${l.actor} ${l.messageId}`}\n  ${follow`dead-letters redrive ${l.actor} ${l.messageId} --force`}`,
      )
      .join('\n');
  let lines = '';
  if (answered.length > 0) {
    lines +=
      `\nleft ${answered.length} dead letter(s) whose sender was answered DEAD_LETTERED when they were kept (an actor's ask, whose asker went on as for a failed call — a workflow failed, or its saga undid the call —, or a client's ask, which was told so): applied now, they would change their actor after that answer. For each, purge it if it must not run, or redrive it with --force if it must be applied still:\n` +
      commands(answered);
  }
  if (tooOld.length > 0) {
    lines +=
      `\nleft ${tooOld.length} dead letter(s) kept as too old to tell whether they were applied (each came after what proves a message applied was gone — its sender's mark, or its outcome —, or where its sender's mark had forgotten its channel's gaps, or from a sender's life that had ended): each may have been applied already, and a redrive would then apply it twice. For each, purge it, unless you know it was never applied (its effect is not in its actor's state: ${follow`actors get <type/key>`}); only then redrive it with --force:\n` +
      commands(tooOld);
  }
  if (timeouts.length > 0) {
    lines +=
      `\nleft ${timeouts.length} dead letter(s) of an ask's timeout, each holding its asker's continuation: purged, the asker would wait for good (a reply that comes later is dropped as late). Fix what made the continuation fail, deploy, then redrive each (the continuation runs once, with ASK_TIMEOUT):\n` +
      timeouts.map((l) => `  ${follow`dead-letters redrive ${l.actor} ${l.messageId}`}`).join('\n');
  }
  if (cut.length > 0) {
    lines +=
      `\nleft ${cut.length} dead letter(s) kept without their payload (too large to keep whole), which cannot be redriven: send their messages again from their source, then purge them:\n` +
      table(cut.map(pasteable), ['actor', 'messageId']);
  }
  return lines;
}

/**
 * What a purge of asks' replies adds to its question and its summary: each ask then times out.
 */
const repliesLine = (replies: number) =>
  `${replies === 1 ? 'One is' : `${replies} are`} the reply to an ask that still waits for it: purged, the ask's timeout is left to fire, and its continuation runs once, with ASK_TIMEOUT`;

/** What a purge's summary says of the letters of asks' replies it purged. */
const purgedReplies = (replies: number) =>
  replies === 0
    ? ''
    : `; ${replies} of them the reply to an ask that waited for it: its timeout now fires when due, and the ask's continuation runs once, with ASK_TIMEOUT`;

/**
 * What a redrive with `--force` adds to its question: how many of its letters a plain redrive
 * would refuse, and why, since `--all --force` takes every one the filters match.
 */
function forcedLine(ctx: OpsContext, letters: readonly DeadLetter[]): string {
  if (ctx.values.force !== true) return '';
  const reasons = letters.filter((l) => l.redrivable).map(forceReason);
  const answered = reasons.filter((r) => r === 'answered').length;
  const tooOld = reasons.filter((r) => r === 'tooOldToTell').length;
  if (answered + tooOld === 0) return '';
  const parts = [
    ...(answered > 0
      ? [
          `${answered} whose sender was answered DEAD_LETTERED (it would change its actor after that answer)`,
        ]
      : []),
    ...(tooOld > 0
      ? [
          `${tooOld} kept as too old to tell whether it was applied (applied already, it would be applied twice)`,
        ]
      : []),
  ];
  return `With --force it takes ${parts.join(', and ')}: redrive each only if you know it must be applied`;
}

async function bulk(
  ctx: OpsContext,
  verb: 'redrive' | 'purge',
  act: (letter: DeadLetter) => Promise<void>,
): Promise<void> {
  const picked = await targets(ctx, verb);
  const { acted: letters, left, replies } = await sorted(ctx, verb, picked);
  const listed = letters.map((l) => ({ actor: l.actorId, messageId: l.messageId }));
  const leftOut = left.length === 0 ? {} : { left };
  // The fires whose timer is gone: redriven, they apply nothing (said, not promised applied).
  const voided = verb === 'redrive' ? await voidedOf(ctx, letters) : [];
  const nothing = voided.length === 0 ? {} : { appliesNothing: voided };
  if (ctx.values['dry-run']) {
    ctx.print(
      { dryRun: true, [verb]: listed, ...leftOut, ...nothing },
      () =>
        (letters.length === 0
          ? `would ${verb} nothing: ${left.length === 0 ? 'no dead letter matches' : noneActed(verb, left)}`
          : `would ${verb} ${letters.length} dead letter(s):\n${table(listed.map(pasteable), ['actor', 'messageId'])}${replies === 0 ? '' : `\n${repliesLine(replies)}`}${voided.length === 0 ? '' : `\n${wouldApplyNothing(voided, ctx.followUp)}`}`) +
        leftLines(left, ctx.followUp),
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
        (left.length === 0 ? `no dead letter matches: nothing to ${verb}` : noneActed(verb, left)) +
        leftLines(left, ctx.followUp),
    );
    return;
  }
  const what =
    letters.length === 1
      ? `dead letter ${letters[0]!.messageId}`
      : `${letters.length} dead letters`;
  const warning =
    verb === 'purge'
      ? `${purgeWarning(ctx.followUp)}${replies === 0 ? '' : `. ${repliesLine(replies)}`}`
      : forcedLine(ctx, letters);
  await ctx.confirm(`${verb} ${what}?${warning === '' ? '' : ` ${warning}`}`);
  // Confirmed by --yes, the question was never shown: its warning is, before the action.
  if (ctx.values.yes && warning !== '') {
    ctx.note(`${verb === 'purge' ? 'purging' : 'redriving'} ${what}. ${warning}`);
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
    { [verb]: done, ...leftOut, ...(paused.length > 0 ? { parkedAt: paused } : {}), ...nothing },
    () =>
      (verb === 'redrive'
        ? redrivenLine(done, paused, ctx.followUp, voided)
        : `purged ${done.length} dead letter(s)${purgedReplies(replies)}`) +
      leftLines(left, ctx.followUp),
  );
}

/** A letter whose redrive applies nothing, and why (see voidFires.ts). */
type Voided = { readonly actor: string; readonly messageId: string; readonly reason: VoidFire };

/** Those of `letters` that are a timer's fire whose timer is no longer stored for it. */
async function voidedOf(ctx: OpsContext, letters: readonly DeadLetter[]): Promise<Voided[]> {
  if (!letters.some((l) => l.timer !== undefined)) return [];
  const { store } = await ctx.target();
  const voids = await voidFires(store, letters);
  return letters.flatMap((l) => {
    const reason = voids.get(l);
    return reason ? [{ actor: l.actorId, messageId: l.messageId, reason }] : [];
  });
}

/** Why `voided` apply nothing: each reason once (`its timer was cancelled`). */
const voidReasons = (voided: readonly Voided[]) =>
  [...new Set(voided.map((v) => VOID_FIRE_TEXT[v.reason]))].join('; or ');

/** What a dry run says of the letters that would apply nothing: purge them instead. */
function wouldApplyNothing(voided: readonly Voided[], follow: FollowUp): string {
  const one = voided.length === 1;
  const purge = one
    ? follow`dead-letters purge ${voided[0]!.actor} ${voided[0]!.messageId}`
    : follow`dead-letters purge <type/key> <message id>`;
  return `${one ? '1 of them' : `${voided.length} of them`} would apply nothing: ${one ? 'it is' : 'each is'} a timer's fire, and ${voidReasons(voided)} (a redrive forgets such a letter, running no handler); purge ${one ? 'it' : 'each'} instead: ${purge}`;
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

/**
 * What a redrive says it did: when each is applied, which wait parked at a paused actor, and
 * which apply nothing (`voided`: a timer's fire whose timer is no longer stored for it).
 */
function redrivenLine(
  done: ReadonlyArray<{ actor: string; messageId: string }>,
  paused: readonly string[],
  follow: FollowUp,
  voided: readonly Voided[],
): string {
  const listed = `\n${stillListed(follow)}`;
  const isVoided = (l: { actor: string; messageId: string }) =>
    voided.some((v) => v.actor === l.actor && v.messageId === l.messageId);
  const applied = done.filter((l) => !isVoided(l));
  const nothing =
    voided.length === 0
      ? ''
      : `${voided.length === done.length ? (done.length === 1 ? 'it applies' : 'each applies') : `${voided.length} of them ${voided.length === 1 ? 'applies' : 'apply'}`} nothing: ${voided.length === 1 ? "it is a timer's fire" : "each is a timer's fire"}, and ${voidReasons(voided)}, so its actor forgets ${voided.length === 1 ? 'it' : 'each'}, running no handler`;
  if (applied.length === 0) {
    return `redriven ${done.length} dead letter(s): ${nothing}\n${done.length === 1 ? 'it stays' : 'each stays'} listed in ${follow`dead-letters list`} until its actor's turn forgets it`;
  }
  const then = nothing === '' ? '' : `${nothing}; of the other ${applied.length}, `;
  const pausedNow = paused.filter((actor) => applied.some((l) => l.actor === actor));
  if (pausedNow.length === 0) {
    return `redriven ${done.length} dead letter(s): ${then}each is applied once, in its actor's next turn${listed}`;
  }
  const held = applied.filter((l) => pausedNow.includes(l.actor)).length;
  const others = applied.length - held;
  return (
    `redriven ${done.length} dead letter(s): ${then}${held} to paused actor(s) (${pausedNow.join(', ')}), parked there until resumed, then applied once, in order (${resumeCommands(pausedNow, follow)})` +
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
