/**
 * Firing durable timers: a due timer enters its actor's inbox as a small message naming the
 * timer and its scheduling (`gen`). The turn that handles it reads the timer back and removes
 * it in the same commit, so a fire sent twice — by the armed path and the sweeper, or after a
 * crash — or the fire of a cancelled timer is skipped, never applied.
 */
import { encodeEnvelope, TIMER, timerMessageId } from '../adapter/envelope.ts';
import type { QueueMessage, TimerQueue, TurnQueue } from '../adapter/ports.ts';
import type { ActorRecord, Timer, TimerRef } from '../adapter/storedRecords.ts';
import type { Engine } from './createEngine.ts';

/** The inbox message that fires one scheduling of a timer (its payload is read from the store). */
export function timerFire(timer: TimerRef): QueueMessage {
  const id = timerMessageId(timer.actorId, timer.id, timer.gen);
  const body = encodeEnvelope({
    id,
    from: TIMER,
    seq: 0,
    to: timer.actorId,
    name: timer.name,
    payload: null,
    sentAt: timer.at,
    timer: { id: timer.id, gen: timer.gen },
  });
  return { group: timer.actorId, dedupeId: id, body };
}

/** Sends the fires of `timers` into the inbox. */
export async function fireTimers(queue: TurnQueue, timers: readonly TimerRef[]): Promise<void> {
  if (timers.length > 0) await queue.send(timers.map(timerFire));
}

/** Timers read from the store at a time, soonest first. */
const PAGE = 500;

/**
 * Pages of the stored timers due at or before `before` (and after `after`), soonest first, each
 * timer once: the next page starts at the last one's due time, so ties with it are read again
 * and skipped. Stops after a short page, or after the page during which `deadline` (epoch ms, by
 * the engine's clock) passed: the first page is read whatever the time, a timer past the last
 * one waits for the next call.
 */
async function* duePages(
  engine: Engine,
  before: number,
  after: number | undefined,
  deadline: number,
): AsyncGenerator<Timer[]> {
  const key = (timer: TimerRef) => timerMessageId(timer.actorId, timer.id, timer.gen);
  // The timers due at the last page's last time: the only ones the next page reads again.
  let seen = new Set<string>();
  let from = after;
  for (;;) {
    const page = await engine.store.listDueTimers(before, PAGE, from);
    const fresh = page.filter((timer) => !seen.has(key(timer)));
    if (fresh.length > 0) yield fresh;
    if (page.length < PAGE || fresh.length === 0 || engine.clock.now() >= deadline) return;
    const last = page[page.length - 1]!.at;
    seen = new Set(page.filter((timer) => timer.at === last).map(key));
    from = last - 1;
  }
}

/**
 * Fires every stored timer due at or before `before` (epoch ms), page by page until `deadline`:
 * what the sweeper does for timers whose arming was lost, and the embedded runtime for all of
 * them. A fire sent twice is skipped by its turn.
 * @returns how many it fired
 */
export async function fireDueTimers(
  engine: Engine,
  before: number,
  deadline = Infinity,
): Promise<number> {
  let fired = 0;
  for await (const due of duePages(engine, before, undefined, deadline)) {
    await fireTimers(engine.queue, due);
    fired += due.length;
  }
  return fired;
}

/** The timers of `timers` that `queue` can hold now: due within its reach (all, without one). */
export function withinReach<T extends TimerRef>(
  timers: readonly T[],
  queue: TimerQueue,
  now: number,
): readonly T[] {
  const { reachMs } = queue;
  return reachMs === undefined ? timers : timers.filter((timer) => timer.at - now <= reachMs);
}

/**
 * Arms the stored timers that come within `queue`'s reach in a window of `windowMs` ending at
 * the reach: due in (now + reach − window, now + reach], and scheduled further ahead than the
 * reach (a turn armed the others). Run every sweep, with a window of at least two sweeps'
 * interval, it arms each such timer once or twice — and a missed sweep loses nothing. Pages of
 * them until `deadline`; one it did not reach is armed by the next sweep, whose window overlaps,
 * or fired by the sweeper once overdue.
 * @returns how many it armed
 */
export async function armComingTimers(
  engine: Engine,
  queue: TimerQueue,
  now: number,
  windowMs: number,
  deadline = Infinity,
): Promise<number> {
  const { reachMs } = queue;
  if (reachMs === undefined) return 0;
  const upTo = now + reachMs;
  let armed = 0;
  for await (const coming of duePages(engine, upTo, upTo - windowMs, deadline)) {
    // One scheduled within reach was armed by its turn.
    const later = coming.filter((timer) => timer.at - timer.createdAt > reachMs);
    if (later.length > 0) await queue.arm(later);
    armed += later.length;
  }
  return armed;
}

/**
 * Stored timers a halting commit removes at most, the soonest, besides the one its message fires;
 * the others are left to be skipped, and removed, when they fire ({@link isVoid}). Those the
 * pending commit puts are removed too while the halt shares its commit; a halt that needs one of
 * its own (they are then stored) removes the fired timer and these alone, so that it fits.
 */
export const HALT_TIMER_REMOVALS = 25;

/**
 * What a timer's fire (or an ask's reply) kept as a letter leaves, dead-lettered or parked at a
 * paused actor: the letter names that scheduling of the timer, and the timer stays, marked and
 * due no more, so that a cancel, a new scheduling of its id or a halt before the letter is
 * applied still means the fire never runs (the letter is then forgotten, see `redriven`).
 */
export function heldFire(fires: Timer | undefined) {
  return (
    fires && {
      timer: { id: fires.id, gen: fires.gen },
      timers: new Map([[fires.id, { ...fires, deadLettered: true as const }]]),
    }
  );
}

/**
 * Whether `timer` belongs to an earlier life of the actor, or was scheduled before it last
 * halted: its fire is skipped, and the timer removed.
 */
export function isVoid(record: ActorRecord, timer: Timer): boolean {
  return timer.life !== record.life || (timer.epoch ?? 0) !== (record.timerEpoch ?? 0);
}

/** `timers` as a handling of `record` schedules them: stamped with its life and halts. */
export function stamped(
  record: ActorRecord,
  timers: ReadonlyMap<string, Timer | null>,
): Map<string, Timer | null> {
  const stamp = {
    ...(record.life && { life: record.life }),
    ...(record.timerEpoch && { epoch: record.timerEpoch }),
  };
  const out = new Map<string, Timer | null>();
  for (const [id, timer] of timers) out.set(id, timer && { ...timer, ...stamp });
  return out;
}
