import { listHeldActors } from '@baton/aws';
import { SWEEPER_LAG_ALARM_MS } from '@baton/aws/lambda';
import { BatonError, toBatonError } from '@baton/core';
import { batonCommand } from '@baton/core/engine';
import { duration, isoTime, itemBoundOption } from './format.ts';
import type { OpsContext } from './OpsContext.ts';
import { listPaused, parkedByActor } from './pausedLines.ts';
import { type QueueHealth, readQueues } from './queues.ts';
import type { StatusReport } from './StatusReport.ts';
import { atLeast, DEAD_LETTER_QUEUE, humanStatus, PAUSED_UNREAD } from './statusText.ts';
import { failingLine, stuckActors, stuckProblem } from './stuckActors.ts';
import { type FollowUp, type Target, targetFlags } from './target.ts';

/**
 * How long held sends may wait before the sweeper counts as behind: as long as BatonApp's alarm
 * lets them. An actor keeps its sends after their drain until its next commit or a sweep retires
 * them, so an idle actor's wait for the sweeper whether drained or not.
 */
const SWEEPER_LAG_MS = SWEEPER_LAG_ALARM_MS;
/** Timers overdue by this long mean the relay (or sweeper) is behind. */
const TIMER_LAG_MS = 2 * 60_000;
/** An inbox message this old means the workers are behind (or stopped). */
const INBOX_AGE_MS = 5 * 60_000;
/** At most this many due timers are counted. */
const DUE_TIMERS = 1000;
/**
 * Unless `--limit`: at most this many entries each read of the table takes — of the index for
 * dead letters (parked messages too) and for undrained sends, of the table for paused actors
 * and workflow instances (no index finds a pause) — so a big table is not paged for minutes.
 */
export const STATUS_READ_ITEMS = 10_000;
/** What `unchecked` says of the inbox when only the table is named. */
const INBOX_UNNAMED =
  'the inbox queue, its depth and whether it is behind (--queue-url or BATON_INBOX_URL)';

/**
 * The exit code of a `baton status` whose health line says ATTENTION (`healthy: false`): it
 * read what it could and found a problem. Not 1, which says the command failed (it could not
 * read the table, say), nor 2, a usage error: a script or a pager tells the three apart. What it
 * did not check (`unchecked`) alone leaves it 0, as its health line says OK.
 */
export const UNHEALTHY_EXIT = 3;

/**
 * `baton status [--limit n]`: queue depths and ages, dead letters, parked messages, paused
 * actors and workflow instances, timers due, sweeper lag; exits {@link UNHEALTHY_EXIT} when
 * it finds a problem.
 */
export async function status(ctx: OpsContext): Promise<number> {
  const readBound = itemBoundOption(
    ctx.values.limit,
    STATUS_READ_ITEMS,
    'the entries each read of the table takes',
  );
  await ctx.checkNamedInbox();
  // Its lines name each command bare, and the target options once, on their own line: repeated
  // in each of a dozen hints, they buried what the health line says. --json's commands are whole.
  const follow = ctx.json ? ctx.followUp : batonCommand;
  const found = await readStatus(await ctx.target(), ctx.io.now(), follow, readBound);
  ctx.print(found, (s) => humanStatus(s, follow, ctx.io.now(), targetFlags(ctx.values)));
  return found.healthy ? 0 : UNHEALTHY_EXIT;
}

/**
 * What `baton status` (and `baton inspect`'s overview) reports, read afresh; its problems name
 * their next commands with `follow`.
 */
export async function readStatus(
  target: Target,
  now: number,
  follow: FollowUp,
  readBound = STATUS_READ_ITEMS,
): Promise<StatusReport> {
  const { indexReader: store, names } = target;
  const [{ queues, ages, unread }, lettersRead, due, laggingRead, pausedRead] = await Promise.all([
    readQueues(target, now),
    store.listDeadLettersBounded(readBound),
    store.listDueTimers(now, DUE_TIMERS),
    store.listOutboxActorsBounded(now - SWEEPER_LAG_MS, readBound),
    // A pause with no message parked yet has no dead letter to show it: only its record does;
    // a workflow instance a deploy paused, only its state. Not read (a role without
    // dynamodb:Scan) leaves them unchecked, as an unreadable queue is.
    listHeldActors(target.dynamodb, names.table, { maxItems: readBound }).catch((error: unknown) =>
      toBatonError(error),
    ),
  ]);
  const { found: letters, complete: lettersComplete } = lettersRead;
  const { found: lagging, complete: laggingComplete } = laggingRead;
  const bound = readBound.toLocaleString('en-US');
  const { failing: failingFound, ...paused } =
    pausedRead instanceof BatonError
      ? { actors: [], workflows: [], failing: [], complete: false }
      : pausedRead;
  const failing = stuckActors(failingFound);
  const stuck = [...paused.workflows].sort((a, b) => (a.id < b.id ? -1 : 1));
  const inbox = queues.find((q) => q.name === 'inbox');
  /** What a queue holds, waiting or in flight; null for one not read. */
  const held = (name: string) => {
    const queue = queues.find((q) => q.name === name);
    return queue ? queue.waiting + queue.inFlight : null;
  };
  const dead = letters.filter((l) => l.parked === undefined);
  const parked = letters.filter((l) => l.parked !== undefined);
  const oldestDead = dead.length > 0 ? now - Math.min(...dead.map((l) => l.at)) : null;
  const oldestDue = due.length > 0 ? now - Math.min(...due.map((t) => t.at)) : null;
  const queueDeadLetters = held(DEAD_LETTER_QUEUE);
  const streamFailures = held('stream failures');
  const timerDeadLetters = held('timer dead letters');
  const problems: string[] = [];
  if (dead.length > 0) {
    problems.push(
      `${atLeast(dead.length, lettersComplete)} dead letter(s): ${follow`dead-letters list`}`,
    );
  }
  if (queueDeadLetters) {
    problems.push(
      `${queueDeadLetters} message(s) in the inbox's dead-letter queue: ${follow`queue-dead-letters list`}`,
    );
  }
  if (streamFailures) {
    problems.push(
      `${streamFailures} table change(s) the stream function gave up on: live queries may have missed pushes (see its logs)`,
    );
  }
  if (timerDeadLetters) {
    problems.push(
      `${timerDeadLetters} timer message(s) the relay gave up on: the timers stay stored and the sweeper fires them late (see the relay's logs; docs/operations.md)`,
    );
  }
  if (inbox && inbox.oldestAgeMs !== null && inbox.oldestAgeMs > INBOX_AGE_MS) {
    problems.push(inboxBehind(inbox, inbox.oldestAgeMs, follow));
  }
  // Each names an actor to look at: the operator has no list of them across the table.
  const [first] = lagging;
  if (first !== undefined) {
    problems.push(
      `${atLeast(lagging.length, laggingComplete)} actor(s) holding sends no sweep retired, e.g. ${first} (${follow`actors get ${first}`} shows them, and which ones their targets have already; ${follow`backlog`} names the targets still waiting): the next sweep retires them, sending again any not sent; if they stay, see DrainFailuresAlarm (sends refused) and SweeperLagAlarm in docs/operations.md`,
    );
  }
  const stuckHere = stuckProblem(failing, now, INBOX_AGE_MS, follow);
  if (stuckHere) problems.push(stuckHere);
  // A failure's first minutes: retried, not yet a problem, but said beside the OK.
  const watching = stuckHere ? [] : failingLine(failing, now, INBOX_AGE_MS, follow);
  if (stuck.length > 0) {
    problems.push(
      `${stuck.length} workflow instance(s) paused: ${stuck.every((w) => w.threw) ? 'their run threw an unexpected error' : stuck.some((w) => w.threw) ? 'their code does not replay their history, or their run threw an unexpected error' : 'their code does not replay their history'} (${listPaused(stuck, follow).join('; ')}): one a deploy still rolling out paused is replayed on its own within about half an hour; else deploy code that replays them (or fixes what they threw), then resume them (see PausedWorkflowsAlarm in docs/operations.md)`,
    );
  }
  if (oldestDue !== null && oldestDue > TIMER_LAG_MS) {
    const oldest = due.reduce((a, b) => (b.at < a.at ? b : a));
    problems.push(
      `timers fire late: the oldest due is ${oldest.actorId}'s timer ${oldest.id} (${follow`timers list ${oldest.actorId}`}): the sweeper fires them, see SweeperLagAlarm in docs/operations.md`,
    );
  }
  return {
    table: names.table,
    inbox: inbox
      ? {
          url: inbox.url,
          waiting: inbox.waiting,
          inFlight: inbox.inFlight,
          oldestAgeMs: inbox.oldestAgeMs,
        }
      : null,
    queues,
    oldestAges: ages,
    queueDeadLetters,
    streamFailures,
    timerDeadLetters,
    deadLetters: dead.length,
    oldestDeadLetterAgeMs: oldestDead,
    deadLettersComplete: lettersComplete,
    readBound,
    parked: { messages: parked.length, ...parkedByActor(parked.map((l) => l.actorId)) },
    paused: {
      actors: [...paused.actors]
        .sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : 1))
        .map(({ id, at, by }) => ({ id, at: isoTime(at), by })),
      workflows: stuck,
      complete: paused.complete,
    },
    failing,
    timersDue: due.length,
    oldestTimerOverdueMs: oldestDue,
    sweeperLag: { actors: lagging.length, thresholdMs: SWEEPER_LAG_MS, complete: laggingComplete },
    healthy: problems.length === 0,
    problems,
    watching,
    unchecked: [
      ...(inbox ? [] : [INBOX_UNNAMED]),
      ...unread.map(({ name, reason }) => `the ${name} queue, which could not be read (${reason})`),
      ...(paused.complete
        ? []
        : [
            pausedRead instanceof BatonError
              ? `${PAUSED_UNREAD} (${pausedRead.message}): finding them scans the table, which needs dynamodb:Scan`
              : `paused actors, workflow instances and actors stuck on a failing message past the first ${bound} items of the table (--limit raises it; ${follow`actors list <type>`} shows whether each actor of a type is paused, ${follow`workflows list --status paused --app <entry>`} the paused instances)`,
          ]),
      ...(lettersComplete
        ? []
        : [
            `dead letters and parked messages past the first ${bound} entries of the table's index: the counts shown are lower bounds (--limit raises it; ${follow`dead-letters list`} reads them all)`,
          ]),
      ...(laggingComplete
        ? []
        : [
            `actors holding sends no sweep retired past the first ${bound} entries of the table's outbox index, the oldest read first: the count shown is a lower bound (--limit raises it)`,
          ]),
      ...(names.deadLetterQueueUrl
        ? []
        : [
            "the inbox's dead-letter queue (--dead-letter-queue-url or BATON_DEAD_LETTER_QUEUE_URL)",
          ]),
      ...(names.streamFailureQueueUrl
        ? []
        : [
            'the stream failures queue (--stream-failure-queue-url or BATON_STREAM_FAILURE_QUEUE_URL)',
          ]),
      // Timers fire only through the timer queue: its dead letters matter where there is one.
      ...(names.timerQueueUrl === undefined || names.timerDeadLetterQueueUrl
        ? []
        : [
            "the timer queue's dead-letter queue (--timer-dead-letter-queue-url or BATON_TIMER_DEAD_LETTER_QUEUE_URL; a stack names it once redeployed with the current @baton/cdk)",
          ]),
      // Without the age, an inbox that keeps growing (workers stopped) reads as a busy one.
      ...(!inbox || ages === 'cloudwatch'
        ? []
        : [
            `whether the inbox is behind: its oldest message's age is unknown (${ages.unknown}); compare its waiting count a minute apart`,
          ]),
    ],
  };
}

/**
 * The inbox behind, and where to look next by what it holds now: messages in flight are taken
 * by workers, and wait on a handler failing or a worker crashing; waiting ones with none in
 * flight are taken by no worker. (The age is CloudWatch's latest minute, the counts are now.)
 */
function inboxBehind(
  { waiting, inFlight }: Pick<QueueHealth, 'waiting' | 'inFlight'>,
  ageMs: number,
  follow: FollowUp,
): string {
  const behind = `inbox behind: its oldest message is ${duration(ageMs)} old`;
  const docs = 'see InboxAgeAlarm in docs/operations.md';
  if (waiting + inFlight === 0) {
    return `${behind} by CloudWatch's latest minute, and SQS counts none in it now: it may have caught up (run ${follow`status`} again in a minute)`;
  }
  if (inFlight === 0) {
    return `${behind} (${waiting} waiting, none in flight): no worker is taking them — throttled (WorkerThrottlesAlarm, AccountConcurrencyAlarm) or failing (workerErrorsAlarm, the worker's log); ${docs}`;
  }
  return `${behind} (${waiting} waiting, ${inFlight} in flight): a handler that keeps failing holds its actor's later messages — the worker's log names the actor and the error ("message will be retried"), and ${follow`actors get <type/key>`} of that actor shows the message it stops at, the attempts it failed, its handler and error; a worker crashing or timing out raises workerErrorsAlarm; ${docs}`;
}
