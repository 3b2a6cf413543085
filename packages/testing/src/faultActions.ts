/**
 * The faults a run injects between steps of progress: each chosen by the dice at its rate and
 * within its budget (see `Faults`), and the actions that inject them.
 */
import { decodeEnvelope } from '@baton/core/adapter';
import type { Client } from '@baton/core/client';
import type { Action } from './Action.ts';
import { ofEndedLife } from './LateCopies.ts';
import { pauseAction, replaceQueueAction } from './operatorActions.ts';
import type { SimCluster } from './SimCluster.ts';

/** An ingress send, as the run replays it (a duplicate keeps the idempotency key). */
export type IngressSend = (client: Client) => Promise<unknown>;

/** The ingress a fault may act on: how many sends are still to come, and those made. */
export interface IngressState {
  readonly pending: number;
  readonly submitted: readonly IngressSend[];
}

/**
 * A fault, when the dice say so and its budget allows. `roomMs`: the virtual time a bounded run
 * (`run({ forMs })`) has left, which no fault's jump of time passes; `undefined` when unbounded.
 */
export function chooseFault(
  cluster: SimCluster,
  ingress: IngressState,
  roomMs: number | undefined,
): Action | undefined {
  const { settings, stats: s, gates, rng } = cluster.context;
  const bounded = roomMs !== undefined;
  const fits = (ms: number) => roomMs === undefined || ms <= roomMs;
  const timeoutMs = settings.visibilityTimeoutMs + 1;
  const f = settings.faults;
  const busy = gates.parked.length > 0 || ingress.pending > 0;
  const roll = rng();
  let threshold = 0;
  const options: Array<[number, () => boolean, () => Action | undefined]> = [
    [f.crash, () => s.crashes < f.crashBudget && gates.parked.length > 0, () => crash(cluster)],
    [f.restart, () => s.restarts < f.restartBudget && busy, () => restart(cluster, false)],
    [
      f.timeout,
      () => s.timeouts < 10 && busy && fits(timeoutMs),
      () => jump(cluster, 'timeout', timeoutMs),
    ],
    [
      f.longPause,
      () => s.longPauses < 3 && busy && fits(LONG_PAUSE_MS),
      () => jump(cluster, 'longPause', LONG_PAUSE_MS),
    ],
    [
      f.duplicateIngress,
      () => s.duplicateIngress < 10 && ingress.submitted.length > 0,
      () => duplicate(cluster, ingress.submitted),
    ],
    [
      f.redeliver,
      () => s.redeliveries < 10 && cluster.hasRedeliverable(),
      () => redeliver(cluster),
    ],
    [
      f.sweep,
      () => s.sweeps < f.sweepBudget && busy && cluster.sweeper.active === 0,
      () => sweepAction(cluster),
    ],
    [
      f.compaction,
      () => s.compactionRestarts < f.compactionBudget && busy,
      () => restart(cluster, true),
    ],
    [
      f.replaceQueue,
      () => s.queueReplacements < f.replaceQueueBudget && busy,
      () => replaceQueueAction(cluster),
    ],
    [f.deploy, () => cluster.deployed < settings.upgrades.length && busy, () => deploy(cluster)],
    [
      f.retentionJump,
      () =>
        !bounded &&
        s.retentionJumps < f.retentionJumpBudget &&
        cluster.idle() &&
        ingress.pending > 0,
      () => retentionJump(cluster),
    ],
    [
      f.agingJump,
      () =>
        !bounded &&
        s.agingJumps < f.agingJumpBudget &&
        cluster.idle() &&
        (ingress.pending > 0 || cluster.context.stranded.waiting > 0),
      () => agingJumpAction(cluster),
    ],
    [f.pause, () => s.pauses < f.pauseBudget && busy, () => pauseAction(cluster)],
  ];
  for (const [chance, allowed, make] of options) {
    threshold += chance;
    if (roll < threshold) return allowed() ? make() : undefined;
  }
  return undefined;
}

/** How far a long pause (a worker stalled, a GC) carries virtual time. */
const LONG_PAUSE_MS = 6 * 60_000;

/** Starts the sweeper: a fault while workers run, and progress once all else is quiet. */
export function sweepAction(cluster: SimCluster): Action {
  const { sweeper } = cluster;
  const { stats } = cluster.context;
  return {
    label: `p${sweeper.id} sweep`,
    run: () => {
      stats.sweeps++;
      cluster.task(sweeper, async () => {
        const result = await sweeper.sweeper.sweep();
        stats.sweeperSent += result.sent;
        stats.timersFired += result.timersFired;
      });
    },
  };
}

/**
 * Kills the process of a parked call. The boundary is chosen first, uniformly among those
 * with a parked call, so rare ones (an ack, an outbox delete) are struck as often as polls.
 */
function crash(cluster: SimCluster): Action {
  const { gates, rng, stats } = cluster.context;
  const parked = gates.parked;
  const labels = [...new Set(parked.map((call) => call.label))];
  const label = labels[Math.floor(rng() * labels.length)]!;
  const at = parked.filter((call) => call.label === label);
  const call = at[Math.floor(rng() * at.length)]!;
  return {
    label: `crash p${call.processId} at ${call.label}`,
    run: () => {
      stats.crashes++;
      stats.crashesAt[call.label] = (stats.crashesAt[call.label] ?? 0) + 1;
      cluster.crash(call.processId);
    },
  };
}

/** Deploys the next upgrade while work is under way. */
function deploy(cluster: SimCluster): Action {
  return {
    label: `deploy upgrade ${cluster.deployed + 1}: the client and one worker run the new code, the others roll over one by one`,
    run: () => {
      cluster.context.stats.deploys++;
      cluster.deploy();
    },
  };
}

function restart(cluster: SimCluster, compact: boolean): Action {
  const { stats } = cluster.context;
  return {
    label: compact
      ? 'restart: every process dies, the journal is compacted, the backend reopens from it'
      : 'restart: every process dies, the backend reopens from its journal',
    run: async () => {
      if (compact) stats.compactionRestarts++;
      else stats.restarts++;
      await cluster.killAll();
      cluster.backend.close();
      const before = cluster.journal.length;
      cluster.open(compact);
      if (cluster.journal.length < before) stats.compactions++;
    },
  };
}

function jump(cluster: SimCluster, kind: 'timeout' | 'longPause', ms: number): Action {
  return {
    label: `${kind}: time jumps ${ms} ms`,
    run: () => {
      cluster.context.stats[kind === 'timeout' ? 'timeouts' : 'longPauses']++;
      cluster.context.clock.advance(ms);
    },
  };
}

/**
 * While idle, time jumps past twice the mark retention: past every mark, and past the expiry of
 * the records of actors halted before it, which the store then deletes (as DynamoDB's TTL does),
 * so their next message starts a new life. Messages sent before it are forgotten as redelivery
 * candidates: SQS keeps a message no longer than the retention the marks follow.
 */
function retentionJump(cluster: SimCluster): Action {
  const ms = 2 * cluster.context.settings.markRetentionMs + 1;
  return {
    label: `retention: time jumps ${ms} ms, past the mark retention and halted records' expiry`,
    run: () => {
      cluster.context.stats.retentionJumps++;
      cluster.context.clock.advance(ms);
      cluster.timeJumped();
    },
  };
}

/**
 * While idle, time jumps by a span drawn between a quarter and twice the mark retention, so a
 * message stranded in the dead-letter queue comes back at any age a channel's rules tell apart:
 * its sender may have forgotten the channel (idle for half the retention) and sent on from
 * `prev` 0, its receiver may have forgotten the sender's mark (idle for all of it), or both.
 */
export function agingJumpAction(cluster: SimCluster): Action {
  const { settings, rng } = cluster.context;
  const retention = settings.markRetentionMs;
  const ms = Math.floor(retention / 4 + rng() * ((7 * retention) / 4));
  return {
    label: `aging: time jumps ${ms} ms (${(ms / retention).toFixed(2)} of the mark retention)`,
    run: () => {
      cluster.context.stats.agingJumps++;
      cluster.context.clock.advance(ms);
      cluster.timeJumped();
    },
  };
}

function duplicate(cluster: SimCluster, submitted: readonly IngressSend[]): Action {
  const send = submitted[Math.floor(cluster.context.rng() * submitted.length)]!;
  return {
    label: 'duplicate ingress (same idempotency key)',
    run: async () => {
      cluster.context.stats.duplicateIngress++;
      await send(cluster.client);
    },
  };
}

function redeliver(cluster: SimCluster): Action | undefined {
  const { rng, stats, paused, parkedIngress } = cluster.context;
  // None to an actor paused unless copies to it are allowed, nor of a message one parked
  // (`Faults.pauseBusy`).
  const candidates = cluster
    .redeliverable()
    .filter((m) => paused.get(m.group)?.busy !== false)
    .filter(
      (m) => parkedIngress.size === 0 || !parkedIngress.has(decodeEnvelope(m.body)?.id ?? ''),
    );
  const message = candidates[Math.floor(rng() * candidates.length)];
  if (!message) return undefined;
  return {
    label: `redeliver ${message.dedupeId} under a fresh dedupe id`,
    run: async () => {
      stats.redeliveries++;
      await cluster.backend.queue.send([
        { ...message, dedupeId: `${message.dedupeId}~${stats.redeliveries}` },
      ]);
    },
  };
}

/**
 * Redrives a copy kept aside since before a retention jump (see `LateCopies`) into the inbox,
 * under a fresh dedupe id, as an operator redrives the queue's dead-letter queue late.
 */
export function lateRedriveAction(cluster: SimCluster): Action {
  const { lateCopies, rng, stats } = cluster.context;
  return {
    label:
      "late redrive: a copy kept in the queue's dead-letter queue since before a retention jump goes back into the inbox",
    run: async () => {
      const copy = lateCopies.take(rng);
      stats.lateRedrives++;
      if (ofEndedLife(cluster.backend.store.records(), copy.body)) stats.lateRedrivesOfEndedLives++;
      await cluster.backend.queue.send([
        { ...copy, dedupeId: `${copy.dedupeId}~late${stats.lateRedrives}` },
      ]);
    },
  };
}

/**
 * Redrives a message stranded in the dead-letter queue (see `StrandedMessages`) into the inbox:
 * one that waited across a time jump if `aged`.
 */
export function strandedRedriveAction(cluster: SimCluster, aged: boolean): Action {
  const { stranded, rng, stats } = cluster.context;
  return {
    label: `redrive a message stranded in the queue's dead-letter queue before any delivery${aged ? ', across a time jump' : ''}`,
    run: async () => {
      stats.strandedRedrives++;
      const { queue } = cluster.backend;
      const acrossJump = await stranded.redrive(queue, rng, stats.strandedRedrives, aged);
      if (acrossJump) stats.strandedAcrossJumps++;
    },
  };
}
