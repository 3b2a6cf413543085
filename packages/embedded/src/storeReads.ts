/**
 * What the embedded store reads out of its tables beyond one item's lookup: an outcome unless it
 * expired (which reads as absent until a purge drops it), the outcomes on an actor's pages, the
 * dead letters kept, and the timers (an actor's, those due, the soonest). What they give out is
 * a copy, but for `liveIdempotency`, which the store copies or only checks.
 */
import type {
  Clock,
  DeadLetter,
  IdempotencyRecord,
  PagedOutcome,
  Timer,
} from '@baton/core/adapter';
import { deepCopy } from '@baton/core/shared';
import type { StoreTables } from './StoreTables.ts';

/** The outcome of `key` unless it expired (not a copy: the store's own). */
export function liveIdempotency(
  tables: StoreTables,
  clock: Clock,
  key: string,
): IdempotencyRecord | undefined {
  const record = tables.idempotency.get(key);
  return record && record.expiresAt > clock.now() ? record : undefined;
}

/** See `Store.readPagedOutcomes`: the live outcomes on `actorId`'s pages from `fromPage`. */
export function pagedOutcomes(
  tables: StoreTables,
  clock: Clock,
  actorId: string,
  sentAt: number,
  fromPage: number,
): PagedOutcome[] {
  const found: PagedOutcome[] = [];
  for (const [number, page] of tables.pages.get(actorId) ?? []) {
    if (number < fromPage || page.sentAt < sentAt) continue;
    for (const [key, at] of page.keys) {
      const record = liveIdempotency(tables, clock, key);
      if (record) found.push({ ...deepCopy(record), sentAt: at });
    }
  }
  return found;
}

/** The dead letters kept (not applied by a redrive) of `actorId`, or of all, oldest first. */
export function deadLettersOf(tables: StoreTables, actorId?: string): DeadLetter[] {
  const lists =
    actorId === undefined ? [...tables.deadLetters.values()] : [tables.deadLetters.get(actorId)];
  return lists
    .flatMap((letters) => [...(letters?.values() ?? [])])
    .filter((letter) => !letter.applied)
    .sort((a, b) => a.at - b.at)
    .map((letter) => deepCopy(letter));
}

/** The timers of `actorId`, soonest first. */
export function timersOf(tables: StoreTables, actorId: string): Timer[] {
  return soonestFirst([...(tables.timers.get(actorId)?.values() ?? [])]);
}

/** See `Store.listDueTimers`: timers due by `before`, after `after`, soonest first. */
export function dueTimers(
  tables: StoreTables,
  before: number,
  limit: number,
  after: number,
): Timer[] {
  const due = [...tables.timers.values()].flatMap((timers) =>
    [...timers.values()].filter(
      (timer) => timer.at <= before && timer.at > after && !timer.deadLettered,
    ),
  );
  return soonestFirst(due).slice(0, limit);
}

/** See `EmbeddedStore.nextTimerAt`. */
export function nextTimerAt(
  tables: StoreTables,
  skip?: (timer: Timer) => boolean,
): number | undefined {
  let next: number | undefined;
  for (const timers of tables.timers.values()) {
    for (const timer of timers.values()) {
      if (timer.deadLettered || (next !== undefined && timer.at >= next) || skip?.(timer)) continue;
      next = timer.at;
    }
  }
  return next;
}

const soonestFirst = (timers: Timer[]): Timer[] =>
  timers.sort((a, b) => a.at - b.at).map((timer) => deepCopy(timer));
