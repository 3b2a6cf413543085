/**
 * The commits of one turn, one after the other. Each drains the sends the commit before it left
 * in the record it replaces, then writes what the builder holds on the version it read: the
 * record, with its outcomes and sends placed in it or apart, in one atomic write.
 */
import type { CommitMeasures } from '../adapter/ports.ts';
import type { ActorRecord, Timer } from '../adapter/storedRecords.ts';
import type { CommitBuilder } from './CommitBuilder.ts';
import { placedBytes, placeOutcomes, placeSends } from './commitPlacement.ts';
import type { TurnEngine } from './createEngine.ts';
import { drainOutbox, type OutboxToDrain } from './drainOutbox.ts';
import { notify } from './hooks.ts';
import { withoutOutbox } from './turnRecord.ts';

/** What a turn's commits made: the fields of its `TurnResult`. */
export interface CommitsMade {
  readonly sent: number;
  readonly ver: number;
  readonly life: string | undefined;
  readonly timers: readonly Timer[];
  readonly undrained?: OutboxToDrain;
}

/**
 * The commits of a turn on `base`: `commit()` commits what `builder` holds and starts it again
 * on the record committed; `made()` says what they made so far.
 *
 * @example
 * const commits = turnCommits(engine, builder, base);
 * if (builder.size > 0) await commits.commit();
 * return { done, ...commits.made(), counts };
 */
export function turnCommits(
  engine: TurnEngine,
  builder: CommitBuilder,
  base: ActorRecord,
): { commit: () => Promise<void>; made: () => CommitsMade } {
  /** The record as the last commit left it: the turn's base until it commits. */
  let committed = base;
  let sent = 0;
  const timers: Timer[] = [];
  /** The last commit's sends: drained before the next commit, else by the turn's caller. */
  let undrained: OutboxToDrain | undefined;

  const commit = async () => {
    // This commit replaces the record holding the previous commit's sends: drain them first.
    if (undrained) await drainOutbox(engine.store, engine.queue, undrained);
    undrained = undefined;
    const outcomeBytes = builder.outcomeBytes;
    const { recordBytes } = builder;
    const taken = builder.take(base.id, engine.clock.now());
    const { record: next, writes: pending } = placeOutcomes(
      builder.record,
      committed.ver + 1,
      taken,
      engine.store.limits,
      outcomeBytes,
    );
    const nextBytes =
      recordBytes === undefined ? undefined : placedBytes(builder.record, next, recordBytes);
    const { record, apart, bytes } = placeSends(
      next,
      pending.outbox,
      engine.store.limits,
      nextBytes,
    );
    // The sizes measured on the way, so that the store need not walk the values again.
    const measured: CommitMeasures = {};
    if (bytes !== undefined) measured.record = bytes;
    else if (record === next && nextBytes !== undefined) measured.record = nextBytes;
    if (pending.outcomes) measured.outcomes = outcomeBytes;
    const applied = { expectedVer: committed.ver, record, ...pending, outbox: apart, measured };
    await engine.store.commit(applied);
    notify(engine.logger, 'onCommit', engine.onCommit, applied, base.id);
    // A parked message is no failure, nor a redrive's proof: only the ones a turn ended are told.
    for (const letter of pending.deadLetters?.put ?? []) {
      if (letter.parked === undefined && !letter.applied) {
        notify(engine.logger, 'onDeadLetter', engine.onDeadLetter, letter, base.id);
      }
    }
    engine.cache.committed(record, committed, pending.timers, measured.record);
    committed = record;
    builder.reset(withoutOutbox(record));
    for (const item of pending.outbox) sent += item.envelopes.length;
    if (pending.outbox.length > 0) {
      const { ver, life } = record;
      undrained = { actorId: base.id, held: record.outbox ?? [], apart, ver, life };
    }
    // A timer kept for its dead-lettered fire is not armed: only a redrive applies it.
    for (const timer of pending.timers?.put ?? []) if (!timer.deadLettered) timers.push(timer);
  };

  const made = (): CommitsMade => ({
    sent,
    ver: committed.ver,
    life: committed.life,
    timers,
    ...(undrained ? { undrained } : {}),
  });
  return { commit, made };
}
