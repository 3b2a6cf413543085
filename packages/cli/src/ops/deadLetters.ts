/**
 * `baton dead-letters list | show`: the dead letters kept, and one of them whole. Which letters
 * a command takes is in deadLetterSelection.ts; `redrive` and `purge` are in deadLetterActions.ts
 * (what is theirs alone in deadLetterRedrive.ts and deadLetterPurge.ts).
 */
import type { MessageTrail } from '@baton/aws';
import { type DeadLetter, INGRESS } from '@baton/core/adapter';
import { answeredSender, keptTooOldToTell, keyClaimLapsed } from '@baton/core/engine';
import { causeOf, countByCode } from './deadLetterCauses.ts';
import { matching, named, typeUnchecked } from './deadLetterSelection.ts';
import { ofEndedLives } from './endedLives.ts';
import { duration, limitOption, table } from './format.ts';
import { trailCells, trailLines, trailSummary, trailsOf } from './letterTrails.ts';
import { pasteable } from './messageIds.ts';
import type { OpsContext } from './OpsContext.ts';
import { VOID_FIRE_TEXT, type VoidFire, voidFire, voidFires } from './voidFires.ts';

/**
 * Why a plain redrive refuses a letter, asking for `--force` (the engine's `redriveNeedsForce`):
 * its sender, an ask, was answered DEAD_LETTERED (`answered`); or it was kept as too old to tell
 * whether it was applied (`tooOldToTell`), so it may have been applied already. `undefined` when
 * a plain redrive takes it. The engine refuses an answered letter first, so that reason comes
 * first here too.
 */
export type ForceReason = 'answered' | 'tooOldToTell' | 'lifeEnded';

/**
 * `now`: the time that tells whether a client key's claim has lapsed; `ended`: the letters kept
 * in a life of their actor that has ended since (endedLives.ts).
 */
export function forceReason(
  l: DeadLetter,
  now: number,
  ended: ReadonlySet<DeadLetter> = new Set(),
): ForceReason | undefined {
  if (answeredSender(l) !== undefined) return 'answered';
  if (keptTooOldToTell(l) || keyClaimLapsed(l, now)) return 'tooOldToTell';
  return ended.has(l) ? 'lifeEnded' : undefined;
}

function summary(
  ctx: OpsContext,
  l: DeadLetter,
  ended: ReadonlySet<DeadLetter>,
  voided?: VoidFire,
  trail?: MessageTrail,
) {
  const cause = causeOf(l);
  const because = l.redrivable ? forceReason(l, ctx.io.now(), ended) : undefined;
  return {
    actor: l.actorId,
    messageId: l.messageId,
    name: l.envelope.name,
    code: cause.code,
    attempts: l.attempts,
    at: new Date(l.at).toISOString(),
    age: duration(ctx.io.now() - l.at),
    redrivable: l.redrivable,
    // A redrive refuses it without --force: its sender, an ask, was answered DEAD_LETTERED, or
    // it was kept as too old to tell whether it was applied (`forceBecause` says which).
    needsForce: because !== undefined,
    ...(because === undefined ? {} : { forceBecause: because }),
    // A timer's fire whose timer is gone: a redrive forgets it, and applies nothing.
    ...(voided === undefined ? {} : { appliesNothing: voided }),
    // What operators did to it: ended it, redrove it (how often, last when, with what result).
    ...trailSummary(l, trail),
    error: cause.message,
  };
}

/**
 * The `REDRIVE` column of `list`: yes, only with --force (an ask's letter, or one kept as too
 * old to tell), no (cut), or nothing (a timer's fire whose timer is gone: it applies nothing).
 */
const redriveCell = (l: { redrivable: boolean; needsForce: boolean; appliesNothing?: VoidFire }) =>
  !l.redrivable ? 'no' : l.appliesNothing ? 'nothing' : l.needsForce ? '--force' : 'yes';

/**
 * `baton dead-letters list [--type t] [--code c] [--since 2h] [--limit n]`: the oldest `n` (100)
 * that match, how many match in all, and how many by code (what made each fail), so that an
 * incident's thousands read as a few lines.
 */
export async function deadLettersList(ctx: OpsContext): Promise<void> {
  const limit = limitOption(ctx.values.limit, LIST_DEFAULT);
  const letters = await matching(ctx, 'list');
  // Only the letters shown are looked up: each timer's fire among them costs a read or two.
  const { store } = await ctx.target();
  const voids = await voidFires(store, letters.slice(0, limit));
  const trails = await trailsOf(ctx, letters.slice(0, limit));
  const ended = await ofEndedLives(store, letters.slice(0, limit));
  const all = letters.map((l) => summary(ctx, l, ended, voids.get(l), trails.get(l)));
  const byCode: Record<string, number> = {};
  for (const letter of all) byCode[letter.code] = (byCode[letter.code] ?? 0) + 1;
  const result = { deadLetters: all.slice(0, limit), total: all.length, byCode };
  ctx.print(result, ({ deadLetters, total }) => {
    if (total === 0) return `no dead letters${typeUnchecked(ctx)}`;
    const now = ctx.io.now();
    const rows = table(
      deadLetters.map((l) =>
        pasteable({
          ...l,
          redrive: redriveCell(l),
          ...trailCells(l, now),
          error: clipped(l.error, ERROR_COLUMN),
        }),
      ),
      // ENDED and REDRIVEN only when a letter shown has one: most never were.
      [
        ...['actor', 'name', 'code', 'attempts', 'age', 'messageId', 'redrive'],
        ...(deadLetters.some((l) => l.ended) ? ['ended'] : []),
        ...(deadLetters.some((l) => l.redrives > 0) ? ['redriven'] : []),
        'error',
      ],
    );
    // The column's --force, said once per reason: why a plain redrive refuses those letters.
    const show = ctx.followUp`dead-letters show <type/key> <message id>`;
    const forced =
      (deadLetters.some((l) => l.forceBecause === 'answered')
        ? `\nREDRIVE --force: its sender, an ask, was answered DEAD_LETTERED; a redrive applies it only with --force (or purge it): ${show} says who`
        : '') +
      (deadLetters.some((l) => l.forceBecause === 'tooOldToTell')
        ? `\nREDRIVE --force: kept as too old to tell whether it was applied (it may have been already); redrive it with --force only if you know it was never applied, else purge it: ${show} says why`
        : '') +
      (deadLetters.some((l) => l.forceBecause === 'lifeEnded')
        ? `\nREDRIVE --force: kept in a life of its actor that has ended since (it halted, or never applied a message and its record expired); applied now, it would change the actor's new life: purge it, or redrive it with --force if the new life must take it`
        : '') +
      (deadLetters.some((l) => l.appliesNothing)
        ? `\nREDRIVE nothing: a timer's fire whose timer is no longer stored for it (${voidedReasons(deadLetters)}): a redrive forgets it and applies nothing; purge it: ${ctx.followUp`dead-letters purge <type/key> <message id>`}`
        : '');
    if (total === deadLetters.length) return `${rows}${forced}`;
    const counts = countByCode(all.map((letter) => letter.code));
    return (
      `${rows}${forced}\nthe oldest ${deadLetters.length} of ${total} (by code: ${counts}): ` +
      'narrow with --type, --code or --since, or show more with --limit'
    );
  });
}

/** Why the letters of `shown` that apply nothing do: each reason once. */
const voidedReasons = (shown: ReadonlyArray<{ appliesNothing?: VoidFire }>) =>
  [
    ...new Set(shown.flatMap((l) => (l.appliesNothing ? [VOID_FIRE_TEXT[l.appliesNothing]] : []))),
  ].join('; or ');

/** Dead letters `list` shows unless `--limit` says otherwise. */
const LIST_DEFAULT = 100;

/** The characters of an error the list shows (`show` gives it whole). */
const ERROR_COLUMN = 60;

const clipped = (text: string, max: number) =>
  text.length <= max ? text : `${text.slice(0, max - 1)}…`;

/**
 * `baton dead-letters show <type/key> <message id>`: the message, its error, its attempts — or,
 * for a message parked at a paused actor, that it is parked and applied once it is resumed.
 */
export async function deadLettersShow(ctx: OpsContext): Promise<void> {
  const letter = await named(ctx, 'show');
  const parked = letter.parked === undefined ? {} : { parked: letter.parked };
  const answered = letter.parked === undefined ? answeredSender(letter) : undefined;
  const tooOld =
    letter.parked === undefined &&
    answered === undefined &&
    (keptTooOldToTell(letter) || keyClaimLapsed(letter, ctx.io.now()));
  const { store } = await ctx.target();
  const voided = await voidFire(store, letter);
  const trail = (await trailsOf(ctx, [letter])).get(letter);
  const ended = await ofEndedLives(store, [letter]);
  const shown = {
    ...summary(ctx, letter, ended, voided, trail),
    ...parked,
    ...(answered === undefined ? {} : { answered }),
    envelope: letter.envelope,
    failure: letter.error,
  };
  ctx.print(shown, (s) =>
    [
      `actor      ${s.actor}`,
      `message    ${s.messageId}`,
      `name       ${s.name}`,
      `payload    ${JSON.stringify(s.envelope.payload)}`,
      `from       ${s.envelope.from}`,
      ...(letter.parked === undefined
        ? [
            `failed     ${s.attempts} time(s), last at ${s.at} (${s.age} ago)`,
            ...trailLines(s, s.actor, s.at, ctx.io.now()),
            `cause      ${s.code}: ${s.error}`,
            `redrivable ${redrivableLine(ctx, s, answered, tooOld, voided, ended.has(letter))}`,
            ...(answered === undefined
              ? []
              : [
                  `answered   ${answered}: a redrive needs --force (or purge it, if the sender undid what it asked for)`,
                ]),
            ...(tooOld
              ? [
                  `too old    ${tooOldLine(letter)}: a redrive needs --force, which may apply it twice. Before you use it, check that it was never applied: ${s.actor}'s state does not show its effect (${ctx.followUp`actors get ${s.actor}`})${letter.envelope.ask === undefined ? '' : `, and ${s.envelope.from} got no reply to its ask`}. If you cannot tell, purge it`,
                ]
              : []),
          ]
        : [
            voided === undefined
              ? `parked     at ${s.at} (${s.age} ago), number ${letter.parked} of the messages ${s.actor} holds while paused: not a dead letter, it is applied, in order, when ${s.actor} is resumed (${ctx.followUp`actors resume ${s.actor}`}); it cannot be redriven nor purged`
              : `parked     at ${s.at} (${s.age} ago), number ${letter.parked} of the messages ${s.actor} holds while paused: not a dead letter. It is a timer's fire, and ${VOID_FIRE_TEXT[voided]}: when ${s.actor} is resumed (${ctx.followUp`actors resume ${s.actor}`}), it is forgotten, and applies nothing; it cannot be redriven nor purged`,
          ]),
    ].join('\n'),
  );
}

/** What `show` says on its `redrivable` line. */
function redrivableLine(
  ctx: OpsContext,
  s: { actor: string; messageId: string; redrivable: boolean },
  answered: string | undefined,
  tooOld: boolean,
  voided: VoidFire | undefined,
  lifeEnded: boolean,
): string {
  if (!s.redrivable) return 'no (kept without its payload: send it again from its source)';
  if (voided !== undefined) {
    return `it would apply nothing: it is a timer's fire, and ${VOID_FIRE_TEXT[voided]}, so a redrive forgets it, running no handler; purge it: ${ctx.followUp`dead-letters purge ${s.actor} ${s.messageId}`}`;
  }
  const forced = ctx.followUp`dead-letters redrive ${s.actor} ${s.messageId} --force`;
  if (answered !== undefined) {
    return `only with --force: its sender was answered DEAD_LETTERED (below), and applied now it would change ${s.actor} after that answer — ${forced}, or purge it`;
  }
  if (tooOld) {
    return `only with --force: it was kept as too old to tell whether it was applied (below), and applied now it may be applied twice — ${forced} only if you know it was never applied, else purge it (${ctx.followUp`dead-letters purge ${s.actor} ${s.messageId}`})`;
  }
  if (lifeEnded) {
    return `only with --force: it was kept in a life of ${s.actor} that has ended since (it halted, or never applied a message and its record expired), and applied now it would change the actor's new life — purge it (${ctx.followUp`dead-letters purge ${s.actor} ${s.messageId}`}), or ${forced} if the new life must take it`;
  }
  return 'yes';
}

/** Why the engine kept a letter as too old to tell whether it was applied. */
function tooOldLine(letter: DeadLetter): string {
  const { envelope } = letter;
  if (letter.error.details?.forgottenGaps === true) {
    return `it lies where ${letter.actorId}'s mark on ${envelope.from} forgot the gaps of their channel (more of its messages went missing than a mark holds), so no mark tells whether it was applied`;
  }
  if (envelope.lifeEnded === true) {
    return `it was sent by a life of ${envelope.from} that had ended (its record expired while the message waited in its outbox), so no mark tells whether it was applied`;
  }
  // Not kept so by the engine: too old since, as its key's claim lapsed (keyClaimLapsed).
  if (letter.unmarked !== true && envelope.keyHeldUntil !== undefined) {
    return `the claim of its client's key lapsed at ${new Date(envelope.keyHeldUntil).toISOString()}: a message sent under that key since was taken as a new one, under this one's id, and may be this one sent again, applied`;
  }
  const proof =
    envelope.from === INGRESS ? 'its outcome' : `${envelope.from}'s mark on ${letter.actorId}`;
  return `it came after what proves a message applied (${proof}) was gone, so it may have been applied already`;
}
