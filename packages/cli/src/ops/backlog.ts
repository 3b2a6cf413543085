/**
 * `baton backlog`: which actors are stuck, and which hold messages Baton records. SQS counts a
 * FIFO queue's messages, not each message group's, so the messages waiting in the inbox are not
 * counted per actor, and an actor hot with those alone is not found here: this lists what Baton
 * itself records per actor — the message its inbox stops at (failing), messages parked while it
 * is paused, its timers due, the sends to it still in their senders' outboxes, and its dead
 * letters — and says what it did not count, and where to find a hot actor.
 */
import { listFailingActors } from '@baton/aws';
import { SWEEPER_LAG_ALARM_MS } from '@baton/aws/lambda';
import { BatonError, ErrorCode, toBatonError } from '@baton/core';
import { errorLine, failingFor } from '../inspectedFailing.ts';
import { type ActorBacklog, BacklogTally } from './actorBacklog.ts';
import { duration, fields, itemBoundOption, limitOption, table } from './format.ts';
import type { OpsContext } from './OpsContext.ts';
import { INBOX_LEFT } from './statusText.ts';
import type { Target } from './target.ts';
import { OUTBOX_SENDERS, TARGET_RECORDS, unappliedSends } from './unappliedSends.ts';

/** Rows shown unless `--top`. */
const TOP = 20;
/** Items of the table the scan for failing messages reads unless `--limit`. */
const SCAN_ITEMS = 10_000;
/** At most this many timers due are read. */
const DUE_TIMERS = 1000;
/**
 * Sends younger than this are being drained; older ones wait on the sweeper (the age
 * `SweeperLagAlarm` fires at).
 */
const UNDRAINED_AFTER_MS = SWEEPER_LAG_ALARM_MS;

/**
 * Where to find an actor hot with messages in the inbox alone, which no read here counts: the
 * worker's metrics have no actor dimension, and its log names an actor only when a turn fails.
 */
const HOT_ACTORS =
  "an actor hot with messages there alone is not listed: the table's Contributor Insights (BatonApp's contributorInsights) names the actors taking the most requests (keys A#<type/key>), and the worker's log the actors whose turns fail (turn failed, message will be retried)";

/** What `baton backlog` reports. */
export interface Backlog {
  readonly table: string;
  /** The inbox as SQS counts it: all actors' messages together; `null` when it is not named. */
  readonly inbox: { readonly waiting: number; readonly inFlight: number } | null;
  /** The actors with anything held or failing, shown (at most `--top`). */
  readonly actors: readonly ActorBacklog[];
  /** How many actors the reads found with anything held or failing. */
  readonly found: number;
  /** What the counts leave out: always the inbox per actor, and each read cut short. */
  readonly notCounted: readonly string[];
}

/** `baton backlog [--top n] [--limit n]`. */
export async function backlog(ctx: OpsContext): Promise<void> {
  const top = topOption(ctx.values.top);
  const scanItems = itemBoundOption(
    ctx.values.limit,
    SCAN_ITEMS,
    'the items of the table the scan for failing messages reads',
  );
  await ctx.checkNamedInbox();
  const result = await readBacklog(await ctx.target(), ctx.io.now(), { top, scanItems });
  ctx.print(result, (b) => humanBacklog(b, ctx, ctx.io.now()));
}

/** Reads what Baton records of each actor's backlog; every read bounded. */
export async function readBacklog(
  target: Target,
  now: number,
  { top, scanItems }: { readonly top: number; readonly scanItems: number },
): Promise<Backlog> {
  const { indexReader: store, names } = target;
  const [counts, scanned, letters, due, undrained] = await Promise.all([
    // Only the table named: the inbox's count is left out, as the output says.
    target.queue?.approximateCounts(),
    // Not read (a role without dynamodb:Scan) leaves them uncounted, as the output says.
    listFailingActors(target.dynamodb, names.table, { maxItems: scanItems }).catch(
      (error: unknown) => toBatonError(error),
    ),
    store.listDeadLetters(),
    store.listDueTimers(now, DUE_TIMERS),
    unappliedSends(target, now - UNDRAINED_AFTER_MS),
  ]);
  const failing = scanned instanceof BatonError ? { actors: [], complete: false } : scanned;
  const tally = new BacklogTally();
  for (const { id, failing: message } of failing.actors) tally.failing(id, message);
  for (const letter of letters) {
    if (letter.parked !== undefined) tally.waiting(letter.actorId, 'parked', letter.at);
    else if (letter.applied === undefined) tally.deadLetter(letter.actorId);
  }
  for (const timer of due) tally.waiting(timer.actorId, 'timersDue', timer.at);
  for (const send of undrained.sends) tally.waiting(send.to, 'undrainedSends', send.at);
  const rows = tally.rows(now);
  const count = (n: number) => n.toLocaleString('en-US');
  return {
    table: names.table,
    inbox: counts ? { waiting: counts.visible, inFlight: counts.inFlight } : null,
    actors: rows.slice(0, top),
    found: rows.length,
    notCounted: [
      counts
        ? `messages in the inbox queue, per actor: SQS counts a FIFO queue's messages, not each message group's (the inbox line gives them all together); a failing actor's later messages wait there, behind its failing message, and ${HOT_ACTORS}`
        : "messages in the inbox queue, which is not named (--queue-url or BATON_INBOX_URL); a failing actor's later messages wait there, behind its failing message",
      `sends committed less than ${duration(UNDRAINED_AFTER_MS)} ago: they are being drained into the inbox`,
      'effect requests waiting in their outboxes',
      ...(scanned instanceof BatonError
        ? [
            `failing messages, which could not be read (${scanned.message}): finding them scans the table, which needs dynamodb:Scan`,
          ]
        : failing.complete
          ? []
          : [
              `failing messages of actors past the first ${count(scanItems)} items of the table (--limit raises it)`,
            ]),
      ...(due.length < DUE_TIMERS ? [] : [`timers due past the first ${count(DUE_TIMERS)}`]),
      ...(undrained.sendersLeft === 0
        ? []
        : [
            `the sends of ${count(undrained.sendersLeft)} more actor(s) whose outbox waits undrained (the ${count(OUTBOX_SENDERS)} oldest were read)`,
          ]),
      ...(undrained.targetsLeft === 0
        ? []
        : [
            `the undrained sends to ${count(undrained.targetsLeft)} more actor(s) (those to the first ${count(TARGET_RECORDS)} were read)`,
          ]),
    ],
  };
}

function humanBacklog(b: Backlog, ctx: OpsContext, now: number): string {
  const rows = b.actors.map((a) => ({
    actor: a.actor,
    waiting: String(a.waiting),
    oldest: a.oldestWaitingAgeMs === null ? undefined : duration(a.oldestWaitingAgeMs),
    failing: a.failing
      ? `${failingFor(a.failing.since, now)}, ${a.failing.attempts} attempt(s)${a.failing.handler ? `, ${a.failing.handler}` : ''}${a.failing.error ? ` — ${errorLine(a.failing.error)}` : ''}`
      : undefined,
    parked: String(a.parked),
    'timers due': String(a.timersDue),
    'undrained sends': String(a.undrainedSends),
    'dead letters': String(a.deadLetters),
  }));
  const shown =
    b.found > b.actors.length ? ` (the first ${b.actors.length}; --top shows more)` : '';
  return [
    fields([
      ['table', b.table],
      [
        'inbox',
        b.inbox
          ? `${b.inbox.waiting} waiting, ${b.inbox.inFlight} in flight, all actors together`
          : INBOX_LEFT,
      ],
      [
        'actors',
        b.found === 0
          ? 'none with a message failing, parked, due, undrained or dead-lettered'
          : `${b.found} with a message failing, parked, due, undrained or dead-lettered${shown}: failing first, then most waiting — ${ctx.followUp`actors get ${b.actors[0]?.actor ?? ''}`} shows ${b.found === 1 ? 'it' : 'the first'}`,
      ],
    ]),
    ...(rows.length === 0
      ? []
      : [
          '',
          table(rows, [
            'actor',
            'waiting',
            'oldest',
            'failing',
            'parked',
            'timers due',
            'undrained sends',
            'dead letters',
          ]),
        ]),
    '',
    `not counted: ${b.notCounted.join('; ')}`,
  ].join('\n');
}

/** `--top`: how many actors to show. */
function topOption(value: string | undefined): number {
  try {
    return limitOption(value, TOP);
  } catch {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `--top takes a whole number from 1 to 1000, not "${value}"`,
    );
  }
}
