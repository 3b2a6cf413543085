/**
 * `baton dead-letters list | show`: the dead letters kept, and one of them whole. Which letters
 * a command takes is in deadLetterSelection.ts; `redrive` and `purge` are in deadLetterActions.ts.
 */
import type { DeadLetter } from '@baton/core/adapter';
import { answeredSender } from '@baton/core/engine';
import { causeOf, countByCode } from './deadLetterCauses.ts';
import { matching, named } from './deadLetterSelection.ts';
import { duration, limitOption, table } from './format.ts';
import { pasteable } from './messageIds.ts';
import type { OpsContext } from './OpsContext.ts';

function summary(ctx: OpsContext, l: DeadLetter) {
  const cause = causeOf(l);
  return {
    actor: l.actorId,
    messageId: l.messageId,
    name: l.envelope.name,
    code: cause.code,
    attempts: l.attempts,
    at: new Date(l.at).toISOString(),
    age: duration(ctx.io.now() - l.at),
    redrivable: l.redrivable,
    // Its sender was answered DEAD_LETTERED (an ask): a redrive refuses it without --force.
    needsForce: l.redrivable && answeredSender(l) !== undefined,
    error: cause.message,
  };
}

/** The `REDRIVE` column of `list`: yes, only with --force (an ask's letter), or no (cut). */
const redriveCell = (l: { redrivable: boolean; needsForce: boolean }) =>
  !l.redrivable ? 'no' : l.needsForce ? '--force' : 'yes';

/**
 * `baton dead-letters list [--type t] [--code c] [--since 2h] [--limit n]`: the oldest `n` (100)
 * that match, how many match in all, and how many by code (what made each fail), so that an
 * incident's thousands read as a few lines.
 */
export async function deadLettersList(ctx: OpsContext): Promise<void> {
  const limit = limitOption(ctx.values.limit, LIST_DEFAULT);
  const all = (await matching(ctx)).map((l) => summary(ctx, l));
  const byCode: Record<string, number> = {};
  for (const letter of all) byCode[letter.code] = (byCode[letter.code] ?? 0) + 1;
  const result = { deadLetters: all.slice(0, limit), total: all.length, byCode };
  ctx.print(result, ({ deadLetters, total }) => {
    if (total === 0) return 'no dead letters';
    const rows = table(
      deadLetters.map((l) =>
        pasteable({ ...l, redrive: redriveCell(l), error: clipped(l.error, ERROR_COLUMN) }),
      ),
      ['actor', 'name', 'code', 'attempts', 'age', 'messageId', 'redrive', 'error'],
    );
    // The column's --force, said once: why a plain redrive refuses those letters.
    const forced = deadLetters.some((l) => l.needsForce)
      ? `\nREDRIVE --force: its sender, an ask, was answered DEAD_LETTERED; a redrive applies it only with --force (or purge it): ${ctx.followUp`dead-letters show <type/key> <message id>`} says who`
      : '';
    if (total === deadLetters.length) return `${rows}${forced}`;
    const counts = countByCode(all.map((letter) => letter.code));
    return (
      `${rows}${forced}\nthe oldest ${deadLetters.length} of ${total} (by code: ${counts}): ` +
      'narrow with --type, --code or --since, or show more with --limit'
    );
  });
}

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
  const shown = {
    ...summary(ctx, letter),
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
            `cause      ${s.code}: ${s.error}`,
            `redrivable ${!s.redrivable ? 'no (kept without its payload: send it again from its source)' : answered === undefined ? 'yes' : `only with --force: its sender was answered DEAD_LETTERED (below), and applied now it would change ${s.actor} after that answer — ${ctx.followUp`dead-letters redrive ${s.actor} ${s.messageId} --force`}, or purge it`}`,
            ...(answered === undefined
              ? []
              : [
                  `answered   ${answered}: a redrive needs --force (or purge it, if the sender undid what it asked for)`,
                ]),
          ]
        : [
            `parked     at ${s.at} (${s.age} ago), number ${letter.parked} of the messages ${s.actor} holds while paused: not a dead letter, it is applied, in order, when ${s.actor} is resumed (${ctx.followUp`actors resume ${s.actor}`}); it cannot be redriven nor purged`,
          ]),
    ].join('\n'),
  );
}
