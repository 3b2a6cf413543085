import type { Commit, StoreLimits } from '@baton/core';
import { jsonSize, transactionTooLarge } from '@baton/core';
import { checkInteger, invalidArgument } from './invalidArgument.ts';

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
  return Object.freeze({ ...DYNAMODB_LIMITS, ...definedOnly(limits) });
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * Checks a commit's shape and its size against `limits`, the way DynamoDB validates a
 * TransactWriteItems before it looks at any condition. Throws TRANSACTION_TOO_LARGE with
 * `details.what` naming the limit (`maxTransactionItems`, `maxItemBytes`, `maxTransactionBytes`).
 */
export function checkCommit(commit: Commit, limits: StoreLimits): void {
  const { record, expectedVer } = commit;
  if (typeof record?.id !== 'string' || record.id === '') {
    throw invalidArgument('commit.record.id must be a non-empty actor id (`type/key`)');
  }
  if (!Number.isInteger(expectedVer) || expectedVer < 0 || record.ver !== expectedVer + 1) {
    throw invalidArgument(
      `commit.record.ver must be commit.expectedVer + 1 (a non-negative integer): ` +
        `got ver ${String(record.ver)} on expectedVer ${String(expectedVer)} for ${record.id}`,
      { actorId: record.id },
    );
  }
  const keys = new Set<string>();
  for (const idempotency of commit.idempotency) {
    if (keys.has(idempotency.key)) {
      throw invalidArgument(
        `commit for ${record.id} holds the idempotency key ${idempotency.key} twice: ` +
          'put each key once per commit (DynamoDB rejects two writes to one item)',
        { actorId: record.id, key: idempotency.key },
      );
    }
    keys.add(idempotency.key);
  }
  const outboxKeys = new Set<string>();
  for (const item of commit.outbox) {
    const key = `${item.actorId}#${item.seq}`;
    if (outboxKeys.has(key)) {
      throw invalidArgument(
        `commit for ${record.id} holds outbox item ${item.seq} of ${item.actorId} twice: ` +
          'put each outbox item once per commit (DynamoDB rejects two writes to one item)',
        { actorId: item.actorId, seq: item.seq },
      );
    }
    outboxKeys.add(key);
  }

  const items = 1 + commit.outbox.length + commit.idempotency.length;
  if (items > limits.maxTransactionItems) {
    throw transactionTooLarge('maxTransactionItems', limits.maxTransactionItems, items);
  }
  let total = 0;
  for (const item of [record, ...commit.outbox, ...commit.idempotency]) {
    const size = jsonSize(item);
    if (size > limits.maxItemBytes) {
      throw transactionTooLarge('maxItemBytes', limits.maxItemBytes, size);
    }
    total += size;
  }
  if (total > limits.maxTransactionBytes) {
    throw transactionTooLarge('maxTransactionBytes', limits.maxTransactionBytes, total);
  }
}
