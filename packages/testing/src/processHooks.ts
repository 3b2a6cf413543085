import type { AnyActorDefinition } from '@baton/core';
import { decodeEnvelope, INGRESS, type OutboxItem, parseActorId, TIMER } from '@baton/core/adapter';
import { place } from './OutboxHolders.ts';
import type { SimCluster } from './SimCluster.ts';
import type { SimProcessOptions } from './SimProcess.ts';

type ProcessHooks = Pick<
  SimProcessOptions,
  | 'onReceive'
  | 'onVersionConflict'
  | 'onCommit'
  | 'onOutboxRead'
  | 'onBatchSplit'
  | 'onAbandoned'
  | 'onLeftToSweeper'
  | 'onTurn'
>;

/**
 * The callbacks of a simulated process, and what the run keeps of them: counts in its stats,
 * in-flight invariant checks (I2 on each receive; on each sweep, that no outbox is orphaned),
 * and the dead letters and outbox holders each commit leaves, for redrives and the orphan check.
 */
export function processHooks(
  cluster: SimCluster,
  role: 'worker' | 'sweeper',
  actors: readonly AnyActorDefinition[],
  /** Whether the process runs older code than the last deployed (a rolling deploy goes on). */
  oldCode: () => boolean,
): ProcessHooks {
  const { stats, monitor, holders, deadLetters, lateCopies, parkedIngress } = cluster.context;
  const known = new Map(actors.map((definition) => [definition.name, definition]));
  return {
    onReceive: (body) => {
      stats.deliveries++;
      countUnknown(stats, known, body);
      return monitor.received(cluster.backend.store, body);
    },
    onVersionConflict: () => {
      stats.versionConflicts++;
    },
    onCommit: (commit, batch) => {
      stats.deadLettered += deadLetters.committed(commit.record.id, commit.deadLetters, oldCode());
      deadLetters.headOf(commit.record);
      for (const letter of commit.deadLetters?.put ?? []) {
        if (!letter.applied && lateCopies.redriven.has(letter.messageId)) stats.lateCopiesKept++;
        if (!letter.applied && letter.error.details?.forgottenGaps === true) {
          stats.forgottenGapLetters++;
        }
        if (letter.parked !== undefined && !letter.applied) {
          stats.parked++;
          const busy = cluster.context.paused.get(commit.record.id)?.busy === true;
          if (letter.envelope.from === INGRESS && !busy) parkedIngress.add(letter.messageId);
          const { from, replyTo } = letter.envelope;
          if (letter.timer || from === TIMER || replyTo !== undefined) stats.parkedFires++;
        }
      }
      stats.marksMovedOut += commit.overflow?.length ?? 0;
      if (commit.outbox.length > 0) stats.commitsApart++;
      holders.held(
        [...(commit.record.outbox ?? []), ...commit.outbox],
        batch.map((seq) => place(cluster.generation, cluster.inboxSeq(commit.record.id, seq))),
      );
    },
    ...(role === 'sweeper'
      ? {
          onOutboxRead: (actorId: string, items: readonly OutboxItem[]) =>
            checkSweep(cluster, actorId, items),
        }
      : {}),
    onBatchSplit: () => {
      stats.batchSplits++;
    },
    onAbandoned: () => {
      stats.abandonedDrains++;
    },
    onLeftToSweeper: (actorIds) => {
      stats.abandonedDrains++;
      for (const actorId of actorIds) holders.leftToSweeper(actorId);
    },
    onTurn: (turn) => {
      stats.roomCommits += turn.roomCommits;
    },
  };
}

/** Counts a delivery of a message that new code sent and this process's code does not know. */
function countUnknown(
  stats: SimCluster['context']['stats'],
  known: ReadonlyMap<string, AnyActorDefinition>,
  body: string,
): void {
  const envelope = decodeEnvelope(body);
  const type = envelope && parseActorId(envelope.to)?.type;
  if (!envelope || type === undefined || type.startsWith('$')) return;
  const definition = known.get(type);
  if (!definition) stats.unknownActorDeliveries++;
  // Names starting with `$` are the engine's own (an ask's reply before its continuation).
  else if (!envelope.name.startsWith('$') && !(envelope.name in definition.handlers)) {
    stats.unknownMessageDeliveries++;
  }
}

/**
 * The sweeper read an outbox: every item not wholly in the queue yet must still be held by an
 * inbox message in the queue (whose redelivery drains it anyway). An item whose inbox messages
 * are all gone is an orphan. (A record keeps the sends it holds after they were drained, until
 * its next commit or the sweeper retires them.)
 */
function checkSweep(cluster: SimCluster, actorId: string, all: readonly OutboxItem[]): void {
  const items = all.filter((item) =>
    item.envelopes.some((envelope) => !cluster.accepted.has(envelope.id)),
  );
  if (items.length === 0) return;
  const { stats, monitor, holders } = cluster.context;
  const envelopes = items.reduce((n, item) => n + item.envelopes.length, 0);
  const queue = cluster.backend.queue;
  const generation = cluster.generation;
  const present = new Set(
    [...queue.messages(), ...queue.deadLetters()].map((m) => place(generation, m.seq)),
  );
  monitor.violations.push(...holders.orphans(actorId, items, present));
  const raced = cluster.processes.some((p) => p.alive && p.undrained.has(actorId));
  if (raced) stats.sweeperRaced += envelopes;
  else stats.sweeperRepairs += envelopes;
}
