/**
 * The words of `baton status`: its human output, and the phrases its lines and its problems
 * share (so a line can tell which check could not be read).
 */
import { duration, fields, table } from './format.ts';
import { parkedLine, pausedLine, pausedWorkflowsLine } from './pausedLines.ts';
import type { StatusReport } from './StatusReport.ts';
import { stuckLine } from './stuckActors.ts';
import type { FollowUp } from './target.ts';

/** What `readQueues` calls the inbox's dead-letter queue. */
export const DEAD_LETTER_QUEUE = 'inbox dead letters';
/** How `unchecked` starts when the scan for paused actors and instances failed. */
export const PAUSED_UNREAD =
  'paused actors with no message parked, paused workflow instances and actors stuck on a failing message, which could not be read';

/** A count of a read that may have stopped at its bound: "at least" when it did. */
export const atLeast = (n: number, complete: boolean) => (complete ? `${n}` : `at least ${n}`);

/** The inbox's line in the human output of `status` and `backlog` when only the table is named. */
export const INBOX_LEFT =
  'not read, no inbox named: --queue-url <inbox url> adds it (also BATON_INBOX_URL), or --stack <name>';

/**
 * `baton status`'s human output: one line per part, then the queues' table. Its commands are
 * named as `follow` names them; `flags`, the target options they take to act on the same
 * deployment, are said once after the health line, when any command is named.
 */
export function humanStatus(
  s: StatusReport,
  follow: FollowUp,
  now: number,
  flags: readonly string[] = [],
): string {
  /** What a line of a read that stopped at its bound says after its count. */
  const stopped = (complete: boolean) =>
    complete
      ? ''
      : ` (stopped at the read bound of ${s.readBound.toLocaleString('en-US')} entries; use --limit to see all)`;
  // A scan that failed found nothing: its lines say unknown, not none.
  const unread = s.unchecked.some((u) => u.startsWith(PAUSED_UNREAD));
  const pausedRow = (line: () => string) =>
    unread ? 'unknown (unreadable: see "not checked" below)' : line();
  const rows = s.queues.map((q) => ({
    queue: q.name,
    waiting: String(q.waiting),
    'in flight': String(q.inFlight),
    delayed: String(q.delayed),
    'oldest message': q.oldestAgeMs === null ? 'unknown' : duration(q.oldestAgeMs),
  }));
  const parts: Array<readonly [string, unknown]> = [
    ['table', s.table],
    ['inbox', s.inbox ? `${s.inbox.waiting} waiting, ${s.inbox.inFlight} in flight` : INBOX_LEFT],
    [
      'queue dead letters',
      s.queueDeadLetters ??
        (s.unchecked.some((u) =>
          u.startsWith(`the ${DEAD_LETTER_QUEUE} queue, which could not be read`),
        )
          ? 'unknown (unreadable: see "not checked" below)'
          : 'unknown (no --dead-letter-queue-url)'),
    ],
    [
      'dead letters',
      `${atLeast(s.deadLetters, s.deadLettersComplete)}${s.oldestDeadLetterAgeMs === null ? '' : ` (oldest ${duration(s.oldestDeadLetterAgeMs)} ago)`}${stopped(s.deadLettersComplete)}`,
    ],
    [
      'parked',
      `${s.deadLettersComplete ? '' : 'at least '}${parkedLine(s.parked, follow)}${stopped(s.deadLettersComplete)}`,
    ],
    ['paused', pausedRow(() => pausedLine(s.paused, s.parked, follow, s.readBound))],
    ['paused workflows', pausedRow(() => pausedWorkflowsLine(s.paused, follow, s.readBound))],
    ['failing', pausedRow(() => stuckLine(s.failing, now, s.paused.complete))],
    [
      'timers due',
      `${s.timersDue}${s.oldestTimerOverdueMs === null ? '' : ` (oldest ${duration(s.oldestTimerOverdueMs)} overdue)`}`,
    ],
    [
      'sweeper lag',
      `${atLeast(s.sweeperLag.actors, s.sweeperLag.complete)} actor(s) holding sends no sweep retired for over ${duration(s.sweeperLag.thresholdMs)}${stopped(s.sweeperLag.complete)}`,
    ],
    [
      'health',
      (s.healthy
        ? `OK${s.watching.length > 0 ? ` — watching: ${s.watching.join('; ')}` : ''}`
        : `ATTENTION — ${s.problems.join('; ')}`) +
        (s.unchecked.length > 0 ? ` (not checked: ${s.unchecked.join('; ')})` : ''),
    ],
  ];
  // The target options once, for every command named above: each is named bare.
  if (flags.length > 0 && parts.some(([, v]) => typeof v === 'string' && v.includes('baton '))) {
    parts.push([
      'commands',
      `run each baton command above with these options, to act on this deployment: ${flags.join(' ')}`,
    ]);
  }
  return [
    fields(parts),
    // With the table alone, no queue may be named: no table of them, nor of their ages.
    ...(rows.length === 0
      ? []
      : [
          '',
          table(rows, ['queue', 'waiting', 'in flight', 'delayed', 'oldest message']),
          ...(s.oldestAges === 'cloudwatch'
            ? []
            : [`oldest message age unknown: ${s.oldestAges.unknown}`]),
        ]),
  ].join('\n');
}
