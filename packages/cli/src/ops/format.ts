/** Human output of the operating commands (aligned tables, durations) and their option values. */
import { BatonError, ErrorCode } from '@baton/core';

/**
 * A time as every `--json` output gives it: an ISO 8601 string in UTC (a duration stays a number
 * of milliseconds, `…Ms`). A message's envelope, printed verbatim, keeps its epoch `sentAt`.
 *
 * @example
 * isoTime(0); // '1970-01-01T00:00:00.000Z'
 */
export const isoTime = (ms: number): string => new Date(ms).toISOString();

/** The most rows a `--limit` may ask a list for. */
const LIMIT_MAX = 1000;

/**
 * The value of `--limit`: a whole number from 1 to 1,000, `fallback` when not given.
 *
 * @example
 * limitOption(ctx.values.limit, 50); // 50, or what --limit says
 */
export function limitOption(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const limit = Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > LIMIT_MAX) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `--limit takes a whole number from 1 to ${LIMIT_MAX}, not "${value}"`,
    );
  }
  return limit;
}

/** The most items `--limit` may ask a read of the table for (`baton backlog`, `baton status`). */
const ITEM_BOUND_MAX = 1_000_000;

/**
 * The value of a `--limit` that bounds reads of the table: a whole number from 1 to 1,000,000,
 * `fallback` when not given; `reads` says what it bounds, for the error.
 *
 * @example
 * itemBoundOption(ctx.values.limit, 10_000, 'the items of the table the scan for failing messages reads');
 */
export function itemBoundOption(
  value: string | undefined,
  fallback: number,
  reads: string,
): number {
  if (value === undefined) return fallback;
  const limit = Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > ITEM_BOUND_MAX) {
    throw new BatonError(
      ErrorCode.INVALID_ARGUMENT,
      `--limit takes a whole number from 1 to ${ITEM_BOUND_MAX.toLocaleString('en-US')} (${reads}), not "${value}"`,
    );
  }
  return limit;
}

/**
 * An aligned text table of `rows` under `columns` (each cell as a string; `—` when absent).
 *
 * @example
 * table([{ actor: 'ledger/p', code: 'DEAD_LETTERED' }], ['actor', 'code']);
 */
export function table(rows: ReadonlyArray<Record<string, unknown>>, columns: readonly string[]) {
  const cells = rows.map((row) => columns.map((c) => cell(row[c])));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((r) => r[i]!.length)));
  const line = (values: readonly string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.toUpperCase())), ...cells.map(line)].join('\n');
}

/** The characters of a payload's JSON a table shows (`--json` gives it whole). */
export const PAYLOAD_COLUMN = 40;

/**
 * `text` on one line, cut to the table's payload column, with `…` where it was cut.
 *
 * @example
 * clipped(JSON.stringify(payload) ?? 'undefined');
 */
export function clipped(text: string): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length <= PAYLOAD_COLUMN ? line : `${line.slice(0, PAYLOAD_COLUMN - 1)}…`;
}

/** `key  value` lines, aligned. */
export function fields(entries: ReadonlyArray<readonly [string, unknown]>): string {
  const width = Math.max(...entries.map(([k]) => k.length));
  return entries.map(([k, v]) => `${k.padEnd(width)}  ${cell(v)}`).join('\n');
}

function cell(value: unknown): string {
  if (value === undefined || value === null || value === '') return '—';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

/** A duration in ms as people read it: `850ms`, `12s`, `3m 4s`, `2h 5m`, `3d 1h`. */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`;
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h ${m % 60}m`;
  return `${Math.floor(h / 24)}d ${h % 24}h`;
}

/**
 * An instant given as ISO 8601 or as a duration back from `now` (`30m`, `2h`, `7d`).
 *
 * @example
 * since('2h', Date.now()); // two hours ago, epoch ms
 */
export function since(value: string, now: number): number | undefined {
  const relative = /^(\d+)(s|m|h|d)$/.exec(value);
  if (relative) {
    const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[relative[2] as 's'];
    return now - Number(relative[1]) * unit;
  }
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : at;
}
