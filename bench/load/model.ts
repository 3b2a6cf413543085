/**
 * The scale model of docs/scale.md as arithmetic: from the latency of each AWS call and AWS's
 * limits, what the app's throughput and latency should be. The load simulation runs the real
 * engine on the embedded backend with these same latencies and limits imposed on each call
 * (`modelledPorts.ts`) and checks the predictions against what it measures.
 */

/** How long each call takes on AWS (ms), as the model assumes: typical in-region figures. */
export interface CallLatencies {
  /** DynamoDB `GetItem` (a record load; other reads alike). */
  readonly getItem: number;
  /** `PutItem` (a commit of the record alone). */
  readonly putItem: number;
  /** `TransactWriteItems`: a base, and more per item. */
  readonly transactBase: number;
  readonly transactPerItem: number;
  /** SQS `ReceiveMessage` returning messages. */
  readonly receive: number;
  /** `SendMessage(Batch)`, `DeleteMessageBatch`, `ChangeMessageVisibilityBatch`. */
  readonly queueCall: number;
  /** API Gateway `PostToConnection`. */
  readonly post: number;
}

/** The AWS limits of docs/scale.md's table, as the simulation imposes them. */
export interface Limits {
  /** Write capacity of one partition (one actor), WCU/s. */
  readonly partitionWcu: number;
  /** Calls per second of each SQS FIFO API action (without high-throughput mode). */
  readonly queueCallsPerAction: number;
  /** `PostToConnection` calls per second, for the account. */
  readonly pushesPerSecond: number;
  /** The worker's batch size (SQS: at most 10). */
  readonly batch: number;
}

export const LATENCIES: CallLatencies = {
  getItem: 5,
  putItem: 8,
  transactBase: 12,
  transactPerItem: 1,
  receive: 10,
  queueCall: 8,
  post: 10,
};

export const LIMITS: Limits = {
  partitionWcu: 1_000,
  queueCallsPerAction: 300,
  pushesPerSecond: 10_000,
  batch: 10,
};

/**
 * Items an ingress turn commits: its record and the page of ingress outcomes its messages'
 * outcomes are appended to (I7: one item however many messages), so a transaction.
 */
export const INGRESS_COMMIT_ITEMS = 2;

/** A commit's latency: `PutItem` for the record alone, else a transaction of `items`. */
export function commitMs(items: number, l: CallLatencies = LATENCIES): number {
  return items <= 1 ? l.putItem : l.transactBase + l.transactPerItem * items;
}

/**
 * Many actors, a full queue, `containers` workers (Lambda's concurrency): each receive takes a
 * batch of `batch` messages of as many actors, whose turns (a load and an ingress commit: the
 * actors are new) run side by side, then deletes them. Messages/s: the containers' cycles, or
 * the queue's per-action limit (a receive and a delete per batch), whichever is lower.
 */
export function manyActors(
  containers: number,
  l: CallLatencies = LATENCIES,
  limits: Limits = LIMITS,
): { cycleMs: number; messagesPerSecond: number; bound: 'latency' | 'queue' } {
  const cycleMs = l.receive + l.getItem + commitMs(INGRESS_COMMIT_ITEMS, l) + l.queueCall;
  const byLatency = (containers * limits.batch * 1000) / cycleMs;
  const byQueue = limits.queueCallsPerAction * limits.batch;
  return byLatency <= byQueue
    ? { cycleMs, messagesPerSecond: byLatency, bound: 'latency' }
    : { cycleMs, messagesPerSecond: byQueue, bound: 'queue' };
}

/**
 * One hot actor with a full inbox: one batch in flight at a time (its message group), each a
 * receive of `batch` messages, one turn, an ingress commit, and a delete. The turn runs in any of
 * `containers`; one that ran an earlier turn holds the record in its warm cache, stale now unless
 * it ran the turn before too (1 in N, with N = `containers`). A commit on a stale record fails,
 * and the container reads the record in its next turns instead (a `GetItem`) until a read finds
 * its cached record current; then it trusts its cache again, and fails a commit with
 * probability (N−1)/N. In the long run a container reads in (N−1)/N of the turns and fails a
 * commit in (N−1)/N² of them. Messages that waited in a backlog while a page of outcomes closed
 * are looked up there first: `lookups` reads a turn, as the engine's call counts give them.
 * Capped by the partition's WCU: a transaction bills 2 per KB of each item, the record's
 * `recordKb` and the page of outcomes' 1 (DynamoDB's pages close at 1 KB), as docs/scale.md's
 * table and the simulation's modelled store count them.
 */
export function hotActor(
  containers: number,
  recordKb: number,
  lookups = 0,
  l: CallLatencies = LATENCIES,
  limits: Limits = LIMITS,
): { cycleMs: number; messagesPerSecond: number } {
  const commit = commitMs(INGRESS_COMMIT_ITEMS, l);
  const staleShare = 1 - 1 / containers;
  const failed = staleShare / containers;
  const stale = staleShare * l.getItem + failed * commit;
  const cycleMs = l.receive + stale + lookups * l.getItem + commit + l.queueCall;
  const wcuPerTurn = 2 * (Math.ceil(recordKb) + INGRESS_COMMIT_ITEMS - 1) * (1 + failed);
  const turnsByWcu = limits.partitionWcu / wcuPerTurn;
  const turns = Math.min(1000 / cycleMs, turnsByWcu);
  return { cycleMs, messagesPerSecond: turns * limits.batch };
}

/**
 * A message's latency from the client's send to its commit, with the workers idle (waiting on
 * the queue): the send, the receive, the load and the commit.
 */
export function messageLatencyMs(l: CallLatencies = LATENCIES): number {
  return l.queueCall + l.receive + l.getItem + commitMs(INGRESS_COMMIT_ITEMS, l);
}

/**
 * The sweeper retiring the sends idle actors' records hold (DynamoDB's store keeps a drained
 * record's sends until then). Each actor costs a load and a read of its outbox items apart (side
 * by side), a send of its held sends again and a write of its record without them. One actor at
 * a time (`lanes` undefined: the sweeper before 2026-11-30, whose reads followed each other too)
 * that is a send an actor; the sweeper now drains groups of `group` actors, `lanes` groups at a
 * time, with the group's reads side by side, its sends in one call (each actor's to its own
 * channel) and its writes side by side. The sends
 * count against the queue's `SendMessage` calls per second. Actors retired a second.
 */
export function sweptActors(
  lanes: number | undefined,
  group = 10,
  l: CallLatencies = LATENCIES,
  limits: Limits = LIMITS,
): { actorsPerSecond: number; bound: 'latency' | 'queue' } {
  // Its two reads side by side, its send, its write.
  const groupMs = l.getItem + l.queueCall + l.putItem;
  if (lanes === undefined) return { actorsPerSecond: 1000 / groupMs, bound: 'latency' };
  const byLatency = (lanes * group * 1000) / groupMs;
  const byQueue = limits.queueCallsPerAction * group;
  return byLatency <= byQueue
    ? { actorsPerSecond: byLatency, bound: 'latency' }
    : { actorsPerSecond: byQueue, bound: 'queue' };
}

/**
 * One result pushed to `subscribers`: `concurrency` calls in flight, paced to `paced` calls/s
 * (at most the account's limit). Seconds until the last subscriber has it.
 */
export function fanOutSeconds(
  subscribers: number,
  concurrency: number,
  paced: number,
  l: CallLatencies = LATENCIES,
  limits: Limits = LIMITS,
): number {
  const rate = Math.min(paced, limits.pushesPerSecond, (concurrency * 1000) / l.post);
  return subscribers / rate;
}

/**
 * Seconds to drain a backlog whose groups (actors) hold `perGroup` messages, on the embedded
 * queue, which serves groups round-robin: a receive takes one message of each of up to `batch`
 * groups before a second of any, so while many groups wait an actor gets one message a turn, and
 * its turns follow each other (one batch of a group in flight). Round `r` (every group's `r`-th
 * message) takes the longer of its messages at the many-actor rate and, for the groups still
 * holding `r` messages, one turn (shared by the rounds a turn carries when few groups are left).
 * SQS instead returns as many messages of one group as it can: see {@link skewedOnSqsSeconds}.
 */
export function skewedDrainSeconds(
  perGroup: readonly number[],
  containers: number,
  lookups = 0,
  l: CallLatencies = LATENCIES,
  limits: Limits = LIMITS,
): number {
  const rate = manyActors(containers, l, limits).messagesPerSecond;
  const hot = hotActor(containers, 1, lookups, l, limits);
  const sorted = [...perGroup].sort((a, b) => b - a);
  let seconds = 0;
  let groups = sorted.length;
  for (let r = 1; r <= (sorted[0] ?? 0); r++) {
    while (groups > 0 && (sorted[groups - 1] as number) < r) groups--;
    const perTurn = Math.max(1, Math.floor(limits.batch / groups));
    seconds += Math.max(groups / rate, hot.cycleMs / 1000 / perTurn);
  }
  return seconds;
}

/** The same backlog on SQS FIFO: the slower of all messages at the many-actor rate and the hottest actor's at its full-batch rate. */
export function skewedOnSqsSeconds(
  perGroup: readonly number[],
  containers: number,
  lookups = 0,
  l: CallLatencies = LATENCIES,
  limits: Limits = LIMITS,
): number {
  const total = perGroup.reduce((a, b) => a + b, 0);
  const hottest = Math.max(0, ...perGroup);
  return Math.max(
    total / manyActors(containers, l, limits).messagesPerSecond,
    hottest / hotActor(containers, 1, lookups, l, limits).messagesPerSecond,
  );
}
