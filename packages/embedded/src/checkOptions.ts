import { MAX_RECEIVE_MESSAGES, MAX_VISIBILITY_TIMEOUT_MS } from '@baton/core';
import { invalidArgument } from '@baton/core/adapter';

/** Throws unless `value` is an integer ≥ `min` (or undefined when optional). */
export function checkInteger(name: string, value: unknown, min: number): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw invalidArgument(`${name} must be an integer ≥ ${min}, got ${String(value)}`, {
      option: name,
      value,
    });
  }
}

/** Throws unless `value` is a finite number ≥ 0 (or undefined when optional). */
export function checkDuration(name: string, value: unknown): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw invalidArgument(
      `${name} must be a finite number of milliseconds ≥ 0, got ${String(value)}`,
      { option: name, value },
    );
  }
}

/**
 * Throws unless `value` is a visibility timeout SQS takes: a duration of at most
 * `MAX_VISIBILITY_TIMEOUT_MS` (12 hours), or undefined.
 */
export function checkVisibility(name: string, value: unknown): void {
  checkDuration(name, value);
  if (typeof value === 'number' && value > MAX_VISIBILITY_TIMEOUT_MS) {
    throw invalidArgument(
      `${name} must be at most ${MAX_VISIBILITY_TIMEOUT_MS} ms (SQS's longest visibility timeout, 12 hours), got ${value}`,
      { option: name, value },
    );
  }
}

/** Throws unless `value` is a receive's `max` SQS takes: an integer from 1 to 10. */
export function checkReceiveMax(name: string, value: unknown): void {
  checkInteger(name, value, 1);
  if ((value as number) > MAX_RECEIVE_MESSAGES) {
    throw invalidArgument(
      `${name} must be at most ${MAX_RECEIVE_MESSAGES} (SQS's most messages a receive), got ${value}`,
      { option: name, value },
    );
  }
}

/** SQS's shortest message retention: 60 s. */
export const MIN_RETENTION_MS = 60_000;
/** SQS's longest message retention, and the production queues': 14 days. */
export const MAX_RETENTION_MS = 14 * 24 * 60 * 60 * 1000;

/** Throws unless `value` is a message retention SQS takes: 60 s to 14 days (or undefined). */
export function checkRetention(name: string, value: unknown): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !(value >= MIN_RETENTION_MS && value <= MAX_RETENTION_MS)) {
    throw invalidArgument(
      `${name} must be from ${MIN_RETENTION_MS} ms (60 s) to ${MAX_RETENTION_MS} ms (14 days), SQS's message retentions, got ${String(value)}`,
      { option: name, value },
    );
  }
}
