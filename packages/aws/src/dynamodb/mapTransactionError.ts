import type { CancellationReason } from '@aws-sdk/client-dynamodb';
import type { BatonError } from '@baton/core';
import type { Commit, StoreLimits } from '@baton/core/adapter';
import {
  duplicateKeys,
  jsonSize,
  pageEntriesBytes,
  pageItemBytes,
  transactionTooLarge,
  versionConflict,
} from '@baton/core/adapter';
import { awsErrorName, unavailable } from '../internal/unavailable.ts';
import { type Item, itemToRecord } from './itemCodec.ts';
import { keysInPage } from './outcomePages.ts';

/**
 * Maps a failed commit's `TransactWriteItems` (or single-item `PutItem`) error into the core's
 * error model. The transaction's items are, in order: the actor record, the outbox items, the
 * idempotency records — so `CancellationReasons[i]` speaks of item `i`.
 *
 * | DynamoDB says                                   | Baton error                              |
 * | ----------------------------------------------- | ---------------------------------------- |
 * | record: ConditionalCheckFailed                  | VERSION_CONFLICT with the stored record  |
 * | PutItem: ConditionalCheckFailedException        | VERSION_CONFLICT with the stored record  |
 * | idempotency record: ConditionalCheckFailed      | DUPLICATE naming those keys              |
 * | outcome page: ConditionalCheckFailed            | DUPLICATE naming the keys it holds       |
 * | any item: TransactionConflict                   | VERSION_CONFLICT (the engine reloads)    |
 * | IdempotentParameterMismatch, TransactionInProgress | VERSION_CONFLICT (the engine reloads) |
 * | ValidationException about size or item count    | TRANSACTION_TOO_LARGE naming the limit   |
 * | anything else (throttling, network, no table)   | UNAVAILABLE (retryable), with the cause  |
 *
 * @example
 * try {
 *   await client.send(new TransactWriteItemsCommand(input));
 * } catch (error) {
 *   throw mapTransactionError(error, commit, store.limits);
 * }
 */
export function mapTransactionError(
  error: unknown,
  commit: Commit,
  limits: StoreLimits,
  now: number = Date.now(),
): BatonError {
  const actorId = commit.record.id;
  const name = awsErrorName(error);
  if (name === 'TransactionCanceledException') {
    const reasons = reasonsOf(error);
    const record = reasons[0];
    if (conditionFailed(record)) {
      return versionConflict(actorId, record.Item ? itemToRecord(record.Item) : undefined);
    }
    const firstKey = 1 + commit.outbox.length;
    const used = commit.idempotency
      .filter((_, i) => conditionFailed(reasons[firstKey + i]))
      .map((r) => r.key);
    const page = commit.outcomes?.records.length ? reasons[pageIndex(commit)] : undefined;
    if (commit.outcomes && conditionFailed(page)) {
      // The stored page as it was: which of the commit's keys it holds, live.
      used.push(...keysInPage(page.Item ?? {}, commit.outcomes, now));
    }
    if (used.length > 0) return duplicateKeys(used);
    if (reasons.some((r) => r.Code === 'TransactionConflict')) return versionConflict(actorId);
    const invalid = reasons.find((r) => r.Code === 'ValidationError');
    const mapped = invalid && tooLarge(invalid.Message ?? '', commit, limits);
    if (mapped) return mapped;
    const throttled = reasons.some((r) => THROTTLED.has(r.Code ?? ''));
    return unavailable('DynamoDB', 'TransactWriteItems', error, throttled);
  }
  if (name === 'ConditionalCheckFailedException') {
    // A single-item commit (PutItem): only the record has a condition.
    const item = (error as { Item?: Item }).Item;
    return versionConflict(actorId, item ? itemToRecord(item) : undefined);
  }
  if (
    name === 'IdempotentParameterMismatchException' ||
    name === 'TransactionInProgressException'
  ) {
    return versionConflict(actorId);
  }
  if (name === 'ValidationException') {
    const message = error instanceof Error ? error.message : '';
    const mapped = tooLarge(message, commit, limits);
    if (mapped) return mapped;
  }
  return unavailable('DynamoDB', 'TransactWriteItems', error);
}

/**
 * Whether a commit that put its outcome page whole (`OutcomePageWrite.begins`) failed only
 * because that page exists, holding no live outcome of the commit's keys: the store then writes
 * it again per outcome. An earlier life of the actor, begun by a Baton that numbered pages from 0,
 * may have left it.
 */
export function pageExistedOnly(error: unknown, commit: Commit, now: number): boolean {
  const outcomes = commit.outcomes;
  if (awsErrorName(error) !== 'TransactionCanceledException' || !outcomes?.records.length) {
    return false;
  }
  const reasons = reasonsOf(error);
  const page = pageIndex(commit);
  return (
    conditionFailed(reasons[page]) &&
    keysInPage(reasons[page]?.Item ?? {}, outcomes, now).length === 0 &&
    reasons.every((reason, i) => i === page || (reason.Code ?? 'None') === 'None')
  );
}

/** A cancelled transaction's reasons, one per item in the commit's order. */
const reasonsOf = (error: unknown): readonly CancellationReason[] =>
  (error as { CancellationReasons?: CancellationReason[] }).CancellationReasons ?? [];

/** Whether a cancellation reason is its item's condition failing. */
const conditionFailed = (reason: CancellationReason | undefined): reason is CancellationReason =>
  reason?.Code === 'ConditionalCheckFailed';

/** Where the outcome page is in a commit's items: after the record, outbox and idempotency. */
function pageIndex(commit: Commit): number {
  return 1 + commit.outbox.length + commit.idempotency.length;
}

const THROTTLED = new Set([
  'ThrottlingError',
  'ProvisionedThroughputExceeded',
  'RequestLimitExceeded',
]);

/** A size or count complaint from DynamoDB, as the limit it names; else undefined. */
function tooLarge(message: string, commit: Commit, limits: StoreLimits): BatonError | undefined {
  if (/item size/i.test(message)) {
    return transactionTooLarge('maxItemBytes', limits.maxItemBytes, largestItem(commit));
  }
  if (/transaction.*size|size.*transaction|request size/i.test(message)) {
    return transactionTooLarge(
      'maxTransactionBytes',
      limits.maxTransactionBytes,
      totalBytes(commit),
    );
  }
  if (/length less than or equal to|too many items|item count/i.test(message)) {
    return transactionTooLarge(
      'maxTransactionItems',
      limits.maxTransactionItems,
      pageIndex(commit),
    );
  }
  return undefined;
}

/** The commit's items' sizes as the engine measures them, its outcome page's (appended) too. */
function sizes(commit: Commit): number[] {
  const items = [commit.record, ...commit.outbox, ...commit.idempotency].map((item) =>
    jsonSize(item),
  );
  const appended = pagedEntries(commit);
  if (appended !== undefined) items.push(pageItemBytes(appended));
  return items;
}

/**
 * The largest item: the outcome page counts whole, the entries it held with those appended,
 * when the record says (the page is still open after the commit, its bytes all its entries').
 */
function largestItem(commit: Commit): number {
  const largest = Math.max(...sizes(commit));
  const state = commit.record.outcomePage;
  if (pagedEntries(commit) === undefined || state?.page !== commit.outcomes?.page) return largest;
  return Math.max(largest, pageItemBytes(state?.bytes ?? 0));
}

function totalBytes(commit: Commit): number {
  return sizes(commit).reduce((a, b) => a + b, 0);
}

/** The summed entry bytes of the outcomes the commit appends to its page, if it appends any. */
function pagedEntries(commit: Commit): number | undefined {
  const records = commit.outcomes?.records ?? [];
  if (records.length === 0) return undefined;
  return commit.measured?.outcomes ?? pageEntriesBytes(records);
}
