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
