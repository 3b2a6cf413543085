/**
 * What an operator does during a run: redrive the engine's dead letters once the cause is fixed
 * (here: the crashes and timeouts that ran a message out of attempts), redrive the queue's own
 * dead-letter queue, and replace the inbox queue with a new one that takes its messages. Every
 * inbox message moved is booked with the outbox holders, so the orphan check follows it.
 */
import { ErrorCode } from '@baton/core';
import type { Commit } from '@baton/core/adapter';
import { redriveDeadLetter } from '@baton/core/engine';
import type { Action } from './Action.ts';
import { place } from './OutboxHolders.ts';
import type { SimCluster } from './SimCluster.ts';

/** One of the engine's dead letters, as the run saw it committed. */
interface DeadLetter {
  readonly actorId: string;
  readonly messageId: string;
  redriven: boolean;
}

/** The engine's dead letters now kept (`actorId` and message id), from the commits seen. */
export class DeadLetterBook {
  readonly #letters = new Map<string, DeadLetter>();

  /** Books the dead letters a commit of `actorId` removed and put. @returns how many it put */
  committed(actorId: string, deadLetters: Commit['deadLetters']): number {
    // The proof that a redrive of an ended life's message leaves is no dead letter.
    const proofs = (deadLetters?.put ?? []).filter((letter) => letter.applied);
    for (const removed of [...(deadLetters?.remove ?? []), ...proofs.map((p) => p.messageId)]) {
      this.#letters.delete(`${actorId}\u0000${removed}`);
    }
    const put = (deadLetters?.put ?? []).filter((letter) => !letter.applied);
    for (const { messageId, error } of put) {
      // A message kept for its code's fault — too large for any commit, its handler left state
      // the code cannot commit, or a migration of its actor's state threw (the cause of its
      // DEAD_LETTERED) — fails again on the same code: an operator deploys a fix before
      // redriving it, which a run does not.
      const cause = error.details?.cause as
        | { readonly code?: string; readonly details?: { readonly migrateStep?: unknown } }
        | undefined;
      const redriven =
        cause?.code === ErrorCode.MESSAGE_TOO_LARGE ||
        cause?.code === ErrorCode.INVALID_STATE ||
        cause?.details?.migrateStep !== undefined;
      this.#letters.set(`${actorId}\u0000${messageId}`, { actorId, messageId, redriven });
    }
    return put.length;
  }

  /** The first dead letter not redriven yet. */
  next(): DeadLetter | undefined {
    return [...this.#letters.values()].find((l) => !l.redriven);
  }
}

/** Redrives a dead letter once (again only if it is dead-lettered again). */
export function redriveAction(cluster: SimCluster, letter: DeadLetter): Action {
  const { actorId, messageId } = letter;
  return {
    label: `redrive dead letter ${messageId} of ${actorId}`,
    run: async () => {
      cluster.context.stats.redrives++;
      letter.redriven = true;
      await redriveDeadLetter(cluster.backend.store, cluster.queue, actorId, messageId);
    },
  };
}

export function queueRedriveAction(cluster: SimCluster): Action {
  return {
    label: "redrive the queue's dead-letter queue",
    run: () => {
      cluster.context.stats.queueRedrives += redriveQueueDeadLetters(cluster);
    },
  };
}

/** Moves the queue's dead letters back into it (last, in order, under new seqs). */
function redriveQueueDeadLetters(cluster: SimCluster): number {
  const queue = cluster.backend.queue;
  const letters = queue.deadLetters();
  if (letters.length === 0) return 0;
  queue.redrive();
  const back = queue.messages().slice(-letters.length);
  const generation = cluster.generation;
  const { holders } = cluster.context;
  letters.forEach((m, i) => {
    holders.moved(place(generation, m.seq), place(generation, back[i]!.seq));
  });
  return letters.length;
}

/**
 * Every process dies; a new inbox queue takes the old one's messages in order (new sequence
 * numbers, from 1), and the backend reopens on it. The outbox items they held are held by
 * their copies now.
 */
export function replaceQueueAction(cluster: SimCluster): Action {
  return {
    label: 'replace queue: every process dies, a new queue takes the messages of the old one',
    run: async () => {
      cluster.context.stats.queueReplacements++;
      await cluster.killAll();
      // The old queue's dead letters move over too, as its other messages: redriven, they
      // follow the messages that passed them, as any redrive's do.
      cluster.context.stats.queueRedrives += redriveQueueDeadLetters(cluster);
      const moved = cluster.backend.queue.messages();
      const from = cluster.generation;
      cluster.backend.close();
      cluster.open(false, true);
      const queue = cluster.backend.queue;
      // Fresh dedupe ids: the old queue may hold two copies under one (past its window).
      const generation = cluster.generation;
      await queue.send(
        moved.map(({ group, dedupeId, body }, i) => ({
          group,
          dedupeId: `${dedupeId}~moved${generation}.${i}`,
          body,
        })),
      );
      const copies = queue.messages();
      moved.forEach((m, i) => {
        cluster.context.holders.moved(place(from, m.seq), place(generation, copies[i]!.seq));
      });
    },
  };
}
