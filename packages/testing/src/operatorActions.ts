/**
 * What an operator does during a run: redrive the engine's dead letters once the cause is fixed
 * (here: the crashes and timeouts that ran a message out of attempts), end a message failing at
 * an actor's head (then redrive its letter), redrive the queue's own dead-letter queue, replace
 * the inbox queue with a new one that takes its messages, and pause an actor, then resume it.
 * Every inbox message moved is booked with the outbox holders, so the orphan check follows it.
 */
import { ErrorCode, isBatonError } from '@baton/core';
import { decodeEnvelope, INGRESS } from '@baton/core/adapter';
import {
  answeredSender,
  endFailingMessage,
  keyClaimLapsed,
  ofEndedLife,
  pauseActor,
  redriveDeadLetter,
  redriveNeedsForce,
  resumeActor,
} from '@baton/core/engine';
import type { Action } from './Action.ts';
import type { DeadLetter } from './DeadLetterBook.ts';
import { place } from './OutboxHolders.ts';
import type { SimCluster } from './SimCluster.ts';

/**
 * Redrives a dead letter once (again only if it is dead-lettered again). One whose sender was
 * answered DEAD_LETTERED (an actor's or a client's ask) is refused a plain redrive, nothing sent;
 * the operator here redrives it with force, as one who knows its sender undid nothing. So is one
 * kept as too old to tell, which the run redrives only when it knows it was never applied.
 */
export function redriveAction(cluster: SimCluster, letter: DeadLetter): Action {
  const { actorId, messageId } = letter;
  return {
    label: `redrive dead letter ${messageId} of ${actorId}`,
    run: async () => {
      cluster.context.stats.redrives++;
      cluster.context.deadLetters.redriving(letter);
      const { store } = cluster.backend;
      const { clock } = cluster.context;
      const kept = await store.readDeadLetter(actorId, messageId);
      const answered = kept !== undefined && answeredSender(kept) !== undefined;
      const ended = kept !== undefined && ofEndedLife(kept, await store.load(actorId));
      // Answered, kept as too old to tell (redriven only when known never applied), or kept in
      // a life that has ended (redriven into the new one, as the operator decides to).
      const force =
        kept !== undefined &&
        (redriveNeedsForce(kept) || keyClaimLapsed(kept, clock.now()) || ended);
      if (force) {
        const refused = await redriveDeadLetter(store, cluster.queue, actorId, messageId, {
          clock,
        }).then(
          () => undefined,
          (error: unknown) => error,
        );
        if (!isBatonError(refused) || refused.code !== ErrorCode.INVALID_STATE) {
          throw new Error(
            `a plain redrive of dead letter ${messageId} of ${actorId}, ${answered ? 'whose sender was answered' : ended ? 'kept in a life that has ended' : 'kept as too old to tell'}, was not refused: ${String(refused)}`,
          );
        }
        if (answered) cluster.context.stats.answeredRefusals++;
      }
      await redriveDeadLetter(store, cluster.queue, actorId, messageId, { force, clock });
      if (answered) {
        cluster.context.stats.forcedRedrives++;
        cluster.context.deadLetters.forced(messageId);
      }
    },
  };
}

/**
 * Ends the message failing at an actor's head, as an operator who will not wait for its attempts
 * to run out: its next delivery keeps it as a dead letter without running its handler, and the
 * run redrives that letter as any other. The head may have moved on since it was booked (the
 * message applied, or ended by its attempts): then nothing is ended.
 */
export function endFailingAction(
  cluster: SimCluster,
  { actorId, messageId }: { readonly actorId: string; readonly messageId: string },
): Action {
  return {
    label: `end failing message ${messageId} of ${actorId}`,
    run: async () => {
      cluster.context.deadLetters.ending(actorId);
      const by = 'operator';
      const now = cluster.context.clock.now();
      const { store } = cluster.backend;
      const ended = await endFailingMessage(store, actorId, messageId, { by, now })
        .then(() => true)
        .catch(async (error: unknown) => {
          // Moved on since, or a record too near the item limit to hold the mark.
          const noRoom = isBatonError(error) && error.details.noRoom === true;
          if (isBatonError(error) && (error.code === ErrorCode.NOT_FOUND || noRoom)) return false;
          // Refused at a paused actor (a forced pause): the message is parked at its next
          // delivery, and runs again once resumed.
          const paused = (await store.load(actorId))?.paused !== undefined;
          if (isBatonError(error) && error.code === ErrorCode.INVALID_STATE && paused) return false;
          throw error;
        });
      if (!ended) return;
      cluster.context.stats.endedFailing++;
      cluster.context.deadLetters.ended(actorId, messageId);
    },
  };
}

/**
 * Pauses an actor with a record, not paused yet, chosen by the dice (`pause` fault): half the
 * time one with a timer stored, if any, so that fires are parked beside the cancels and new
 * schedulings before them. A pause refused for a message failing at its head is forced half the
 * time (which parks that message too, its attempts counted anew); else nothing is paused, as
 * for a record too near the item limit to hold the pause. Its messages are parked from its next
 * turn on, until {@link resumeAction}. Unless `pauseBusy`, it pauses only an actor with no copy
 * of an ingress message it applied in the inbox (see `Faults.pauseBusy`).
 */
export function pauseAction(cluster: SimCluster): Action | undefined {
  const { rng, stats, clock, paused, settings } = cluster.context;
  const busy = rng() < settings.faults.pauseBusy;
  const { store } = cluster.backend;
  const candidates = store.records().filter((r) => !r.paused && !paused.has(r.id));
  const timed = new Set<string>();
  // Visits every timer due to fire (none is skipped for a sooner one while all are).
  store.nextTimerAt((timer) => timed.add(timer.actorId).size < 0);
  const withTimers = candidates.filter((r) => timed.has(r.id));
  const among = withTimers.length > 0 && rng() < 0.5 ? withTimers : candidates;
  const record = among[Math.floor(rng() * among.length)];
  if (!record) return undefined;
  const actorId = record.id;
  const force = rng() < 0.5;
  return {
    label: `pause ${actorId}${force ? ' (forced if its head is failing)' : ''}${busy ? ', copies to it allowed' : ''}`,
    run: async () => {
      if (!busy && (await holdsAppliedCopy(cluster, actorId))) return;
      const by = 'operator';
      const tried = (forced: boolean) =>
        pauseActor(store, cluster.queue, actorId, { by, now: clock.now(), force: forced });
      const refused = await tried(false).then(
        () => undefined,
        (error: unknown) => error,
      );
      // A record too near the item limit to hold the pause (the run's small limits) stays as
      // it is, as one whose head is failing does unless forced.
      const noRoom = (error: unknown) =>
        isBatonError(error) && error.code === ErrorCode.TRANSACTION_TOO_LARGE;
      if (noRoom(refused)) return;
      if (refused !== undefined) {
        if (!isBatonError(refused) || refused.code !== ErrorCode.INVALID_STATE) throw refused;
        if (!force) return;
        const forced = await tried(true).then(
          () => undefined,
          (error: unknown) => error,
        );
        if (noRoom(forced)) return;
        if (forced !== undefined) throw forced;
        stats.forcedPauses++;
      }
      stats.pauses++;
      paused.set(actorId, { busy });
    },
  };
}

/**
 * Whether the inbox (or its dead-letter queue) holds a copy of an ingress message to `actorId`
 * that has an outcome: one applied already, which a pause would park and its resume apply again.
 */
async function holdsAppliedCopy(cluster: SimCluster, actorId: string): Promise<boolean> {
  const { queue } = cluster.backend;
  for (const message of [...queue.messages(), ...queue.deadLetters()]) {
    if (message.group !== actorId) continue;
    const envelope = decodeEnvelope(message.body);
    // A client's message, known by its outcome (a redrive or a timer's fire is not).
    const ingress = envelope?.from === INGRESS && envelope.redrive === undefined;
    if (!envelope || !ingress || envelope.timer) continue;
    const { sentAt } = envelope;
    if (await cluster.client.outcome(envelope.id, { sentAt })) return true;
  }
  return false;
}

/**
 * Resumes a paused actor: its next turn applies the messages it parked, in order, first. Unless
 * it was paused with `pauseBusy`, only while the inbox holds no copy of an ingress message it
 * parked (a crash's redelivery): else nothing is done, and the run resumes it later.
 */
export function resumeAction(cluster: SimCluster, actorId: string): Action {
  return {
    label: `resume ${actorId}`,
    run: async () => {
      const { paused, parkedIngress } = cluster.context;
      if (paused.get(actorId)?.busy === false) {
        const { queue } = cluster.backend;
        const copies = [...queue.messages(), ...queue.deadLetters()].filter(
          (m) => m.group === actorId && parkedIngress.has(decodeEnvelope(m.body)?.id ?? ''),
        );
        if (copies.length > 0) return;
      }
      const now = cluster.context.clock.now();
      await resumeActor(cluster.backend.store, cluster.queue, actorId, { by: 'operator', now });
      cluster.context.paused.delete(actorId);
      cluster.context.stats.resumes++;
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
  const { holders, deadLetters } = cluster.context;
  letters.forEach((m, i) => {
    holders.moved(place(generation, m.seq), place(generation, back[i]!.seq));
    deadLetters.detoured(m.group, decodeEnvelope(m.body));
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
