import { describe, expect, it } from 'vitest';
import { checkRetryPolicy, undoRetry } from './retry.ts';

describe('checkRetryPolicy', () => {
  it('takes a maxAttempts that is a whole number ≥ 1, or Infinity', () => {
    for (const maxAttempts of [1, 7, Number.POSITIVE_INFINITY]) {
      expect(() => checkRetryPolicy('retry', { maxAttempts })).not.toThrow();
    }
  });

  it('refuses any other maxAttempts, saying what it takes', () => {
    for (const maxAttempts of [0, -1, 1.5, Number.NaN]) {
      expect(() => checkRetryPolicy('retry', { maxAttempts })).toThrow(
        'retry: invalid retry policy: maxAttempts must be an integer ≥ 1, or Infinity',
      );
    }
  });
});

describe('undoRetry', () => {
  it("puts a step's own policy over the workflow's over 20 attempts, field by field", () => {
    expect(undoRetry(undefined, undefined)).toEqual({ maxAttempts: 20 });
    expect(undoRetry({ initialDelayMs: 5 }, undefined)).toEqual({
      maxAttempts: 20,
      initialDelayMs: 5,
    });
    expect(undoRetry({ maxAttempts: 4, initialDelayMs: 5 }, { maxAttempts: 2 })).toEqual({
      maxAttempts: 2,
      initialDelayMs: 5,
    });
    expect(undoRetry({ maxAttempts: undefined }, undefined)).toEqual({ maxAttempts: 20 });
  });
});
