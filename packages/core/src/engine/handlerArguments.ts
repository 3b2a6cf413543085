/**
 * The checks a handler's `ctx` puts its arguments through (a payload's size: `payloadLimit.ts`): a
 * timer's id, when a schedule is due; and how long an ask waits for its reply by default.
 */
import { invalidArgument } from '../errors.ts';

/** How long an ask waits for its reply by default: a day. */
export const DEFAULT_ASK_TIMEOUT_MS = 24 * 60 * 60 * 1000;

/** Timer ids are keys in the store: short, non-empty text. */
const MAX_TIMER_ID_LENGTH = 256;

export function checkTimerId(id: unknown): string {
  if (typeof id !== 'string' || id.length === 0 || id.length > MAX_TIMER_ID_LENGTH) {
    throw invalidArgument(
      `a timer id must be a non-empty string of at most ${MAX_TIMER_ID_LENGTH} characters, got ${JSON.stringify(id)}`,
    );
  }
  return id;
}

/**
 * When `schedule(when)` is due: `when` ms after `now`, or at the `Date` — by the latest time a
 * `Date` holds (8.64e15 ms, the year 275760), so that the timer can be shown as a date.
 */
export function dueAt(when: number | Date, now: number): number {
  const at =
    when instanceof Date
      ? when.getTime()
      : typeof when === 'number' && when >= 0
        ? now + when
        : NaN;
  if (!(at <= 864e13)) {
    throw invalidArgument(
      `ctx.schedule(when, …) needs a delay ≥ 0 ms or a valid Date, got ${typeof when === 'string' ? JSON.stringify(when) : String(when)}`,
    );
  }
  return at;
}
