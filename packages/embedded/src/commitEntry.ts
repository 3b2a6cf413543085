/**
 * A commit as the embedded store takes it: checked as DynamoDB checks a transaction — in this
 * order, the limits (TRANSACTION_TOO_LARGE), the version condition on version and life
 * (VERSION_CONFLICT, carrying the stored record) and the idempotency keys (DUPLICATE, naming
 * every used key) — then made into the journal entry that applies it.
 */
import type { Clock, Commit, StoreLimits } from '@baton/core/adapter';
import { checkCommit, duplicateKeys, versionConflict } from '@baton/core/adapter';
import { deepCopy, type Writable } from '@baton/core/shared';
import { deepFreeze } from './deepFreeze.ts';
import type { CommitEntry, StoreTables } from './StoreTables.ts';
import { liveIdempotency } from './storeReads.ts';

/**
 * The entry that applies `commit` to `tables`, or the error that refuses it. With `freeze`, the
 * commit is measured whole and the entry (what it passes in) frozen: see
 * `EmbeddedStoreOptions.freezeCommits`.
 */
export function commitEntry(
  commit: Commit,
  tables: StoreTables,
  limits: StoreLimits,
  clock: Clock,
  freeze: boolean,
): CommitEntry {
  checkCommit(commit, limits, { verifyMeasured: freeze });
  const { record, expectedVer } = commit;
  const current = tables.records.get(record.id);
  // A record of another life at the same version is not the one the turn read.
  if ((current?.ver ?? 0) !== expectedVer || (current && current.life !== record.life)) {
    throw versionConflict(record.id, current && deepCopy(current));
  }
  // Only `idempotency` is put-if-absent; `replaceIdempotency` overwrites (a redrive's outcome).
  const used: string[] = [];
  for (const { key } of commit.idempotency) if (liveIdempotency(tables, clock, key)) used.push(key);
  // A page, like DynamoDB's page item, knows only its own outcomes.
  const page = commit.outcomes && tables.pages.get(record.id)?.get(commit.outcomes.page);
  for (const { key } of commit.outcomes?.records ?? []) {
    if (page?.keys.has(key) && liveIdempotency(tables, clock, key)) used.push(key);
  }
  if (used.length > 0) throw duplicateKeys(used);

  // An absent part is an undefined field, which the journal's JSON leaves out. Built field by
  // field: every commit makes one, and spreads of optional parts cost more than the rest.
  const replaced = commit.replaceIdempotency;
  const entry: Writable<CommitEntry> = {
    t: 'store.commit',
    record,
    outbox: commit.outbox,
    idempotency: replaced?.length ? [...commit.idempotency, ...replaced] : commit.idempotency,
    deadLetters: commit.deadLetters,
    timers: commit.timers,
  };
  if (commit.outcomes?.records.length) entry.outcomes = commit.outcomes;
  if (commit.overflow?.length) entry.overflow = commit.overflow;
  if (freeze) deepFreeze(entry);
  return entry;
}
