import { BatonError, ErrorCode } from '@baton/core';
import { type DeadLetter, ingressTarget } from '@baton/core/adapter';
import {
  answeredSender,
  parkedLetterRefused,
  purgeDeadLetter,
  redriveDeadLetter,
} from '@baton/core/engine';
import { actorArg, noRecord } from './actors.ts';
import { duration, limitOption, since, table } from './format.ts';
import { lostItsQuotes, pasteable, quotesLost } from './messageIds.ts';
import type { OpsContext } from './OpsContext.ts';
import type { FollowUp } from './target.ts';

/** The dead letters the filters (`--type`, `--code`, `--since`) pick, oldest first. */
async function matching(ctx: OpsContext): Promise<DeadLetter[]> {
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
    ctx.note(
      `none of the ${kept.length} dead letter(s) kept matches the filters; by code: ${codes}`,
    );
  }
  return picked;
}

/** `CODE n, …`, the most frequent first. */
function countByCode(codes: readonly string[]): string {
  const byCode: Record<string, number> = {};
  for (const code of codes) byCode[code] = (byCode[code] ?? 0) + 1;
  return Object.entries(byCode)
    .sort(([, a], [, b]) => b - a)
    .map(([code, n]) => `${code} ${n}`)
    .join(', ');
}

interface KeptError {
  readonly code: string;
  readonly message: string;
  readonly details?: { readonly cause?: unknown };
}

/**
 * The error the dead letter keeps, then each `details.cause` in it: `DEAD_LETTERED`, the
 * failure the engine retried (`RETRYABLE`), and what that failure was (a deploy's
 * `UNKNOWN_MESSAGE`, say).
 */
function errorChain(letter: DeadLetter): KeptError[] {
  const chain: KeptError[] = [letter.error];
  for (let cause = letter.error.details?.cause; isKeptError(cause) && chain.length < 10; ) {
    chain.push(cause);
    cause = cause.details?.cause;
  }
  return chain;
}

function isKeptError(value: unknown): value is KeptError {
  const error = value as KeptError | undefined;
  return typeof error?.code === 'string' && typeof error.message === 'string';
}

/** What made the message fail: the innermost error the dead letter keeps. */
function causeOf(letter: DeadLetter): { code: string; message: string } {
  const { code, message } = errorChain(letter).at(-1)!;
  return { code, message };
}

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
    error: cause.message,
  };
}

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
      deadLetters.map((l) => pasteable({ ...l, error: clipped(l.error, ERROR_COLUMN) })),
      ['actor', 'name', 'code', 'attempts', 'age', 'messageId', 'error'],
    );
    if (total === deadLetters.length) return rows;
    const counts = countByCode(all.map((letter) => letter.code));
    return (
      `${rows}\nthe oldest ${deadLetters.length} of ${total} (by code: ${counts}): ` +
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
 * The one dead letter `<type/key> <message id>` names; for `show`, a message parked at a paused
 * actor too (a redrive or purge of one is refused, saying it is parked).
 */
async function named(ctx: OpsContext, action: 'show' | 'redrive' | 'purge'): Promise<DeadLetter> {
  const actorId = actorArg(ctx, 0);
  const messageId = ctx.arg(1, 'message id');
  const { store } = await ctx.target();
  const letter = await store.readDeadLetter(actorId, messageId);
  if (!letter && lostItsQuotes(messageId)) throw quotesLost(messageId, { actorId });
  if (letter?.parked !== undefined) {
    if (action === 'show') return letter;
    throw parkedLetterRefused(letter, action, ctx.followUp);
  }
  if (!letter && !(await store.load(actorId))) {
    throw noRecord(actorId, `keeps no dead letter ${messageId}`, ctx.followUp);
  }
  if (!letter || letter.applied) throw noLetter(actorId, messageId, letter, ctx.followUp);
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
            `redrivable ${s.redrivable ? 'yes' : 'no (kept without its payload: send it again from its source)'}`,
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

/**
 * What a purge asks about. A redrive sent but not yet applied by its actor's turn leaves its
 * letter kept (and listed) as before: Baton records no redrive in flight, so no command can tell
 * one, and a purge meanwhile makes it apply nothing.
 */
const purgeWarning = (follow: FollowUp) =>
  `They are forgotten, never applied. A redrive of one sent and not yet applied by its actor's turn is cancelled too (it then applies nothing): Baton keeps no record of a redrive in flight, and a letter stays listed until its redrive is applied, so if you redrove one, wait for it to leave ${follow`dead-letters list`} rather than purge it`;

/** The dead letters a bulk action works on: one named, or `--all` matching the filters. */
async function targets(ctx: OpsContext, verb: 'redrive' | 'purge'): Promise<DeadLetter[]> {
  if (ctx.values.all) {
    if (ctx.args.length > 0) {
      throw new BatonError(
        ErrorCode.INVALID_ARGUMENT,
        `${verb} takes <type/key> <message id>, or --all with filters, not both`,
      );
    }
    return matching(ctx);
  }
  return [await named(ctx, verb)];
}

/**
 * `baton dead-letters redrive <type/key> <message id> | --all [filters] [--dry-run] [--force]`:
 * each goes back to its actor's inbox and is applied exactly once, however often it is
 * redriven. A letter whose sender was answered DEAD_LETTERED (an actor's or a client's ask) is
 * refused, or left by `--all`, unless `--force`.
 */
export async function deadLettersRedrive(ctx: OpsContext): Promise<void> {
  const force = ctx.values.force === true;
  await bulk(ctx, 'redrive', async (letter) => {
    const { store, queue } = await ctx.target();
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

/** What a bulk redrive says of the letters it left, after what it did: each reason apart. */
function leftLines(left: readonly Left[], follow: FollowUp): string {
  const cut = left.filter((l) => l.reason === CUT);
  const answered = left.filter((l) => l.reason === ANSWERED);
  let lines = '';
  if (answered.length > 0) {
    lines +=
      `\nleft ${answered.length} dead letter(s) whose sender was answered DEAD_LETTERED when they were kept (an actor's ask, whose asker went on as for a failed call — a workflow failed, or its saga undid the call —, or a client's ask, which was told so): applied now, they would change their actor after that answer. Purge them (${follow`dead-letters purge`}), or, if they must be applied still, redrive them with --force:\n` +
      table(answered.map(pasteable), ['actor', 'messageId']);
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
  if (paused.length === 0) {
    return `redriven ${done.length} dead letter(s): each is applied once, in its actor's next turn`;
  }
  const held = done.filter((l) => paused.includes(l.actor)).length;
  const others = done.length - held;
  return (
    `redriven ${done.length} dead letter(s): ${held} to paused actor(s) (${paused.join(', ')}), parked there until resumed, then applied once, in order (${follow`actors resume <type/key>`})` +
    (others > 0 ? `; the other ${others} each applied once, in its actor's next turn` : '')
  );
}
