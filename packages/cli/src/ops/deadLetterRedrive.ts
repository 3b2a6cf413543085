/**
 * What `baton dead-letters redrive` alone works out and says: which letters a bulk redrive
 * leaves, and why (see {@link redriveSorted}); what `--force` takes; which letters apply nothing
 * (a timer's fire whose timer is gone); which wait at a paused actor. The command's flow, shared
 * with `purge`, is in deadLetterActions.ts.
 */
import type { DeadLetter } from '@baton/core/adapter';
import type { Left } from './deadLetterSelection.ts';
import { type ForceReason, forceReason } from './deadLetters.ts';
import { ofEndedLives } from './endedLives.ts';
import { table } from './format.ts';
import { pasteable } from './messageIds.ts';
import type { OpsContext } from './OpsContext.ts';
import type { FollowUp } from './target.ts';
import { VOID_FIRE_TEXT, type VoidFire, voidFires } from './voidFires.ts';

/**
 * The letters a redrive takes, and those it leaves (`left`), with why. A redrive cannot take a
 * letter kept without its payload (too large), and takes one whose sender was answered
 * DEAD_LETTERED, or one kept as too old to tell whether it was applied, only with `--force`:
 * `--all` leaves them and lists them apart; a named one is refused (by the engine), saying why.
 */
export async function redriveSorted(
  ctx: OpsContext,
  letters: DeadLetter[],
): Promise<{ acted: DeadLetter[]; left: Left[] }> {
  if (!ctx.values.all) return { acted: letters, left: [] };
  const force = ctx.values.force === true;
  const ended = force
    ? new Set<DeadLetter>()
    : await ofEndedLives((await ctx.target()).store, letters);
  const acted: DeadLetter[] = [];
  const left: Left[] = [];
  for (const l of letters) {
    const because = force ? undefined : forceReason(l, ctx.io.now(), ended);
    const why = !l.redrivable
      ? CUT
      : because === 'answered'
        ? ANSWERED
        : because === 'tooOldToTell'
          ? TOO_OLD
          : because === 'lifeEnded'
            ? ENDED_LIFE
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
const TOO_OLD =
  'kept as too old to tell whether it was applied (it may have been already): redrive it with --force only if you know it was never applied, else purge it';

const ENDED_LIFE =
  "kept in a life of its actor that has ended since (it halted, or never applied a message and its record expired): applied now, it would change the actor's new life. Purge it, or redrive it with --force if the new life must take it";

/** What a bulk redrive that leaves every letter that matches says. */
export function redriveNoneActed(left: readonly Left[]): string {
  const forced = left.some(
    (l) => l.reason === ANSWERED || l.reason === TOO_OLD || l.reason === ENDED_LIFE,
  );
  return `no dead letter that matches can be redriven${forced ? ' without --force' : ''}`;
}

/**
 * What a bulk redrive says of the letters it left, after what it did: each reason apart. A
 * letter left for its answered sender or its age is named with the commands for it, one per
 * letter: `purge --all` with the same filters would purge the letters the redrive took too
 * (cancelling their redrive).
 */
export function redriveLeftLines(left: readonly Left[], follow: FollowUp): string {
  const cut = left.filter((l) => l.reason === CUT);
  const answered = left.filter((l) => l.reason === ANSWERED);
  const tooOld = left.filter((l) => l.reason === TOO_OLD);
  const ended = left.filter((l) => l.reason === ENDED_LIFE);
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
      `\nleft ${tooOld.length} dead letter(s) kept as too old to tell whether they were applied (each came after what proves a message applied was gone — its sender's mark, or its outcome —, or where its sender's mark had forgotten its channel's gaps, or from a sender's life that had ended, or after its client key's claim lapsed): each may have been applied already, and a redrive would then apply it twice. For each, purge it, unless you know it was never applied (its effect is not in its actor's state: ${follow`actors get <type/key>`}); only then redrive it with --force:\n` +
      commands(tooOld);
  }
  if (ended.length > 0) {
    lines +=
      `\nleft ${ended.length} dead letter(s) kept in a life of their actor that has ended since (it halted, or never applied a message and its record expired): applied now, each would change the actor's new life by a message sent to the one that ended. For each, purge it, or redrive it with --force if the new life must take it:\n` +
      commands(ended);
  }
  if (cut.length > 0) {
    lines +=
      `\nleft ${cut.length} dead letter(s) kept without their payload (too large to keep whole), which cannot be redriven: send their messages again from their source, then purge them:\n` +
      table(cut.map(pasteable), ['actor', 'messageId']);
  }
  return lines;
}

/**
 * What a redrive with `--force` adds to its question: how many of its letters a plain redrive
 * would refuse, and why, since `--all --force` takes every one the filters match.
 */
export async function forcedLine(ctx: OpsContext, letters: readonly DeadLetter[]): Promise<string> {
  if (ctx.values.force !== true) return '';
  const redrivable = letters.filter((l) => l.redrivable);
  const ended = await ofEndedLives((await ctx.target()).store, redrivable);
  const reasons = redrivable.map((l) => forceReason(l, ctx.io.now(), ended));
  const count = (reason: ForceReason) => reasons.filter((r) => r === reason).length;
  const parts = (
    [
      [
        'answered',
        'whose sender was answered DEAD_LETTERED (it would change its actor after that answer)',
      ],
      [
        'tooOldToTell',
        'kept as too old to tell whether it was applied (applied already, it would be applied twice)',
      ],
      [
        'lifeEnded',
        "kept in a life of its actor that has ended since (it would change the actor's new life)",
      ],
    ] as const
  )
    .filter(([reason]) => count(reason) > 0)
    .map(([reason, what]) => `${count(reason)} ${what}`);
  if (parts.length === 0) return '';
  return `With --force it takes ${parts.join(', and ')}: redrive each only if you know it must be applied`;
}

/** A letter whose redrive applies nothing, and why (see voidFires.ts). */
export type Voided = {
  readonly actor: string;
  readonly messageId: string;
  readonly reason: VoidFire;
};

/** Those of `letters` that are a timer's fire whose timer is no longer stored for it. */
export async function voidedOf(ctx: OpsContext, letters: readonly DeadLetter[]): Promise<Voided[]> {
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
export function wouldApplyNothing(voided: readonly Voided[], follow: FollowUp): string {
  const one = voided.length === 1;
  const purge = one
    ? follow`dead-letters purge ${voided[0]!.actor} ${voided[0]!.messageId}`
    : follow`dead-letters purge <type/key> <message id>`;
  return `${one ? '1 of them' : `${voided.length} of them`} would apply nothing: ${one ? 'it is' : 'each is'} a timer's fire, and ${voidReasons(voided)} (a redrive forgets such a letter, running no handler); purge ${one ? 'it' : 'each'} instead: ${purge}`;
}

/** The actors of `letters` that are paused now. */
export async function pausedOf(
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
export function redrivenLine(
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
 * What a redrive says of the letters it sent: each stays kept and listed until its actor applies
 * it (its REDRIVEN column says `not applied yet` meanwhile), and a purge meanwhile makes the
 * redrive apply nothing.
 */
const stillListed = (follow: FollowUp) =>
  `each stays listed in ${follow`dead-letters list`} until its actor applies it: do not purge it meanwhile (the redrive would then apply nothing)`;

/** The command that resumes each of `paused`, its id quoted: `baton actors resume tally/q …; …`. */
export function resumeCommands(paused: readonly string[], follow: FollowUp): string {
  return paused.map((actor) => follow`actors resume ${actor}`).join('; ');
}
