import { jsonSize } from '../shared/jsonSize.ts';
import { transactionTooLarge } from './conflicts.ts';
import { invalidArgument } from './invalidArgument.ts';
import { pageEntriesBytes, pageItemBytes } from './outcomePageBytes.ts';
import type { Commit, CommitMeasures, StoreLimits } from './ports.ts';
import type { DeadLetter, OutboxItem, Timer } from './storedRecords.ts';

/**
 * Checks a commit's shape and its size against `limits`, the way DynamoDB validates a
 * TransactWriteItems before it looks at any condition. Every `Store` runs it first, so all
 * backends refuse the same commits with the same errors. Throws TRANSACTION_TOO_LARGE with
 * `details.what` naming the limit (`maxTransactionItems`, `maxItemBytes`, `maxTransactionBytes`).
 *
 * The sizes in `commit.measured` are taken as they are. With `verifyMeasured` (a test run's
 * store) every part is measured anyway, and a measure that differs throws: the engine's
 * bookkeeping of sizes is wrong.
 */
export function checkCommit(
  commit: Commit,
  limits: StoreLimits,
  options: { readonly verifyMeasured?: boolean } = {},
): void {
  check(commit, limits, options.verifyMeasured ? verified : undefined);
}

/**
 * {@link checkCommit} without `verifyMeasured`, as a production store runs it: a store that
 * never verifies calls this one, and its bundle holds no code of the verification.
 */
export function checkCommitAsMeasured(commit: Commit, limits: StoreLimits): void {
  check(commit, limits);
}

/** {@link checkCommit}, its parts' sizes given by `measure` (default: `commit.measured`). */
function check(
  commit: Commit,
  limits: StoreLimits,
  measure?: (commit: Commit) => CommitMeasures,
): void {
  const { record, expectedVer } = commit;
  if (typeof record?.id !== 'string' || record.id === '') {
    throw invalidArgument('commit.record.id must be a non-empty actor id (`type/key`)');
  }
  if (!Number.isInteger(expectedVer) || expectedVer < 0 || record.ver !== expectedVer + 1) {
    throw invalidArgument(
      `commit for ${record.id}: record.ver ${String(record.ver)} is not expectedVer ${String(expectedVer)} + 1 (an integer ≥ 0)`,
      { actorId: record.id },
    );
  }
  const replaced = commit.replaceIdempotency ?? NONE;
  const deadLetters = commit.deadLetters?.put ?? NONE;
  const removed = commit.deadLetters?.remove ?? NONE;
  const paged = commit.outcomes?.records ?? NONE;
  if (
    commit.outcomes &&
    (!Number.isSafeInteger(commit.outcomes.page) || commit.outcomes.page < 0)
  ) {
    throw invalidArgument(
      `commit for ${record.id} appends outcomes to page ${String(commit.outcomes.page)}: a page is a non-negative integer`,
      { actorId: record.id },
    );
  }
  const outcome = repeated(keyOf, commit.idempotency, replaced, paged);
  if (outcome) {
    throw writtenTwice(record.id, `holds the idempotency key ${outcome.key} twice`, {
      key: outcome.key,
    });
  }
  for (const item of record.outbox ?? []) {
    if (item.actorId !== record.id) {
      throw notItsOwn(record.id, 'an outbox item', item.actorId);
    }
  }
  const held = record.outbox ?? NONE;
  for (const item of held) if (!validSeq(item)) throw badOutboxItem(record.id, item);
  for (const item of commit.outbox) if (!validSeq(item)) throw badOutboxItem(record.id, item);
  const twice = repeated(outboxKey, held, commit.outbox);
  if (twice) throw badOutboxItem(record.id, twice);

  const letter = repeated<DeadLetter | string>(idOf, deadLetters, removed);
  if (letter !== undefined) {
    const id = idOf(letter);
    throw writtenTwice(record.id, `writes dead letter ${id} twice`, { messageId: id });
  }
  const overflow = commit.overflow ?? NONE;
  const mark = repeated(markKey, overflow);
  if (mark) {
    throw writtenTwice(record.id, `moves the ${mark.kind} mark of ${mark.peer} out twice`, {
      peer: mark.peer,
    });
  }
  const timers = commit.timers?.put ?? NONE;
  const timersRemoved = commit.timers?.remove ?? NONE;
  const timer = repeated<Timer | string>(idOf, timers, timersRemoved);
  if (timer !== undefined) {
    const id = idOf(timer);
    throw writtenTwice(record.id, `writes timer ${id} twice`, { timer: id });
  }
  for (const kept of [deadLetters, timers] as const) {
    for (const { actorId } of kept) {
      if (actorId !== record.id) throw notItsOwn(record.id, 'a dead letter or timer', actorId);
    }
  }

  // The items the commit writes, each one an item of its own: counted, then measured.
  const written = [commit.outbox, commit.idempotency, replaced, deadLetters, overflow, timers];
  let items = 1 + removed.length + timersRemoved.length + (paged.length > 0 ? 1 : 0);
  for (const list of written) items += list.length;
  if (items > limits.maxTransactionItems) {
    throw transactionTooLarge('maxTransactionItems', limits.maxTransactionItems, items);
  }
  const measured = measure ? measure(commit) : commit.measured;
  let total = sizeChecked(measured?.record ?? jsonSize(record), limits);
  for (const list of written) {
    for (const item of list) total += sizeChecked(jsonSize(item), limits);
  }
  // A page's outcomes are one item: together, as its entries, they must fit it.
  if (paged.length > 0) {
    total += sizeChecked(pageItemBytes(measured?.outcomes ?? pageEntriesBytes(paged)), limits);
  }
  if (total > limits.maxTransactionBytes) {
    throw transactionTooLarge('maxTransactionBytes', limits.maxTransactionBytes, total);
  }
}

/** `size`, the bytes of one item, or TRANSACTION_TOO_LARGE when they pass the item limit. */
function sizeChecked(size: number, limits: StoreLimits): number {
  if (size > limits.maxItemBytes) {
    throw transactionTooLarge('maxItemBytes', limits.maxItemBytes, size);
  }
  return size;
}

/** The commit's parts measured whole, after checking that they are what `measured` says. */
function verified(commit: Commit): CommitMeasures {
  const record = jsonSize(commit.record);
  const outcomes = pageEntriesBytes(commit.outcomes?.records ?? NONE);
  const { measured } = commit;
  if (
    (measured?.record !== undefined && measured.record !== record) ||
    (measured?.outcomes !== undefined && measured.outcomes !== outcomes)
  ) {
    throw new Error(
      `commit for ${commit.record.id} was measured as ${JSON.stringify(measured)}, ` +
        `but its record takes ${record} bytes and its outcomes ${outcomes}`,
    );
  }
  return { record, outcomes };
}

/**
 * The first value in the lists whose key an earlier one has, or undefined. Builds no set for
 * fewer than two values: most commits write a record and an outcome or two.
 */
function repeated<T>(
  keyOf: (value: T) => string,
  first: readonly T[],
  second: readonly T[] = NONE,
  third: readonly T[] = NONE,
): T | undefined {
  if (first.length + second.length + third.length < 2) return undefined;
  const seen = new Set<string>();
  for (const list of [first, second, third]) {
    for (const value of list) {
      const key = keyOf(value);
      if (seen.has(key)) return value;
      seen.add(key);
    }
  }
  return undefined;
}

/** What a commit leaves out, as a list: one shared, never written. */
const NONE: readonly never[] = Object.freeze([]);

const keyOf = (outcome: { readonly key: string }): string => outcome.key;
const outboxKey = (item: OutboxItem): string => `${item.actorId}#${item.seq}`;
const markKey = (mark: { readonly kind: string; readonly peer: string }): string =>
  `${mark.kind}:${mark.peer}`;
const validSeq = (item: OutboxItem): boolean => Number.isSafeInteger(item.seq) && item.seq >= 0;

/** A commit that writes one item twice (`what`), as DynamoDB refuses. */
function writtenTwice(actorId: string, what: string, details: object) {
  return invalidArgument(
    `commit for ${actorId} ${what}: put or remove each item once per commit (DynamoDB rejects two writes to one item)`,
    { actorId, ...details },
  );
}

function badOutboxItem(actorId: string, item: OutboxItem) {
  const { seq } = item;
  return writtenTwice(
    actorId,
    `holds outbox item ${seq} of ${item.actorId} twice or with a bad seq`,
    {
      seq,
      actorId: item.actorId,
    },
  );
}

/** A commit that holds `what` of another actor, `owner`. */
function notItsOwn(actorId: string, what: string, owner: string) {
  return invalidArgument(
    `commit for ${actorId} holds ${what} of ${owner}: an actor keeps only its own`,
    { actorId },
  );
}

/** A dead letter's message id or a timer's id; a removal is the id itself. */
const idOf = (value: DeadLetter | Timer | string): string =>
  typeof value === 'string' ? value : 'messageId' in value ? value.messageId : value.id;
