/**
 * What operators did to a dead letter's message, as the `baton` commands record and print it:
 * that `actors end-failing` ended it, and how often `dead-letters redrive` redrove it, last when
 * and by whom (its trail, an item beside the letter: see `@baton/aws`'s messageTrails.ts). The
 * engine writes a letter kept again whole, with a new time and its attempts counted afresh: the
 * trail is what tells a letter redriven three times from a fresh one. `list`, `show` and `outcome`
 * print it, and `baton inspect`'s page shows it; `end-failing` and `redrive` write it.
 */
import { type MessageTrail, readMessageTrails, trailEnded, trailRedriven } from '@baton/aws';
import { type DeadLetter, messageOf } from '@baton/core/adapter';
import { duration, isoTime } from './format.ts';
import type { OpsContext } from './OpsContext.ts';
import type { Target } from './target.ts';

/** A letter's trail as `--json` prints it beside the letter (times as ISO strings). */
export interface TrailSummary {
  /** An operator ended the message while it failed at its actor's head. */
  readonly ended?: {
    readonly at: string;
    readonly by: string;
    /** Whether its next delivery kept it already (`false`: the end is still to take effect). */
    readonly kept: boolean;
  };
  /** How many keepings of the letter were redriven (a keeping redriven twice counts once). */
  readonly redrives: number;
  /**
   * The last redrive: when, by whom, and what came of it so far (`result`): `notAppliedYet`
   * (the letter redriven is the one kept: its actor has not applied it, nor kept it again), or
   * `keptAgain` (a newer letter was kept since: that redrive did not apply it).
   */
  readonly lastRedrive?: {
    readonly at: string;
    readonly by: string;
    readonly result: 'notAppliedYet' | 'keptAgain';
  };
}

/** The table a target's trails are in. */
const tableOf = (target: Target) => ({ client: target.dynamodb, tableName: target.names.table });

/** The trails of `letters`, by letter; a letter no operator acted on has none. */
export async function trailsOf(
  ctx: OpsContext,
  letters: readonly DeadLetter[],
): Promise<Map<DeadLetter, MessageTrail>> {
  return trailsIn(await ctx.target(), letters);
}

/** The trails of `letters` in `target`'s table, by letter (`baton inspect` has no context). */
export async function trailsIn(
  target: Target,
  letters: readonly DeadLetter[],
): Promise<Map<DeadLetter, MessageTrail>> {
  const out = new Map<DeadLetter, MessageTrail>();
  if (letters.length === 0) return out;
  const found = await readMessageTrails(tableOf(target), letters);
  const byMessage = new Map(found.map((t) => [`${t.actorId}\n${t.messageId}`, t]));
  for (const l of letters) {
    const trail = byMessage.get(`${l.actorId}\n${l.messageId}`);
    if (trail) out.set(l, trail);
  }
  return out;
}

/** `letter`'s trail as `--json` prints it: `{ redrives: 0 }` for one no operator acted on. */
export function trailSummary(letter: DeadLetter, trail: MessageTrail | undefined): TrailSummary {
  const { ended, redriven } = trail ?? {};
  // The letter kept is the one its last redrive sent (the worker's clock wrote both `at`s), or
  // one kept since. An end made after a redrive of the letter kept is still to take effect:
  // times of the CLI's clock only, so a worker's clock a little off misleads neither.
  const redrivenNow = redriven !== undefined && redriven.letterAt === letter.at;
  const pending = ended !== undefined && redrivenNow && ended.at > redriven.at;
  return {
    ...(ended && { ended: { at: isoTime(ended.at), by: ended.by, kept: !pending } }),
    redrives: redriven?.count ?? 0,
    ...(redriven && {
      lastRedrive: {
        at: isoTime(redriven.at),
        by: redriven.by,
        result: redrivenNow ? 'notAppliedYet' : 'keptAgain',
      },
    }),
  };
}

/** How long ago `iso` was, from `now`. */
const ago = (iso: string, now: number) => `${duration(now - Date.parse(iso))} ago`;

/**
 * The `ended` and `redriven` lines `show` and `outcome` print of a letter's trail (none for a
 * letter no operator acted on), `actor` the letter's.
 */
export function trailLines(s: TrailSummary, actor: string, keptAt: string, now: number): string[] {
  const lines: string[] = [];
  if (s.ended) {
    const { at, by } = s.ended;
    lines.push(
      `ended      by ${by} at ${at} (${ago(at, now)}), while it failed at the head of ${actor}'s inbox (actors end-failing): ${s.ended.kept ? 'its next delivery kept it as this dead letter without running its handler again' : 'its next delivery keeps it as a dead letter again, without running its handler'}`,
    );
  }
  if (s.lastRedrive) {
    const { at, by, result } = s.lastRedrive;
    lines.push(
      `redriven   ${s.redrives} time(s), last at ${at} (${ago(at, now)}) by ${by}, ${result === 'keptAgain' ? `which did not apply it: it was kept again at ${keptAt}, its attempts counted afresh` : `not applied yet: the letter stays kept until ${actor}'s turn applies it (or keeps it again, should it fail again); do not purge it meanwhile, or the redrive applies nothing`}`,
    );
  }
  return lines;
}

/**
 * The lines of {@link trailLines} as prose, each its label and a space (`ended by ops at …`):
 * what `baton inspect`'s page shows under a dead letter, where columns do not line up.
 */
export const trailProse = (s: TrailSummary, actor: string, keptAt: string, now: number) =>
  trailLines(s, actor, keptAt, now).map((line) => line.replace(/^(\w+) +/, '$1 '));

/** The `ENDED` and `REDRIVEN` cells `list` prints of a letter's trail (empty: none). */
export function trailCells(s: TrailSummary, now: number): { ended?: string; redriven?: string } {
  const last = s.lastRedrive;
  return {
    ...(s.ended && { ended: `${ago(s.ended.at, now)}${s.ended.kept ? '' : ', to take effect'}` }),
    ...(last && {
      redriven: `${s.redrives}, last ${ago(last.at, now)}, ${last.result === 'keptAgain' ? 'kept again' : 'not applied yet'}`,
    }),
  };
}

/** Who notes on a trail, where, when, and where a note that failed is said. */
export interface TrailWriter {
  readonly target: Target;
  readonly by: string;
  readonly now: number;
  /** Says on stderr that a note could not be written (the action it notes is done). */
  readonly note: (text: string) => void;
}

/** A command's {@link TrailWriter}: its target, operator and clock; its notes on stderr. */
export async function writerOf(ctx: OpsContext): Promise<TrailWriter> {
  const [target, by] = await Promise.all([ctx.target(), ctx.operator()]);
  return { target, by, now: ctx.io.now(), note: (text) => ctx.note(text) };
}

/**
 * Notes on `letter`'s trail that the operator redrove it. The redrive is sent already: a write
 * that fails is said, not thrown (the command would say the redrive failed).
 */
export async function recordRedrive(w: TrailWriter, letter: DeadLetter): Promise<void> {
  const { actorId, messageId } = letter;
  try {
    await trailRedriven(tableOf(w.target), actorId, messageId, letter.at, w.by, w.now);
  } catch (error) {
    w.note(
      `dead letter ${messageId} of ${actorId} was redriven, but the redrive could not be noted beside it (${messageOf(error)}): dead-letters list and show count one redrive less of it; its audit line is the record`,
    );
  }
}

/**
 * Notes on the trail of message `messageId` of `actorId` the end its record holds, so that its
 * letter says so once kept. The end is made already: a write that fails is said, not thrown.
 */
export async function recordEnd(
  w: TrailWriter,
  actorId: string,
  messageId: string,
  ended: { readonly at: number; readonly by: string },
): Promise<void> {
  try {
    await trailEnded(tableOf(w.target), actorId, messageId, ended, w.now);
  } catch (error) {
    w.note(
      `message ${messageId} of ${actorId} was ended, but the end could not be noted beside it (${messageOf(error)}): once kept, its dead letter will not say an operator ended it; its audit line is the record`,
    );
  }
}
