import { listActors } from '@baton/aws';
import { BatonError, ErrorCode, isBatonError } from '@baton/core';
import { type ActorRecord, effectOf, parseActorId, RECORD_FORMAT } from '@baton/core/adapter';
import { DEFAULT_MAX_ATTEMPTS, pauseActor, resumeActor, storedOutbox } from '@baton/core/engine';
import { errorLine, type FailingJson, failingFor, failingJson } from '../inspectedFailing.ts';
import { actorSummaries } from './actorSummaries.ts';
import { duration, fields, isoTime, limitOption, table } from './format.ts';
import { knownActor } from './knownActor.ts';
import { APP_CHECKS_TYPE, knownType } from './knownType.ts';
import type { OpsContext } from './OpsContext.ts';
import { stateCheck } from './stateCheck.ts';
import { type FollowUp, shellQuote } from './target.ts';
import { deliveredByMarks } from './unappliedSends.ts';

/** An actor id argument (`type/key`), checked. */
export function actorArg(ctx: OpsContext, index: number): string {
  const id = ctx.arg(index, 'type/key');
  if (!parseActorId(id)) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `"${id}" is not an actor id: write <type>/<key>, e.g. account/alice`,
    );
  }
  return id;
}

/** What a command that found nothing of a type says of `--app`, when not given it. */
const CHECK_TYPE = `; ${APP_CHECKS_TYPE}`;

/** The type of an actor id {@link actorArg} checked: `tally` of `tally/fred`. */
const typeOf = (id: string): string => parseActorId(id)?.type ?? '';

/** An actor's pause as `--json` gives it: who paused it, and when (an ISO time); null if none. */
export const pauseJson = (paused: ActorRecord['paused']) =>
  paused ? { at: isoTime(paused.at), by: paused.by } : null;

/**
 * The refusal of an action on what an actor with no record would hold (`what`: "no dead letter
 * …", "no timer …"): as likely a typo in the actor id as something gone, so it says so.
 */
export function noRecord(id: string, what: string, follow: FollowUp): BatonError {
  const type = typeOf(id);
  return new BatonError(
    ErrorCode.NOT_FOUND,
    `${id} has no record, and ${what}: it never committed a turn, or its record expired — check the actor id (a typo?): ${follow`actors list ${type}`} lists the type's actors`,
    { details: { actorId: id } },
  );
}

/** `baton actors get <type/key>`: the record and what waits on it. */
export async function actorsGet(ctx: OpsContext): Promise<void> {
  const id = actorArg(ctx, 0);
  const { store } = await ctx.target();
  const record = await store.load(id);
  const now = ctx.io.now();
  if (!record) {
    // A type --app does not define: as likely a typo of it, refused with the nearest.
    const key = id.slice(id.indexOf('/') + 1);
    await knownType(ctx, typeOf(id), {
      again: (near) => ctx.followUp`actors get ${`${near}/${key}`}`,
      after: `, and the table holds no record of ${id}`,
    });
    throw new BatonError(
      ErrorCode.NOT_FOUND,
      `${id} has no record: it never committed a turn, or its record expired (halted, or never changed by a message) and was deleted — its dead letters stay (${ctx.followUp`dead-letters list --type ${typeOf(id)}`}); list the type's actors with ${ctx.followUp`actors list ${typeOf(id)}`}${ctx.values.app ? '' : CHECK_TYPE}`,
    );
  }
  const [timers, letters, held] = await Promise.all([
    store.listTimers(id),
    store.listDeadLetters(id),
    storedOutbox(store, id),
  ]);
  // A send stays held after its drain until the actor's next commit or a sweep: say which ones
  // their target has already (applied, parked or dead-lettered), so an operator does not chase them.
  const { delivered } = await deliveredByMarks(
    store,
    held.flatMap((item) => item.envelopes).filter((e) => effectOf(e.to) === undefined),
  );
  const schema = ctx.values.app ? await stateCheck(ctx, record) : undefined;
  const parked = letters
    .filter((l) => l.parked !== undefined)
    .sort((a, b) => a.parked! - b.parked!);
  const asks = timers.filter((t) => t.id.startsWith('ask:'));
  const result = {
    id,
    version: record.ver,
    life: record.life ?? null,
    stateVersion: record.stateVersion ?? 1,
    recordFormat: record.format ?? 1,
    inboxPosition: record.inboxOffset,
    failingMessage: failingJson(record.failing),
    paused: pauseJson(record.paused),
    parkedMessages: parked.length,
    // In the order a resume applies them: each one's id, for `dead-letters show`.
    parkedMessageIds: parked.map((l) => l.envelope.id),
    deadLetters: letters.filter((l) => l.parked === undefined).length,
    heldSends: held.reduce((n, item) => n + item.envelopes.length, 0),
    // Each send the actor holds: where it goes, since when, and whether its target has it
    // (null: an effect's, or a target not read).
    heldSendList: held.flatMap((item) =>
      item.envelopes.map((e) => ({
        to: e.to,
        name: e.name,
        messageId: e.id,
        since: new Date(item.createdAt).toISOString(),
        age: duration(now - item.createdAt),
        delivered: effectOf(e.to) === undefined ? (delivered(e) ?? null) : null,
      })),
    ),
    pendingTimers: timers
      .filter((t) => !t.id.startsWith('ask:'))
      .map(({ id, name, at }) => ({
        id,
        name,
        at: new Date(at).toISOString(),
      })),
    pendingAsks: asks.length,
    halted: record.expiresAt === undefined ? null : new Date(record.expiresAt).toISOString(),
    ...(schema === undefined ? {} : { stateValid: schema }),
    state: record.state,
  };
  ctx.print(result, (r) =>
    fields([
      ['actor', r.id],
      ['version', r.version],
      ['life', r.life],
      ['state version', r.stateVersion],
      [
        'record format',
        r.recordFormat > RECORD_FORMAT
          ? `${r.recordFormat}: written by a newer Baton than this CLI's (${RECORD_FORMAT}); a worker of an older Baton refuses it, and its messages go to the inbox's dead-letter queue (docs/operations.md, "Rolling back")`
          : r.recordFormat,
      ],
      ['inbox position', r.inboxPosition],
      ...(r.failingMessage
        ? ([['failing message', failingLine(r.id, r.failingMessage, now, ctx.followUp)]] as const)
        : []),
      ['paused', r.paused ? `since ${r.paused.at} by ${r.paused.by}` : 'no'],
      ['parked messages', parkedLine(r.id, r.parkedMessageIds, ctx.followUp)],
      ['dead letters', r.deadLetters],
      ['held sends', heldLine(r.heldSendList)],
      ['pending timers', r.pendingTimers.map((t) => `${t.id}@${t.at}`).join(', ') || 0],
      ['pending asks', r.pendingAsks],
      ...(r.halted
        ? ([
            [
              'expires (halted, or never changed)',
              // No store deletes a paused record (deletableAt): it can go once resumed.
              r.paused ? `${r.halted}, not while paused` : r.halted,
            ],
          ] as const)
        : []),
      ...(schema === undefined
        ? []
        : ([['state valid', schema === true ? 'yes' : schema]] as const)),
      ['state', JSON.stringify(r.state)],
    ]),
  );
}

/** How many parked messages `actors get` names on its line (`--json` lists every one). */
const PARKED_SHOWN = 3;

/** `actors get`'s line of parked messages: how many, the first ones' ids, and how to see one. */
function parkedLine(id: string, ids: readonly string[], follow: FollowUp): string | 0 {
  if (ids.length === 0) return 0;
  const named = ids.slice(0, PARKED_SHOWN).map(shellQuote).join(', ');
  const more =
    ids.length > PARKED_SHOWN ? `, and ${ids.length - PARKED_SHOWN} more (--json lists each)` : '';
  return `${ids.length}, in the order a resume applies them: ${named}${more} — ${follow`dead-letters show ${id} ${ids[0]!}`} shows one`;
}

/** How many held sends `actors get` names on its line (`--json` lists every one). */
const HELD_SHOWN = 5;

/**
 * `actors get`'s line of held sends: how many, and the oldest ones' targets, ages and whether
 * their targets have them (such a send waits only for a sweep to retire it).
 */
function heldLine(
  sends: ReadonlyArray<{ to: string; name: string; age: string; delivered: boolean | null }>,
): string | 0 {
  if (sends.length === 0) return 0;
  const named = sends.slice(0, HELD_SHOWN).map((s) => {
    const where = `${s.name} to ${s.to}`;
    if (s.delivered === true) return `${where}, delivered ${s.age} ago: a sweep retires it`;
    return `${where}, ${s.delivered === false ? 'not delivered yet, ' : ''}waiting ${s.age}`;
  });
  const more =
    sends.length > HELD_SHOWN ? `, and ${sends.length - HELD_SHOWN} more (--json lists each)` : '';
  return `${sends.length}: ${named.join('; ')}${more}`;
}

/**
 * `actors get`'s line of a failing message: what holds the actor, since when, what failed it,
 * and how to end it (or who ended it).
 */
function failingLine(
  actorId: string,
  { messageId, inboxPosition, attempts, since, handler, error, ended }: FailingJson,
  now: number,
  follow: FollowUp,
): string {
  const where = handler === null ? '' : ` in handler ${JSON.stringify(handler)}`;
  const waits = ended
    ? `ended by ${ended.by} at ${ended.at}: its next delivery keeps it as a dead letter, its handler not run, and the actor's later messages follow`
    : `the actor's later messages wait until it is applied or dead-lettered (at a worker's maxAttempts, ${DEFAULT_MAX_ATTEMPTS} by default), or ended (${follow`actors end-failing ${actorId} ${messageId}`})`;
  const cause = error
    ? `its last error: ${errorLine(error)}`
    : 'the worker\'s log has its error ("message will be retried", with this messageId)';
  return `${messageId} at inbox position ${inboxPosition}, ${failingFor(since, now)}, failed ${attempts} time(s)${where}: ${waits}; ${cause}`;
}

/** `baton actors list <type>`: the type's actors, a page at a time. */
export async function actorsList(ctx: OpsContext): Promise<void> {
  const type = ctx.arg(0, 'type');
  if (parseActorId(type)) {
    // Listed as a type, an id matches no actor: an empty table that reads as "none".
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `it takes an actor type (${parseActorId(type)?.type}), not an actor id: ${ctx.followUp`actors get ${type}`} shows that actor`,
    );
  }
  // A type --app does not define is refused before the scan (of the whole table, for none).
  await knownType(ctx, type, {
    again: (near) => ctx.followUp`actors list ${near}`,
    after: '',
    instead:
      'Nothing was read. To list the actors of a type another version of the app defined, leave out --app',
  });
  const { dynamodb, names } = await ctx.target();
  const limit = limitOption(ctx.values.limit, 50);
  const page = await listActors(dynamodb, names.table, type, {
    limit,
    ...(ctx.values.cursor ? { cursor: ctx.values.cursor } : {}),
  });
  const result = actorSummaries(page);
  ctx.print(result, (r) =>
    [
      r.actors.length === 0 && !r.cursor && !ctx.values.cursor
        ? `no actors of type ${type} (an actor type is the name its actor() definition gives${ctx.values.app ? '' : CHECK_TYPE})`
        : table(r.actors, ['id', 'version', 'inboxPosition', 'paused', 'parked']),
      ...(r.cursor ? [`more: ${nextPage(ctx, type, r.cursor)}`] : []),
    ].join('\n'),
  );
}

/** The command of `actors list`'s next page: the same type and `--limit`, from `cursor`. */
function nextPage(ctx: OpsContext, type: string, cursor: string): string {
  const limit = ctx.values.limit;
  return limit === undefined
    ? ctx.followUp`actors list ${type} --cursor ${cursor}`
    : ctx.followUp`actors list ${type} --limit ${limit} --cursor ${cursor}`;
}

/**
 * `baton actors pause <type/key> [--app <entry>] [--force]`: it processes nothing until resumed;
 * its messages wait. An id of no record, or of a type `--app` lacks, is refused as a typo
 * (`knownActor`) unless `--force`, which pauses an actor before its first turn too.
 */
export async function actorsPause(ctx: OpsContext): Promise<void> {
  const id = actorArg(ctx, 0);
  const force = ctx.values.force === true;
  if (!force) {
    await knownActor(ctx, id, {
      again: (near) => ctx.followUp`actors pause ${near}`,
      force:
        'To pause it all the same (to hold the messages about to come to an actor before its first turn), pass --force',
    });
  }
  await ctx.confirm(`pause ${id}? Its messages wait until it is resumed`);
  const { store } = await ctx.target();
  const queue = await ctx.inboxOf(id);
  // Forced, an id with no record is paused, and said so: if it was a typo, the actor meant runs.
  const known = !force || (await store.load(id)) !== undefined;
  const by = await ctx.operator();
  const now = ctx.io.now();
  const options = { by, now, followUp: ctx.followUp, force };
  // A forced pause drops a failing message's count: the audit line says so.
  const forced = force ? { force: true } : {};
  const record = await pauseActor(store, queue, id, options).catch(async (error: unknown) => {
    if (isBatonError(error) && error.code === ErrorCode.INVALID_STATE) {
      throw forcedPauseHint(ctx, id, error);
    }
    // Paused, its wake-up not sent (SQS failed): the pause stands, so it is audited, and said.
    const paused = (await store.load(id))?.paused;
    if (paused?.by !== by || paused.at !== now) throw error;
    await ctx.audit('actors pause', { actor: id, ...forced, wakeUp: 'failed' });
    throw new BatonError(
      ErrorCode.RETRYABLE,
      `${id} is paused, but the command failed after pausing it (${(error as Error).message}), so its wake-up may not have been sent: a worker holding it warm may run one more batch, whose commit the pause refuses. Run ${ctx.followUp`actors pause ${id}`} again: it sends the wake-up again and changes nothing else`,
      { details: { actor: id, paused: pauseJson(paused) } },
    );
  });
  const since = record.paused?.at ?? now;
  const paused = pauseJson(record.paused);
  // Paused already (by this operator or another): the pause stands as it was, nothing changed.
  if (record.paused?.by !== by || since !== now) {
    ctx.print(
      { actor: id, paused, hadRecord: known, alreadyPaused: true },
      () =>
        `${id} was paused already, since ${isoTime(since)} by ${record.paused?.by}: nothing changed`,
    );
    return;
  }
  await ctx.audit('actors pause', { actor: id, ...forced });
  ctx.print(
    { actor: id, paused, hadRecord: known },
    () =>
      `${id} paused by ${record.paused?.by}` +
      (known
        ? ''
        : `\nnote: ${id} had no record: it never committed a turn. If you meant another actor, resume this one and pause that (${ctx.followUp`actors list ${typeOf(id)}`})`),
  );
}

/**
 * The engine's refusal to pause an actor whose head message fails, as the CLI says it: its way
 * past it is the command with --force, not the library's option the engine names for its
 * callers (`pauseActor`'s `force`).
 */
function forcedPauseHint(ctx: OpsContext, id: string, error: BatonError): BatonError {
  const library = "pass --force (pauseActor's force)";
  if (!error.message.endsWith(library)) return error;
  const message = `${error.message.slice(0, -library.length)}pass --force: ${ctx.followUp`actors pause ${id} --force`}`;
  return new BatonError(error.code, message, { details: error.details, cause: error });
}

/** `baton actors resume <type/key>`: applies what waited, in order, then goes on. */
export async function actorsResume(ctx: OpsContext): Promise<void> {
  const id = actorArg(ctx, 0);
  const { store } = await ctx.target();
  const queue = await ctx.inboxOf(id);
  const record = await store.load(id);
  const paused = record?.paused !== undefined;
  const parked = (await store.listDeadLetters(id)).filter((l) => l.parked !== undefined).length;
  // An id with no record is as likely a typo as an actor that never ran: said so.
  if (!record && parked === 0) throw noRecord(id, 'holds nothing to resume', ctx.followUp);
  // Not paused with messages parked: an earlier resume whose wake was lost. Woken again.
  if (!paused && parked === 0) {
    throw new BatonError(
      ErrorCode.INVALID_STATE,
      `${id} is not paused: nothing to resume (${ctx.followUp`actors get ${id}`} shows its state)`,
      { details: { actor: id } },
    );
  }
  await ctx.confirm(
    parked === 0
      ? `resume ${id}? It applies its messages again, as they come`
      : `resume ${id}? It applies the ${parked} message(s) parked meanwhile first, in order`,
  );
  const by = await ctx.operator();
  await resumeActor(store, queue, id, { by, now: ctx.io.now() });
  await ctx.audit('actors resume', { actor: id, parked });
  ctx.print({ actor: id, resumed: true, parkedToApply: parked }, () =>
    parked === 0
      ? `${id} resumed; it applies its messages again, as they come`
      : `${id} resumed; it applies the ${parked} message(s) parked meanwhile first, in order`,
  );
}
