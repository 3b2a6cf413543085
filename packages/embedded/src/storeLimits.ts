import type { StoreLimits } from '@baton/core/adapter';
import { checkInteger } from './checkOptions.ts';

/**
 * DynamoDB's TransactWriteItems limits: 100 items, 4 MB in all, 400 KB per item. The
 * {@link EmbeddedStore}'s defaults.
 *
 * @example
 * const store = new EmbeddedStore({ limits: { ...DYNAMODB_LIMITS, maxTransactionItems: 25 } });
 */
export const DYNAMODB_LIMITS: StoreLimits = Object.freeze({
  maxTransactionItems: 100,
  maxTransactionBytes: 4_000_000,
  maxItemBytes: 400_000,
});

/** Fills in DynamoDB's limits for the ones not given, and checks the given ones. */
export function resolveLimits(limits: Partial<StoreLimits> = {}): StoreLimits {
  checkInteger('limits.maxTransactionItems', limits.maxTransactionItems, 1);
  checkInteger('limits.maxTransactionBytes', limits.maxTransactionBytes, 1);
  checkInteger('limits.maxItemBytes', limits.maxItemBytes, 1);
  checkInteger('limits.outcomePageBytes', limits.outcomePageBytes, 1);
  checkInteger('limits.historyBytes', limits.historyBytes, 1);
  return Object.freeze({ ...DYNAMODB_LIMITS, ...definedOnly(limits) });
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
