/**
 * The checks `ctx` puts a run's arguments through before it issues a command: a command's name,
 * a compensation, a wait's timeout and a sleep's duration. Each refuses bad input with
 * INVALID_ARGUMENT, saying what it takes; none reads the replay, so they sit apart from
 * `ReplayContext.ts`, which issues the commands.
 */
import { BatonError, ErrorCode } from '../errors.ts';
import type { WaitOptions } from './WorkflowContext.ts';

/** A step's or a call's `compensate`, checked: INVALID_ARGUMENT unless a function. */
export function checkCompensate(where: string, compensate: unknown): void {
  if (compensate !== undefined && typeof compensate !== 'function') {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `${where}: { compensate } must be a function (reply, saga) => …, got ${typeof compensate}`,
    );
  }
}

/** A wait's `timeoutMs`, checked: INVALID_ARGUMENT unless a number of ms > 0. */
export function checkTimeout({ timeoutMs }: WaitOptions): number | undefined {
  if (
    timeoutMs !== undefined &&
    (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0)
  ) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `{ timeoutMs } must be a number of ms > 0, got ${String(timeoutMs)}`,
    );
  }
  return timeoutMs;
}

/** A command's name, checked: INVALID_ARGUMENT unless 1 to 200 characters. */
export function checkName(where: string, name: unknown): void {
  if (typeof name !== 'string' || name.length === 0 || name.length > 200) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `${where}(name, …) needs a name of 1 to 200 characters, got ${JSON.stringify(name)}`,
    );
  }
}

/** What `ctx.race` takes, checked: INVALID_ARGUMENT unless an array of one or more entries. */
export function checkRaced(commands: unknown): void {
  if (!Array.isArray(commands) || commands.length === 0) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `ctx.race([...]) needs one or more of ctx's promises to race, got ${Array.isArray(commands) ? 'none' : typeof commands}: a race of nothing would never settle`,
    );
  }
}

/** The latest time a `Date` holds (the year 275760), epoch ms. */
const LATEST_DATE_MS = 8.64e15;

/**
 * When a `ctx.sleep(duration)` is due, epoch ms: INVALID_ARGUMENT unless ms ≥ 0 or a valid Date,
 * due by the latest time a `Date` holds (so that the sleep can be shown as a date).
 */
export function dueAt(when: number | Date, now: number): number {
  const at = when instanceof Date ? when.getTime() : now + when;
  if (
    (typeof when !== 'number' && !(when instanceof Date)) ||
    !(at <= LATEST_DATE_MS) ||
    (typeof when === 'number' && when < 0)
  ) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `ctx.sleep(duration) takes ms ≥ 0 or a valid Date, due by ${new Date(LATEST_DATE_MS).toISOString()} at the latest, got ${String(when)}: to wait for good, wait for an event instead`,
    );
  }
  return at;
}
