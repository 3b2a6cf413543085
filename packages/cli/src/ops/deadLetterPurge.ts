/**
 * What `baton dead-letters purge` alone works out and says: which letters a bulk purge leaves,
 * and why — the letter of an ask's timeout, which holds its asker's continuation, and a letter
 * whose last redrive is not applied yet (its trail says so: letterTrails.ts), unless
 * `--include-pending` —; what it asks first; what it says of asks' replies. The command's flow,
 * shared with `redrive`, is in deadLetterActions.ts.
 */
import type { DeadLetter } from '@baton/core/adapter';
import { heldAsk } from '@baton/core/engine';
import type { Left } from './deadLetterSelection.ts';
import { table } from './format.ts';
import { trailSummary, trailsOf } from './letterTrails.ts';
import { pasteable } from './messageIds.ts';
import type { OpsContext } from './OpsContext.ts';
import type { FollowUp } from './target.ts';

/** A letter a purge takes whose last redrive is not applied yet: when, and by whom. */
export type PendingRedrive = { readonly at: string; readonly by: string };

/**
 * The letters a purge takes, and those it leaves (`left`), with why. It leaves the letter of an
 * ask's timeout, held with its asker's continuation (see {@link heldAsks}); with `--all`, unless
 * `--include-pending`, a letter whose last redrive is not applied yet too (purged, that redrive
 * would apply nothing). `replies` are the letters of asks' replies it takes, whose asks then
 * time out; `pending`, the letters it takes whose last redrive is not applied yet.
 */
export async function purgeSorted(
  ctx: OpsContext,
  letters: DeadLetter[],
): Promise<{ acted: DeadLetter[]; left: Left[]; replies: number; pending: PendingRedrive[] }> {
  const { timeouts, replies } = await heldAsks(ctx, letters);
  const trails = await trailsOf(ctx, letters);
  const pendingOf = (l: DeadLetter) => {
    const last = trailSummary(l, trails.get(l)).lastRedrive;
    return last?.result === 'notAppliedYet' ? { at: last.at, by: last.by } : undefined;
  };
  const keepPending = ctx.values.all === true && ctx.values['include-pending'] !== true;
  const acted: DeadLetter[] = [];
  const left: Left[] = [];
  const pending: PendingRedrive[] = [];
  for (const l of letters) {
    const redrive = pendingOf(l);
    const why = timeouts.has(l) ? ASK_TIMEOUT : redrive && keepPending ? PENDING : undefined;
    if (why !== undefined) {
      left.push({ actor: l.actorId, messageId: l.messageId, reason: why });
      continue;
    }
    acted.push(l);
    if (redrive) pending.push(redrive);
  }
  return { acted, left, replies: replies.filter((l) => acted.includes(l)).length, pending };
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

/** Why a bulk purge leaves a letter. */
const ASK_TIMEOUT =
  "the timeout of an ask, which holds its asker's continuation: purged, the asker would wait for good; redrive it instead (the continuation runs once, with ASK_TIMEOUT)";
const PENDING =
  'its last redrive is not applied yet: purged, that redrive would apply nothing; wait for its actor to apply it, or purge it with --include-pending';

/** What a bulk purge that leaves every letter that matches says. */
export function purgeNoneActed(left: readonly Left[]): string {
  const pending = left.some((l) => l.reason === PENDING);
  return `no dead letter that matches can be purged${pending ? ' without --include-pending' : ''}`;
}

/**
 * What a bulk purge says of the letters it left, after what it did: the letters of asks'
 * timeouts, each with its redrive command, and the letters whose last redrive is not applied
 * yet.
 */
export function purgeLeftLines(left: readonly Left[], follow: FollowUp): string {
  const timeouts = left.filter((l) => l.reason === ASK_TIMEOUT);
  const pending = left.filter((l) => l.reason === PENDING);
  let lines = '';
  if (timeouts.length > 0) {
    lines +=
      `\nleft ${timeouts.length} dead letter(s) of an ask's timeout, each holding its asker's continuation: purged, the asker would wait for good (a reply that comes later is dropped as late). Fix what made the continuation fail, deploy, then redrive each (the continuation runs once, with ASK_TIMEOUT):\n` +
      timeouts.map((l) => `  ${follow`dead-letters redrive ${l.actor} ${l.messageId}`}`).join('\n');
  }
  if (pending.length > 0) {
    lines +=
      `\nleft ${pending.length} dead letter(s) whose last redrive is not applied yet (REDRIVEN says "not applied yet" in ${follow`dead-letters list`}): purged now, that redrive would apply nothing. Wait for their actors' turns (a letter applied leaves the list; one that fails again is kept again, REDRIVEN "kept again"), or add --include-pending to purge them all the same:\n` +
      table(pending.map(pasteable), ['actor', 'messageId']);
  }
  return lines;
}

/**
 * What a purge asks about: its letters are never applied, and a redrive of one sent and not yet
 * applied by its actor's turn then applies nothing. A letter's trail tells such a one (`list`'s
 * REDRIVEN: `not applied yet`): `pending` are those among the `count` letters it takes.
 */
export function purgeWarning(
  follow: FollowUp,
  count: number,
  pending: readonly PendingRedrive[],
): string {
  const list = follow`dead-letters list`;
  const forgotten = 'They are forgotten, never applied.';
  if (pending.length === 0) {
    return `${forgotten} A redrive sent and not yet applied by its actor's turn would apply nothing once its letter is purged: ${count === 1 ? 'it is not' : 'none of them is'} noted as redriven and not applied yet (REDRIVEN in ${list} says "not applied yet" for such a letter)`;
  }
  const wait = `To have ${pending.length === 1 ? 'it' : 'them'} applied, do not purge: wait for the actor's turn (a letter applied leaves ${list}; one that fails again is kept again, REDRIVEN "kept again")`;
  if (count === 1) {
    const [last] = pending;
    return `${forgotten} Its last redrive, by ${last!.by} at ${last!.at}, is not applied yet: purged now, that redrive applies nothing. ${wait}`;
  }
  return `${forgotten} ${pending.length} of them have a last redrive not applied yet (REDRIVEN says "not applied yet" in ${list}): purged now, those redrives apply nothing. ${wait}`;
}

/**
 * What a purge of asks' replies adds to its question and its summary: each ask then times out.
 */
export const repliesLine = (replies: number) =>
  `${replies === 1 ? 'One is' : `${replies} are`} the reply to an ask that still waits for it: purged, the ask's timeout is left to fire, and its continuation runs once, with ASK_TIMEOUT`;

/** What a purge's summary says of the letters of asks' replies it purged. */
export const purgedReplies = (replies: number) =>
  replies === 0
    ? ''
    : `; ${replies} of them the reply to an ask that waited for it: its timeout now fires when due, and the ask's continuation runs once, with ASK_TIMEOUT`;
