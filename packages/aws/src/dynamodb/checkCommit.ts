import type { Commit, StoreLimits } from '@baton/core';
import { jsonSize, transactionTooLarge } from '@baton/core';
import { invalidArgument } from '../internal/unavailable.ts';

/**
 * Checks a commit before it goes to DynamoDB, as the embedded store does: its shape (the
 * record's `ver` is `expectedVer + 1`; no item twice, which DynamoDB would refuse) and its
 * size against `limits`, measured with the engine's `jsonSize`. Throws INVALID_ARGUMENT or
 * TRANSACTION_TOO_LARGE naming the limit (`maxTransactionItems`, `maxItemBytes`,
 * `maxTransactionBytes`).
 */
export function checkCommit(commit: Commit, limits: StoreLimits): void {
  const { record, expectedVer } = commit;
  if (typeof record?.id !== 'string' || record.id === '') {
    throw invalidArgument('commit.record.id must be a non-empty actor id (`type/key`)');
  }
  if (!Number.isInteger(expectedVer) || expectedVer < 0 || record.ver !== expectedVer + 1) {
    throw invalidArgument(
      `commit.record.ver must be commit.expectedVer + 1: got ver ${String(record.ver)} on expectedVer ${String(expectedVer)} for ${record.id}`,
      { actorId: record.id },
    );
  }
  const keys = new Set<string>();
  for (const { key } of commit.idempotency) {
    if (keys.has(key)) {
      throw invalidArgument(`commit for ${record.id} holds the idempotency key ${key} twice`, {
        actorId: record.id,
        key,
      });
    }
    keys.add(key);
  }
  const outbox = new Set<string>();
  for (const item of commit.outbox) {
    const key = `${item.actorId}\n${item.seq}`;
    if (!Number.isSafeInteger(item.seq) || item.seq < 0 || outbox.has(key)) {
      throw invalidArgument(
        `commit for ${record.id} holds outbox item ${item.seq} of ${item.actorId} twice or with a bad seq`,
        { actorId: item.actorId, seq: item.seq },
      );
    }
    outbox.add(key);
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
