import { duration, fields } from './format.ts';
import type { OpsContext } from './OpsContext.ts';

/** How long undrained sends may wait before the sweeper (every minute) counts as behind. */
const SWEEPER_LAG_MS = 2 * 60_000;
/** Timers overdue by this long mean the relay (or sweeper) is behind. */
const TIMER_LAG_MS = 2 * 60_000;
/** At most this many due timers are counted. */
const DUE_TIMERS = 1000;

/** What `baton status` reports: whether the app is healthy, on one screen. */
export interface Status {
  readonly table: string;
  readonly inbox: { readonly url: string; readonly waiting: number; readonly inFlight: number };
  /** The inbox queue's own dead-letter queue (a message received too often, undecodable). */
  readonly queueDeadLetters: number | null;
  /** The engine's dead letters (DEAD_LETTERED), to inspect and redrive. */
  readonly deadLetters: number;
  readonly oldestDeadLetterAgeMs: number | null;
  /** Messages held for paused actors, and how many actors hold them. */
  readonly parked: { readonly messages: number; readonly actors: number };
  readonly timersDue: number;
  readonly oldestTimerOverdueMs: number | null;
  /** Actors whose committed sends wait undrained past the sweeper's round (it runs every minute). */
  readonly sweeperLag: { readonly actors: number; readonly thresholdMs: number };
  readonly healthy: boolean;
  readonly problems: readonly string[];
}

/** `baton status`: queue depths, dead letters, parked messages, timers due, sweeper lag. */
export async function status(ctx: OpsContext): Promise<void> {
  const { store, queue, deadLetterQueue, names } = await ctx.target();
  const now = ctx.io.now();
  const [counts, queueDead, letters, due, lagging] = await Promise.all([
    queue.approximateCounts(),
    deadLetterQueue?.approximateCounts(),
    store.listDeadLetters(),
    store.listDueTimers(now, DUE_TIMERS),
    store.listOutboxActors(now - SWEEPER_LAG_MS),
  ]);
  const dead = letters.filter((l) => l.parked === undefined);
  const parked = letters.filter((l) => l.parked !== undefined);
  const oldestDead = dead.length > 0 ? now - Math.min(...dead.map((l) => l.at)) : null;
  const oldestDue = due.length > 0 ? now - Math.min(...due.map((t) => t.at)) : null;
  const problems: string[] = [];
  if (dead.length > 0) problems.push(`${dead.length} dead letter(s): baton dead-letters list`);
  if (queueDead) {
    const n = queueDead.visible + queueDead.inFlight;
    if (n > 0) problems.push(`${n} message(s) in the inbox's dead-letter queue`);
  }
  if (lagging.length > 0) problems.push(`${lagging.length} actor(s) with sends undrained`);
  if (oldestDue !== null && oldestDue > TIMER_LAG_MS) problems.push('timers fire late');
  const result: Status = {
    table: names.table,
    inbox: { url: names.inboxUrl, waiting: counts.visible, inFlight: counts.inFlight },
    queueDeadLetters: queueDead ? queueDead.visible + queueDead.inFlight : null,
    deadLetters: dead.length,
    oldestDeadLetterAgeMs: oldestDead,
    parked: { messages: parked.length, actors: new Set(parked.map((l) => l.actorId)).size },
    timersDue: due.length,
    oldestTimerOverdueMs: oldestDue,
    sweeperLag: { actors: lagging.length, thresholdMs: SWEEPER_LAG_MS },
    healthy: problems.length === 0,
    problems,
  };
  ctx.print(result, (s) =>
    fields([
      ['table', s.table],
      ['inbox', `${s.inbox.waiting} waiting, ${s.inbox.inFlight} in flight`],
      ['queue dead letters', s.queueDeadLetters ?? 'unknown (no --dead-letter-queue-url)'],
      [
        'dead letters',
        `${s.deadLetters}${s.oldestDeadLetterAgeMs === null ? '' : ` (oldest ${duration(s.oldestDeadLetterAgeMs)} ago)`}`,
      ],
      ['parked', `${s.parked.messages} message(s) of ${s.parked.actors} paused actor(s)`],
      [
        'timers due',
        `${s.timersDue}${s.oldestTimerOverdueMs === null ? '' : ` (oldest ${duration(s.oldestTimerOverdueMs)} overdue)`}`,
      ],
      [
        'sweeper lag',
        `${s.sweeperLag.actors} actor(s) with sends undrained for over ${duration(s.sweeperLag.thresholdMs)}`,
      ],
      ['health', s.healthy ? 'OK' : `ATTENTION — ${s.problems.join('; ')}`],
    ]),
  );
}
